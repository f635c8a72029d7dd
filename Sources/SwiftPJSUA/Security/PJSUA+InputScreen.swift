import CPJSUASupport

extension PJSUA {
    /// How many messages the engine's input screen has answered, dropped or trimmed in this
    /// process: requests whose CSeq method is not their own (answered 400), SDP with more
    /// `a=crypto` lines in a media section than SDES holds (answered 488), responses to ACK,
    /// Service-Route sets longer than pjsua keeps, and the fuzzer's shapes (KL-53): SDP with a
    /// port-0 line without `c=`, an address too long or H.264 parameter sets too large (answered
    /// 488), a 2xx to INVITE with a target that is not a SIP URI (taken as 502: the call fails),
    /// a PIDF tuple without `id` or `<status>` (answered 400). Each is a message that aborts or corrupts a
    /// PJSIP without this project's patches, such as the iOS binary (docs/SECURITY.md); a count
    /// above zero means a peer sent one.
    public nonisolated var screenedMessageCount: Int {
        Int(cpjsua_input_screen_count())
    }

    /// Registers the input screen (InputScreen.c) ahead of PJSIP's transaction layer, once per
    /// pjsua instance: every engine has it, whatever its PJSIP.
    func installInputScreen() throws(PJSUAError) {
        try check(cpjsua_input_screen_install(), "cannot install the input screen")
    }
}
