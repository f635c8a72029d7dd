import Foundation
@testable import SwiftPJSUAKit

/// An audio session that counts configurations.
final class FakeAudioSession: AudioSessionControl, @unchecked Sendable {
    // @unchecked Sendable: `count` and `failing` are guarded by `lock`.
    private let lock = NSLock()
    private var count = 0
    private var failing = false

    var configurations: Int { lock.withLock { count } }

    func fail() { lock.withLock { failing = true } }

    func configureForVoiceCall() async throws {
        let fail = lock.withLock {
            count += 1
            return failing
        }
        if fail { throw FakeFailure(operation: "configure audio session") }
    }
}
