import Foundation
@testable import SwiftPJSUAKit

/// One report the core made to the provider.
enum ProviderReport: Hashable, Sendable {
    case newIncoming(UUID, CallUpdate)
    case repeatedPush(UUID)
    case startedConnecting(UUID)
    case connected(UUID)
    case ended(UUID, CallEndReason)
}

/// A provider that records reports; it can refuse new calls like Do Not Disturb.
final class FakeProvider: CallProvider, @unchecked Sendable {
    // @unchecked Sendable: `entries` and `refusing` are guarded by `lock`.
    private let lock = NSLock()
    private var entries: [ProviderReport] = []
    private var refusing = false

    var reports: [ProviderReport] { lock.withLock { entries } }

    func refuseNewCalls() { lock.withLock { refusing = true } }

    var newIncomingUUIDs: [UUID] {
        reports.compactMap { if case let .newIncoming(uuid, _) = $0 { uuid } else { nil } }
    }

    var endings: [(UUID, CallEndReason)] {
        reports.compactMap { if case let .ended(uuid, reason) = $0 { (uuid, reason) } else { nil } }
    }

    func reportNewIncomingCall(uuid: UUID, update: CallUpdate) async throws {
        let refuse = lock.withLock {
            entries.append(.newIncoming(uuid, update))
            return refusing
        }
        if refuse { throw FakeFailure(operation: "report \(uuid)") }
    }

    func reportRepeatedIncomingPush(uuid: UUID, update: CallUpdate) async {
        lock.withLock { entries.append(.repeatedPush(uuid)) }
    }

    func reportOutgoingCallStartedConnecting(uuid: UUID) async {
        lock.withLock { entries.append(.startedConnecting(uuid)) }
    }

    func reportOutgoingCallConnected(uuid: UUID) async {
        lock.withLock { entries.append(.connected(uuid)) }
    }

    func reportCallEnded(uuid: UUID, reason: CallEndReason) async {
        lock.withLock { entries.append(.ended(uuid, reason)) }
    }
}
