import PJSIP

extension PJSUA {
    /// Sends a provisional response without SDP (180 Ringing by default) and leaves the call's
    /// media settings open, so that the final answer still decides audio-only
    /// (``answer(_:code:headers:)``) or video (``answer(_:code:headers:video:)``).
    ///
    /// pjsua fixes a call's settings at its first `pjsua_call_answer2()` that carries them, and
    /// ignores different ones later (it logs "The call setting changes is ignored"): a 180 sent
    /// with ``answer(_:code:headers:)`` makes the call audio-only for good. A call UI that rings
    /// before the user picks audio or video rings with this instead.
    ///
    /// Drives `pjsua_call_answer2()` with no call settings.
    /// - Throws: ``PJSUAError/Code/invalidArgument`` for a code outside 180...182 (183 carries
    ///   early-media SDP, which would fix the settings; 100 is pjsua's own).
    public func ring(_ call: Call, code: Int = 180, headers: [SIPHeader] = []) throws {
        let slot = try resolve(call)
        guard (180...182).contains(code) else {
            throw PJSUAError(.invalidArgument, "ringing code \(code) is not 180, 181 or 182 (a provisional response without SDP)")
        }
        try withMessageData(headers) { data throws(PJSUAError) in
            try check(pjsua_call_answer2(slot, nil, UInt32(code), nil, data), "cannot send \(code) for \(call)")
        }
    }
}
