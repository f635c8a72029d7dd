// iOS only (Network.framework). SWIFTPJSUA_APPLE_STANDINS is set only by
// scripts/check-apple-code.sh, which compiles this file on Linux against stand-ins of Apple's
// declarations (Tests/AppleSDKStandIns): SwiftPM itself never sees it.
#if canImport(Network) && (os(iOS) || SWIFTPJSUA_APPLE_STANDINS)
import Foundation
import Network

/// The Network.framework adapter: hands every `NWPathMonitor` path, in order, to a
/// ``NetworkChangeCoordinator``, which decides whether the engine must recover.
///
/// It decides nothing itself. A started observer runs until ``cancel()``.
public final class NetworkPathObserver: Sendable {
    private let monitor = NWPathMonitor()
    private let queue = DispatchQueue(label: "swift-pjsua.network-path")
    private let paths: AsyncStream<NetworkPath>.Continuation
    private let delivery: Task<Void, Never>

    /// Creates an observer that feeds `coordinator`.
    public init<Engine: CallEngine>(coordinator: NetworkChangeCoordinator<Engine>) {
        let (stream, continuation) = AsyncStream<NetworkPath>.makeStream()
        paths = continuation
        // One task, so the coordinator sees paths in the order the monitor reported them.
        delivery = Task {
            for await path in stream { await coordinator.pathChanged(path) }
        }
    }

    /// Starts monitoring.
    public func start() {
        monitor.pathUpdateHandler = { [paths] path in paths.yield(NetworkPath(path)) }
        monitor.start(queue: queue)
    }

    /// Stops monitoring and delivery.
    public func cancel() {
        monitor.cancel()
        paths.finish()
        delivery.cancel()
    }
}

extension NetworkPath {
    /// The platform-neutral form of an `NWPath`.
    init(_ path: NWPath) {
        self.init(isSatisfied: path.status == .satisfied,
                  interfaces: path.availableInterfaces.map { Interface(name: $0.name, kind: InterfaceKind($0.type)) })
    }
}

extension NetworkPath.InterfaceKind {
    init(_ type: NWInterface.InterfaceType) {
        switch type {
        case .wifi: self = .wifi
        case .cellular: self = .cellular
        case .wiredEthernet: self = .wired
        case .loopback: self = .loopback
        case .other: self = .other
        @unknown default: self = .other
        }
    }
}
#endif
