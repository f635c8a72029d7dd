import Foundation
import SwiftPJSUA

/// `--ca-file PEM --cert PEM --key PEM --key-password-env VAR --tls-verify on|off
/// --srtp off|optional|mandatory`: TLS and SRTP settings shared by `call`, `answer` and
/// `register` (`message` takes the TLS ones). Key passwords, like account passwords, never come
/// from argv.
struct SecurityOptions {
    /// The TLS options: they configure the TLS transport (`--listen tls:...`, or the one a client
    /// opens for a `sips:` destination).
    static let tlsValued: Set<String> = ["ca-file", "cert", "key", "key-password-env", "tls-verify"]
    static let valued: Set<String> = tlsValued.union(["srtp", "srtp-keying"])
    static let tlsUsage = """
      TLS: --listen tls:<host>:<port>, or without --listen a sips: (or ;transport=tls) destination or registrar
           (a TLS transport on a free loopback port) [--ca-file CA.pem] [--cert CERT.pem --key KEY.pem [--key-password-env VAR]]
           [--tls-verify on|off] (servers are verified against --ca-file by default; off prints a warning)
    """
    static let usage = """
    \(tlsUsage)
      SRTP: --srtp off|optional|mandatory [--srtp-keying sdes|dtls|sdes,dtls|dtls,sdes] (default sdes:
           keys only over TLS when listening on tls, otherwise in clear SIP, with a warning; dtls
           agrees keys on the media path, where the PJSIP build has DTLS-SRTP)
    """

    var tls = PJSUA.TLSConfiguration()
    var srtp = PJSUA.SRTPConfiguration.off
    /// Lines to print (on standard error) before starting: what the options weaken.
    var warnings: [String] = []

    init(_ arguments: Arguments, listen: ListenAddress) throws(UsageError) {
        tls.caFile = arguments.string("ca-file")
        tls.certificateFile = arguments.string("cert")
        tls.privateKeyFile = arguments.string("key")
        if (tls.certificateFile == nil) != (tls.privateKeyFile == nil) { throw UsageError("--cert and --key go together") }
        if let variable = arguments.string("key-password-env") {
            guard tls.privateKeyFile != nil else { throw UsageError("--key-password-env needs --key") }
            guard let value = ProcessInfo.processInfo.environment[variable] else {
                throw UsageError("environment variable \(variable) (from --key-password-env) is not set")
            }
            tls.privateKeyPassword = value
        }
        switch arguments.string("tls-verify") {
        case nil, "on": tls.verifyServer = true
        case "off":
            tls.verifyServer = false
            warnings.append("warning: --tls-verify off: TLS servers' certificates are NOT verified; anyone on the path can impersonate them")
        case let other?: throw UsageError("--tls-verify must be on or off, got '\(other)'")
        }
        let usesTLSOptions = ["ca-file", "cert", "key", "tls-verify"].contains { arguments.string($0) != nil }
        if usesTLSOptions && listen.transport != .tls {
            throw UsageError("--ca-file, --cert, --key and --tls-verify need a TLS transport: a sips: (or ;transport=tls) destination or registrar, or --listen tls:<host>:<port>")
        }
        if let text = arguments.string("srtp-keying") {
            guard arguments.string("srtp") != nil else { throw UsageError("--srtp-keying needs --srtp") }
            let methods = text.split(separator: ",").map { PJSUA.SRTPConfiguration.Keying(rawValue: String($0)) }
            guard !methods.isEmpty, methods.allSatisfy({ $0 != nil }) else {
                throw UsageError("--srtp-keying must list sdes and/or dtls, got '\(text)'")
            }
            srtp.keying = methods.compactMap { $0 }
        }
        if let text = arguments.string("srtp") {
            guard let mode = PJSUA.SRTPConfiguration.Mode(rawValue: text) else {
                throw UsageError("--srtp must be off, optional or mandatory, got '\(text)'")
            }
            srtp.mode = mode
            if listen.transport == .tls {
                srtp.secureSignaling = .tls
            } else if mode != .off {
                srtp.secureSignaling = .any
                if srtp.keying.contains(.sdes) {
                    warnings.append("warning: --srtp \(mode) over \(listen.transport): the SRTP keys (SDES) travel in clear SIP; use --listen tls:... to protect them")
                }
            }
        }
    }

    /// Puts the TLS and SRTP settings into an engine configuration.
    func apply(to configuration: inout PJSUA.Configuration) {
        configuration.tls = tls
        configuration.srtp = srtp
    }

    /// Prints the warnings, one line each, on standard error.
    func printWarnings() {
        for warning in warnings { FileHandle.standardError.write(Data("softphone: \(warning)\n".utf8)) }
    }
}
