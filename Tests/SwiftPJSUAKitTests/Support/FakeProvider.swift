import Foundation
@testable import SwiftPJSUAKit
import Synchronization

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
final class FakeProvider: CallProvider {
    private struct State {
        var entries: [ProviderReport] = []
        var seen: Set<UUID> = []
        var refusingAll = false
        var refusedUUIDs: Set<UUID> = []
    }

    private let state = Mutex(State())

    var reports: [ProviderReport] { state.withLock { $0.entries } }

    /// Refuses every new call from now on (Do Not Disturb).
    func refuseNewCalls() { state.withLock { $0.refusingAll = true } }

    /// Refuses a new call with this UUID.
    func refuse(_ uuid: UUID) { _ = state.withLock { $0.refusedUUIDs.insert(uuid) } }

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
        let accepted = state.withLock { state in
            let accept = !state.refusingAll && !state.refusedUUIDs.contains(uuid) && !state.seen.contains(uuid)
            state.seen.insert(uuid)
            state.entries.append(accept ? .newIncoming(uuid, update) : .refused(uuid))
            return accept
        }
        if !accepted { throw FakeFailure(operation: "report \(uuid)") }
    }

    func reportCallUpdated(uuid: UUID, update: CallUpdate) async {
        record(.updated(uuid, update))
    }

    func reportOutgoingCallStartedConnecting(uuid: UUID) async {
        record(.startedConnecting(uuid))
    }

    func reportOutgoingCallConnected(uuid: UUID) async {
        record(.connected(uuid))
    }

    func reportCallEnded(uuid: UUID, reason: CallEndReason) async {
        record(.ended(uuid, reason))
    }

    private func record(_ report: ProviderReport) {
        state.withLock { $0.entries.append(report) }
    }
}
