import Foundation
@testable import SwiftPJSUAKit
import Synchronization

/// An audio session that counts configurations.
final class FakeAudioSession: AudioSessionControl {
    private struct State {
        var count = 0
        var failing = false
    }

    private let state = Mutex(State())

    var configurations: Int { state.withLock { $0.count } }

    func fail() { state.withLock { $0.failing = true } }

    func configureForVoiceCall() async throws {
        let fail = state.withLock { state in
            state.count += 1
            return state.failing
        }
        if fail { throw FakeFailure(operation: "configure audio session") }
    }
}
