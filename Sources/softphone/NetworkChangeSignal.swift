import Dispatch
import Foundation
import SwiftPJSUA

/// SIGUSR1 means "the network changed": every long-running command then calls
/// ``PJSUA/handleIPChange(_:)`` (listeners reopened on the new address, accounts registered again
/// with the new Contact, calls re-invited) and prints its progress as `ipChange` events. Send it
/// from whatever watches the host's network (a NetworkManager dispatcher script, `ip monitor`).
enum NetworkChangeSignal {
    /// Starts handling SIGUSR1 for `phone` until the returned source is cancelled.
    static func install(for phone: PJSUA, output: Output) -> DispatchSourceSignal {
        signal(SIGUSR1, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGUSR1, queue: .global())
        source.setEventHandler {
            Task {
                output.emit("networkChange", [:], human: "SIGUSR1: handling a network change")
                do {
                    try await phone.handleIPChange()
                } catch {
                    output.emit("error", ["message": "\(error)"], human: "softphone: network change: \(error)")
                }
            }
        }
        source.resume()
        return source
    }
}
