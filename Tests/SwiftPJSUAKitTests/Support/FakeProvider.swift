import Foundation
@testable import SwiftPJSUAKit

/// One report the core made to the provider.
enum ProviderReport: Hashable, Sendable {
    /// A new incoming call the provider accepted (posted).
    case newIncoming(UUID, CallUpdate)
    /// A new incoming call the provider refused.
    case refused(UUID)
    case updated(UUID, CallUpdate)
    case startedConnecting(UUID)
    case connected(UUID)
    case ended(UUID, CallEndReason)
}

/// A provider that records reports and refuses new calls like CallKit: a UUID it already saw
/// (`callUUIDAlreadyExists`), any call while "Do Not Disturb" is on, or UUIDs a test names.
final class FakeProvider: CallProvider, @unchecked Sendable {
    // @unchecked Sendable: `entries`, `seen`, `refusingAll` and `refusedUUIDs` are guarded by `lock`.
    private let lock = NSLock()
    private var entries: [ProviderReport] = []
    private var seen: Set<UUID> = []
    private var refusingAll = false
    private var refusedUUIDs: Set<UUID> = []

    var reports: [ProviderReport] { lock.withLock { entries } }

    /// Refuses every new call from now on (Do Not Disturb).
    func refuseNewCalls() { lock.withLock { refusingAll = true } }

    /// Refuses a new call with this UUID.
    func refuse(_ uuid: UUID) { _ = lock.withLock { refusedUUIDs.insert(uuid) } }

    /// The UUIDs of the new incoming calls the provider accepted, in order.
    var newIncomingUUIDs: [UUID] {
        reports.compactMap { if case let .newIncoming(uuid, _) = $0 { uuid } else { nil } }
    }

    var refusedCount: Int {
        reports.filter { if case .refused = $0 { true } else { false } }.count
    }

    var endings: [(UUID, CallEndReason)] {
        reports.compactMap { if case let .ended(uuid, reason) = $0 { (uuid, reason) } else { nil } }
    }

    var updates: [(UUID, CallUpdate)] {
        reports.compactMap { if case let .updated(uuid, update) = $0 { (uuid, update) } else { nil } }
    }

    func reportNewIncomingCall(uuid: UUID, update: CallUpdate) async throws {
        let accepted = lock.withLock {
            let accept = !refusingAll && !refusedUUIDs.contains(uuid) && !seen.contains(uuid)
            seen.insert(uuid)
            entries.append(accept ? .newIncoming(uuid, update) : .refused(uuid))
            return accept
        }
        if !accepted { throw FakeFailure(operation: "report \(uuid)") }
    }

    func reportCallUpdated(uuid: UUID, update: CallUpdate) async {
        lock.withLock { entries.append(.updated(uuid, update)) }
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
