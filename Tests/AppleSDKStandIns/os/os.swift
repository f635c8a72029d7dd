// Stand-in for the os.Logger slice SwiftPJSUAKit uses; see ../README.md. Pages are under
// developer.apple.com/documentation/os/ (iOS 14.0+, macOS 11.0+). The real OSLogMessage is
// checked by the compiler (privacy arguments must be literals of OSLogPrivacy); this one is not.

/// os/logger (M: Sendable)
public struct Logger: Sendable {
    /// os/logger/init(subsystem:category:)
    public init(subsystem: String, category: String) {}

    /// os/logger/log(level:_:) (M)
    public func log(level: OSLogType, _ message: OSLogMessage) {}
    /// os/logger/debug(_:)
    public func debug(_ message: OSLogMessage) {}
    /// os/logger/info(_:)
    public func info(_ message: OSLogMessage) {}
    /// os/logger/notice(_:)
    public func notice(_ message: OSLogMessage) {}
    /// os/logger/error(_:)
    public func error(_ message: OSLogMessage) {}
    /// os/logger/fault(_:)
    public func fault(_ message: OSLogMessage) {}
}

/// os/oslogtype
public struct OSLogType: Equatable, RawRepresentable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// os/oslogtype/default
    public static let `default` = OSLogType(rawValue: 0x00)
    /// os/oslogtype/info
    public static let info = OSLogType(rawValue: 0x01)
    /// os/oslogtype/debug
    public static let debug = OSLogType(rawValue: 0x02)
    /// os/oslogtype/error
    public static let error = OSLogType(rawValue: 0x10)
    /// os/oslogtype/fault
    public static let fault = OSLogType(rawValue: 0x11)
}

/// os/oslogmessage
public struct OSLogMessage: ExpressibleByStringInterpolation, ExpressibleByStringLiteral {
    /// os/oslogmessage/interpolation
    public let interpolation: OSLogInterpolation

    public init(stringInterpolation: OSLogInterpolation) { interpolation = stringInterpolation }
    public init(stringLiteral value: String) { interpolation = OSLogInterpolation(literalCapacity: 0, interpolationCount: 0) }
}

/// os/osloginterpolation (`@frozen struct OSLogInterpolation`)
public struct OSLogInterpolation: StringInterpolationProtocol {
    public init(literalCapacity: Int, interpolationCount: Int) {}
    public mutating func appendLiteral(_ literal: String) {}

    /// os/osloginterpolation/appendinterpolation(_:align:privacy:)-6tazr
    public mutating func appendInterpolation(_ argumentString: @autoclosure @escaping () -> String,
                                             align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto) {}

    /// os/osloginterpolation/appendinterpolation(_:align:privacy:)-84m60
    public mutating func appendInterpolation<T>(_ value: @autoclosure @escaping () -> T,
                                                align: OSLogStringAlignment = .none,
                                                privacy: OSLogPrivacy = .auto) where T: CustomStringConvertible {}
}

/// os/oslogstringalignment
public struct OSLogStringAlignment: Sendable {
    /// os/oslogstringalignment/none
    public static var none: OSLogStringAlignment { OSLogStringAlignment() }
}

/// os/oslogprivacy
public struct OSLogPrivacy: Equatable, Sendable {
    private let level: UInt8

    /// os/oslogprivacy/auto
    public static var auto: OSLogPrivacy { OSLogPrivacy(level: 0) }
    /// os/oslogprivacy/public
    public static var `public`: OSLogPrivacy { OSLogPrivacy(level: 1) }
    /// os/oslogprivacy/private
    public static var `private`: OSLogPrivacy { OSLogPrivacy(level: 2) }
    /// os/oslogprivacy/sensitive
    public static var sensitive: OSLogPrivacy { OSLogPrivacy(level: 3) }
}
