import CPJSUASupport

extension PJSUA {
    /// How many messages the engine's input screen has answered, dropped or trimmed in this
    /// process: requests whose CSeq method is not their own (answered 400), SDP with more
    /// `a=crypto` lines in a media section than SDES holds (answered 488), responses to ACK, and
    /// Service-Route sets longer than pjsua keeps. Each is a message that aborts or corrupts a
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
