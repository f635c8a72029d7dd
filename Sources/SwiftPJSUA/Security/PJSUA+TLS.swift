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
        if let timeout = tls.handshakeTimeout {
            try Validation.duration(timeout, in: .milliseconds(1) ... .seconds(600), what: "TLS handshakeTimeout")
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
        if let timeout = tls.handshakeTimeout {
            let milliseconds = timeout.wholeMilliseconds
            setting.timeout.sec = milliseconds / 1000
            setting.timeout.msec = milliseconds % 1000
        }
    }

    /// The local account of a TLS transport: what `pjsua_acc_add_local` makes (default settings,
    /// one step lower priority, bound to the transport), with two differences.
    ///
    /// - Its id is `sips:`: pjsua puts a `sip:` Contact in the requests and answers of a `sip:`
    ///   account, and a peer refuses a `sips:` call with one ("480, Warning: 381 SIPS
    ///   Required", RFC 5630 section 4.2.2; measured against a second engine).
    /// - `contact_use_src_port` is off: with it, pjsua works out each call's Via by opening a
    ///   connection to the account id's host (`dlg_set_via`, `pjsua_acc_get_uac_addr`), which
    ///   for the local account is our own listener; without a certificate its handshake fails
    ///   (measured: one refused TLS connection per call). The listener's address is the right
    ///   Contact for the local account. `pjsua_acc_modify` does not apply that field, hence
    ///   `pjsua_acc_add` here rather than `pjsua_acc_add_local` and a modification.
    func addLocalTLSAccount(on transport: Transport) throws(PJSUAError) -> Account {
        let token = HandleToken.next()
        let settings = try currentRun().settings
        let slot: pjsua_acc_id = try withCStringArena { arena throws(PJSUAError) in
            var config = pjsua_acc_config()
            pjsua_acc_config_default(&config)
            config.priority -= 1
            config.id = arena.pj("<\(transport.uri())>")
            config.transport_id = transport.id
            config.contact_use_src_port = 0
            config.user_data = HandleToken.pointer(token)
            Self.setMediaBinding(&config, settings, arena)
            var slot: pjsua_acc_id = -1
            try Self.requireAccountRoom("cannot add the local account of \(transport)")
            try check(pjsua_acc_add(&config, 1, &slot), "cannot add the local account of \(transport)")
            return slot
        }
        return Account(slot: slot, token: token)
    }
}
