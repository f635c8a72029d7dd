import PJSIP

extension PJSUA {
    /// Sends a provisional response without SDP (``SIPResponseCode/ringing`` by default) and leaves the call's
    /// media settings open, so that the final answer still decides audio-only
    /// (``answer(_:code:headers:)``) or video (``answer(_:code:headers:video:)``).
    ///
    /// pjsua fixes a call's settings at its first `pjsua_call_answer2()` that carries them, and
    /// ignores different ones later (it logs "The call setting changes is ignored"): a 183
    /// (early media) sent audio-only makes the call audio-only for good. ``answer(_:code:headers:)``
    /// with 180...182 does the same as this; `ring` says so in its name and refuses other codes.
    ///
    /// Drives `pjsua_call_answer2()` with no call settings.
    /// - Throws: ``PJSUAError/Code/invalidArgument`` for a code outside 180...182 (183 carries
    ///   early-media SDP, which would fix the settings; 100 is pjsua's own).
    public func ring(_ call: Call, code: SIPResponseCode = .ringing, headers: [SIPHeader] = []) throws {
        _ = try resolve(call)
        try code.require(180...182, for: "ringing", "180, 181 or 182 (a provisional response without SDP)")
        // respond sends 180...182 without call settings: these go nowhere.
        try respond(to: call, code: code, headers: headers, setting: Self.callSetting())
    }
}
