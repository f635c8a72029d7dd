// Every Apple platform has os.Logger (iOS 14, macOS 11; the package requires iOS 17, macOS 14),
// so `canImport(os)` alone decides; Linux has no `os` module. scripts/check-apple-code.sh compiles
// this on Linux against the stand-in in Tests/AppleSDKStandIns/os.
#if canImport(os)
import os
import SwiftPJSUA

extension PJSUA {
    /// A ``SwiftPJSUA/PJSUA/LogHandler`` that writes the engine's log to the unified logging
    /// system through an `os.Logger`, for ``SwiftPJSUA/PJSUA/Configuration/logHandler``:
    ///
    /// ```swift
    /// try await engine.start(.init(logLevel: .info,
    ///                              logHandler: PJSUA.osLogHandler(subsystem: "com.example.phone", category: "sip")))
    /// ```
    ///
    /// Levels: PJSIP errors are `.error`; warnings `.default` (PJSIP warns about routine, recovered
    /// conditions, so `.error` stays meaningful); info `.info`; debug, trace and verbose `.debug`.
    ///
    /// Privacy: each line is logged `.private`. PJSIP's lines carry SIP URIs, display names, IP
    /// addresses and, with ``SwiftPJSUA/PJSUA/Configuration/logSIPMessages``, whole SIP messages:
    /// personal data that must not end up readable in logs collected from users' devices (a
    /// sysdiagnose, Console). They are shown while the app runs under Xcode, and on a device with
    /// a logging profile that enables private data; the level and timestamp are always visible.
    public static func osLogHandler(subsystem: String, category: String) -> LogHandler {
        let logger = Logger(subsystem: subsystem, category: category)
        return { level, message in
            guard level != .off else { return }
            var line = Substring(message)
            while line.last == "\n" { line = line.dropLast() }
            let text = String(line)
            logger.log(level: osLogType(for: level), "\(text, privacy: .private)")
        }
    }

    /// The unified-logging type a PJSIP log level is written with.
    static func osLogType(for level: LogLevel) -> OSLogType {
        switch level {
        case .off, .error: .error
        case .warning: .default
        case .info: .info
        case .debug, .trace, .verbose: .debug
        }
    }
}
#endif
