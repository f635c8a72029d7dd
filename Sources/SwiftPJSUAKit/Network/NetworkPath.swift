/// What the device's network looks like at one moment, as a path monitor reports it
/// (on Apple platforms, from `NWPathMonitor`'s `NWPath`). Platform-neutral, so the decision made
/// from it (by ``NetworkChangeCoordinator``) is tested anywhere.
public struct NetworkPath: Sendable, Hashable, CustomStringConvertible {
    /// The kind of a network interface.
    public enum InterfaceKind: String, Sendable, Hashable {
        case wifi, cellular, wired, loopback, other
    }

    /// One interface the path can use.
    public struct Interface: Sendable, Hashable, CustomStringConvertible {
        /// The system's name for it, e.g. `en0`, `pdp_ip0`.
        public var name: String
        /// Its kind.
        public var kind: InterfaceKind

        public init(name: String, kind: InterfaceKind) {
            self.name = name
            self.kind = kind
        }

        public var description: String { "\(name) (\(kind.rawValue))" }
    }

    /// Whether the path can carry traffic now.
    public var isSatisfied: Bool
    /// The interfaces available to the path, the preferred one first.
    public var interfaces: [Interface]

    public init(isSatisfied: Bool, interfaces: [Interface]) {
        self.isSatisfied = isSatisfied
        self.interfaces = interfaces
    }

    /// The interfaces that reach beyond the device (loopback left out), in order of preference.
    var externalInterfaces: [Interface] { interfaces.filter { $0.kind != .loopback } }

    public var description: String {
        "\(isSatisfied ? "satisfied" : "unsatisfied") via [\(interfaces.map(\.description).joined(separator: ", "))]"
    }
}
