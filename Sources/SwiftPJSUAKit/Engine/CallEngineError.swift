/// Errors SwiftPJSUAKit's engine adapters raise themselves.
public enum CallEngineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The engine cannot do this yet; the associated value names the operation.
    case unsupported(String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case let .unsupported(operation): "the engine does not support \(operation) yet"
        }
    }
}
