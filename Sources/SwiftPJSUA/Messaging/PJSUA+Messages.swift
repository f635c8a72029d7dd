import Foundation
import PJSIP

extension PJSUA {
    /// Sends an instant message (SIP MESSAGE, RFC 3428) outside any call.
    ///
    /// Drives `pjsua_im_send()`. The far end's answer arrives as ``Event/messageStatus(_:)``
    /// carrying the returned identifier: a 2xx when it was accepted, its error status when it was
    /// refused (e.g. 488), 408 when nobody answered. A 401/407 challenge is answered with the
    /// account's credentials before the status is reported.
    /// - Parameters:
    ///   - text: the body, sent as UTF-8.
    ///   - uri: the recipient, e.g. `sip:bob@example.com`.
    ///   - account: the account to send from (its From, route set and credentials); nil uses
    ///     ``localAccount``.
    ///   - contentType: the body's MIME type, `type/subtype` with optional `;parameters`.
    ///   - headers: extra headers for the request.
    @discardableResult
    public func sendMessage(_ text: String, to uri: SIPURI, from account: Account? = nil, contentType: String = "text/plain",
                            headers: [SIPHeader] = []) throws -> MessageID {
        try sendMessage(Data(text.utf8), to: uri, from: account, contentType: contentType, headers: headers)
    }

    /// Sends an instant message with a body of any content (e.g. `application/vnd.3gpp.sms`)
    /// outside any call. Otherwise as ``sendMessage(_:to:from:contentType:headers:)-(String,_,_,_,_)``.
    ///
    /// Drives `pjsua_im_send()`.
    @discardableResult
    public func sendMessage(_ body: Data, to uri: SIPURI, from account: Account? = nil, contentType: String,
                            headers: [SIPHeader] = []) throws -> MessageID {
        try requireRunning()
        try Validation.sipURI(uri, what: "message destination URI")
        try Self.validateMessage(body, contentType: contentType)
        let accountSlot = try resolve(account ?? defaultAccount)
        let id = MessageID(rawValue: HandleToken.next())
        try withMessageData(headers) { data throws(PJSUAError) in
            try withCStringArena { arena throws(PJSUAError) in
                var destination = arena.pj(uri.text)
                var type = arena.pj(contentType)
                try Self.withContent(body) { content throws(PJSUAError) in
                    try check(pjsua_im_send(accountSlot, &destination, &type, content, data, HandleToken.pointer(id.rawValue)),
                              "cannot send a message to \(Validation.quoted(uri.text))")
                }
            }
        }
        return id
    }

    /// Sends an instant message inside a call's dialog (to the other party, along the call's
    /// route set).
    ///
    /// Drives `pjsua_call_send_im()`. The outcome arrives as ``Event/messageStatus(_:)``.
    @discardableResult
    public func sendMessage(_ text: String, on call: Call, contentType: String = "text/plain", headers: [SIPHeader] = []) throws -> MessageID {
        try sendMessage(Data(text.utf8), on: call, contentType: contentType, headers: headers)
    }

    /// Sends an instant message with a body of any content inside a call's dialog.
    ///
    /// Drives `pjsua_call_send_im()`.
    @discardableResult
    public func sendMessage(_ body: Data, on call: Call, contentType: String, headers: [SIPHeader] = []) throws -> MessageID {
        let slot = try resolve(call)
        try Self.validateMessage(body, contentType: contentType)
        let id = MessageID(rawValue: HandleToken.next())
        try withMessageData(headers) { data throws(PJSUAError) in
            try withCStringArena { arena throws(PJSUAError) in
                var type = arena.pj(contentType)
                try Self.withContent(body) { content throws(PJSUAError) in
                    try check(pjsua_call_send_im(slot, &type, content, data, HandleToken.pointer(id.rawValue)),
                              "cannot send a message on \(call)")
                }
            }
        }
        return id
    }

    /// The largest body accepted: a MESSAGE must fit one request (RFC 3428 advises 1300 bytes
    /// over UDP; PJSIP moves a larger request to TCP when it can, and refuses one past
    /// `PJSIP_MAX_PKT_LEN`).
    public static let maxMessageBodyLength = 60_000

    private static func validateMessage(_ body: Data, contentType: String) throws(PJSUAError) {
        guard body.count <= maxMessageBodyLength else {
            throw PJSUAError(.invalidArgument, "message body is \(body.count) bytes, more than \(maxMessageBodyLength)")
        }
        try Validation.contentType(contentType)
    }

    /// Runs `body` with a `pj_str_t` over the message bytes (pjsua copies them).
    private static func withContent<T>(_ bytes: Data, _ body: (UnsafePointer<pj_str_t>) throws(PJSUAError) -> T) throws(PJSUAError) -> T {
        var copy = [CChar](repeating: 0, count: bytes.count + 1)
        copy.withUnsafeMutableBytes { raw in _ = bytes.copyBytes(to: raw) }
        return try copy.withUnsafeMutableBufferPointer { (buffer) throws(PJSUAError) -> T in
            var content = pj_str_t(ptr: buffer.baseAddress, slen: pj_ssize_t(bytes.count))
            return try body(&content)
        }
    }
}
