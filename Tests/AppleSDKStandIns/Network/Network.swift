// Stand-in for the Network.framework slice SwiftPJSUAKit uses; see ../README.md. Pages are under
// developer.apple.com/documentation/network/ (iOS 12.0+).
@_exported import DispatchStandIn

/// network/nwpathmonitor (M: Sendable)
public final class NWPathMonitor: @unchecked Sendable {
    /// network/nwpathmonitor/init()
    public init() {}

    /// network/nwpathmonitor/pathupdatehandler (A: `@Sendable`; M renders it without)
    @preconcurrency public final var pathUpdateHandler: (@Sendable (NWPath) -> Void)?

    /// network/nwpathmonitor/start(queue:)
    public final func start(queue: DispatchQueue) {}

    /// network/nwpathmonitor/cancel()
    public final func cancel() {}

    /// network/nwpathmonitor/currentpath
    public final var currentPath: NWPath { NWPath() }
}

/// network/nwpath
public struct NWPath {
    init() {}

    /// network/nwpath/status-swift.property
    public let status: NWPath.Status = .unsatisfied

    /// network/nwpath/availableinterfaces ("in order of preference")
    public let availableInterfaces: [NWInterface] = []

    /// network/nwpath/status-swift.enum
    public enum Status: Sendable, Hashable {
        case satisfied, unsatisfied, requiresConnection
    }
}

/// network/nwinterface (Sendable, Hashable)
public struct NWInterface: Sendable, Hashable {
    /// network/nwinterface/type
    public let type: NWInterface.InterfaceType
    /// network/nwinterface/name
    public let name: String

    /// network/nwinterface/interfacetype
    public enum InterfaceType: Sendable, Hashable {
        case other, wifi, cellular, wiredEthernet, loopback
    }
}
