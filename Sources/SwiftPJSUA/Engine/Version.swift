import PJSIP

extension PJSUA {
    /// This package's version (semantic versioning; 0.x while the API may still change).
    public static let version = "0.1.0"

    /// The version of the pjproject library the engine was compiled against, e.g. "2.17.0",
    /// read from pjlib's version macros (`PJ_VERSION_NUM_MAJOR`, `_MINOR`, `_REV`) at compile
    /// time: no PJSIP call is made, so it can be read before any engine starts.
    public static let pjsipVersion = "\(PJ_VERSION_NUM_MAJOR).\(PJ_VERSION_NUM_MINOR).\(PJ_VERSION_NUM_REV)"
}
