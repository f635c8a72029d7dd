import Foundation
import PJSIP

extension PJSUA {
    /// Checks a TLS configuration before PJSIP sees it, so that a missing file is named.
    static func validate(_ tls: TLSConfiguration) throws(PJSUAError) {
        let files: [(String?, String)] = [(tls.caFile, "CA file"), (tls.certificateFile, "certificate file"),
                                          (tls.privateKeyFile, "private key file")]
        for case let (path?, what) in files {
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw PJSUAError(.file, "TLS \(what) \(Validation.quoted(path)) is not a readable file")
            }
        }
        if let directory = tls.caDirectory {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw PJSUAError(.file, "TLS CA directory \(Validation.quoted(directory)) is not a directory")
            }
        }
        guard (tls.certificateFile == nil) == (tls.privateKeyFile == nil) else {
            throw PJSUAError(.invalidArgument, "a TLS certificate file needs its private key file, and a key its certificate")
        }
        if let password = tls.privateKeyPassword {
            // The password itself is never part of a message.
            guard password.utf8.count <= 1024, !password.utf8.contains(0) else {
                throw PJSUAError(.invalidArgument, "the TLS private key password must be at most 1024 bytes with no NUL")
            }
        }
        guard (0...600_000).contains(tls.handshakeTimeoutMilliseconds) else {
            throw PJSUAError(.invalidArgument, "TLS handshakeTimeoutMilliseconds \(tls.handshakeTimeoutMilliseconds) is out of range 0...600000")
        }
    }

    /// Fills `pjsip_tls_setting` (already defaulted by `pjsua_transport_config_default`).
    ///
    /// The strings live in `arena`, which outlives `pjsua_transport_create`: PJSIP copies the
    /// setting into the listener (`pjsip_tls_setting_copy`).
    static func apply(_ tls: TLSConfiguration, to setting: inout pjsip_tls_setting, _ arena: CStringArena) {
        if let caFile = tls.caFile { setting.ca_list_file = arena.pj(caFile) }
        if let caDirectory = tls.caDirectory { setting.ca_list_path = arena.pj(caDirectory) }
        if let certificate = tls.certificateFile { setting.cert_file = arena.pj(certificate) }
        if let key = tls.privateKeyFile { setting.privkey_file = arena.pj(key) }
        if let password = tls.privateKeyPassword { setting.password = arena.pj(password) }
        setting.verify_server = tls.verifyServer ? 1 : 0
        setting.verify_client = tls.verifyClient ? 1 : 0
        setting.require_client_cert = tls.verifyClient ? 1 : 0
        if tls.handshakeTimeoutMilliseconds > 0 {
            setting.timeout.sec = tls.handshakeTimeoutMilliseconds / 1000
            setting.timeout.msec = tls.handshakeTimeoutMilliseconds % 1000
        }
    }
}
