import PJSIP

extension PJSUA {
    /// How ``PJSUA/handleIPChange(_:)`` recovers signalling after a network change
    /// (`pjsua_ip_change_param`).
    public struct IPChangeOptions: Sendable, Hashable {
        /// Whether the SIP listeners are closed and opened again on their port, so that they bind
        /// to and advertise the new address (`restart_listener`). On by default.
        ///
        /// A listener bound to every address reopens on every address. One bound to a single
        /// address (``Configuration/bindAddress``) reopens on that address only: pjsua itself
        /// would widen it to every address, so that an engine bound to 127.0.0.1 became reachable
        /// from the network after its first IP change; our PJSIP build keeps the address (KL-43).
        /// swift-pjsip's iOS binary is not patched: there a bound listener reopens on every
        /// address, as pjsua documents.
        public var restartListener: Bool
        /// How long pjsua waits before it tries once more when reopening a listener fails
        /// (`restart_lis_delay`; 0...60 s, pjsua's default is 10 ms). The first try is at once.
        ///
        /// Reopening can fail while another thread is still inside a call on the closed socket
        /// (the port is still taken then) or when the bound address is gone. With zero there is
        /// no second try: the listener stays closed, and the failure arrives as the
        /// ``IPChangeStep/listenerRestarted`` step's error.
        public var listenerRestartDelay: Duration
        /// Whether connections (TCP, TLS) bound to the old address are shut down
        /// (`shutdown_transport`). On by default.
        public var shutDownTransports: Bool

        /// Creates options; the defaults are pjsua's.
        public init(restartListener: Bool = true, listenerRestartDelay: Duration = .milliseconds(10), shutDownTransports: Bool = true) {
            self.restartListener = restartListener
            self.listenerRestartDelay = listenerRestartDelay
            self.shutDownTransports = shutDownTransports
        }
    }

    /// What an account does with its calls when the network changes
    /// (`pjsua_acc_config.ip_change_cfg`).
    public enum IPChangeCallPolicy: Sendable, Hashable, CustomStringConvertible {
        /// Keep each call: a re-INVITE moves its signalling and media to the new address
        /// (new Contact, new Via, media transports re-created). The default.
        case keep
        /// End each call (with a BYE where it can still be sent): for apps that would rather
        /// call again than carry on over a path that changed under the call.
        case hangUp

        public var description: String { self == .keep ? "keep" : "hang up" }
    }

    /// One step of ``PJSUA/handleIPChange(_:)`` (`on_ip_change_progress`), in the order pjsua
    /// takes them; the last is always ``completed``.
    public enum IPChangeStep: Sendable, Hashable, CustomStringConvertible {
        /// Transports bound to the old address were shut down.
        case transportsShutDown
        /// The SIP listeners were opened again on the new address.
        case listenerRestarted
        /// An account's connection to its registrar was shut down.
        case accountTransportShutDown(account: Account)
        /// An account registered again with its new Contact (the outcome follows as a
        /// ``Event/registration(account:state:)`` event).
        case accountContactUpdated(account: Account)
        /// A call of an account was ended (``IPChangeCallPolicy/hangUp``).
        case callHungUp(account: Account, call: Call)
        /// A call of an account was moved to the new address with a re-INVITE
        /// (``IPChangeCallPolicy/keep``).
        case callReinvited(account: Account, call: Call)
        /// Every step is done.
        case completed

        public var description: String {
            switch self {
            case .transportsShutDown: "transports shut down"
            case .listenerRestarted: "listener restarted"
            case let .accountTransportShutDown(account): "\(account) transport shut down"
            case let .accountContactUpdated(account): "\(account) contact updated"
            case let .callHungUp(account, call): "\(account) \(call) hung up"
            case let .callReinvited(account, call): "\(account) \(call) re-invited"
            case .completed: "completed"
            }
        }
    }
}
