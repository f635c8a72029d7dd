import PJSIP

extension PJSUA {
    /// The largest window side accepted, in pixels: beyond any screen, small enough for the
    /// renderer's `int` arithmetic.
    static let maxVideoWindowSide = 16_384

    /// A window's pjsua id, once checked to be one pjsua has open: pjsua asserts (and aborts the
    /// process) on an id outside its table, and on an id inside it whose window is not open, and
    /// ``VideoWindow`` can be made from any number.
    ///
    /// PJSIP defect (2.17, pjsua_vid.c): `pjsua_vid_win_set_show()`, `_set_pos()` and `_set_size()`
    /// call `pjmedia_vid_port_get_stream(w->vp_rend ? w->vp_rend : w->vp_cap)` without checking
    /// that either is set; for a closed window that is `PJ_ASSERT_RETURN(vp, NULL)` in vid_port.c,
    /// which aborts in a build with assertions (ours) and returns `PJ_EINVAL` only without them.
    /// `pjsua_vid_win_get_info()` checks `vp_rend` first. Reproduce: start pjsua with video, no
    /// call, and call `pjsua_vid_win_set_show(0, PJ_TRUE)`. We ask `pjsua_vid_enum_wins()` first.
    /// That check cannot span the call: a window whose call ends meanwhile (a remote BYE on
    /// pjsua's worker) is being freed with PJSUA_LOCK let go, and 2.17's window functions used
    /// its ports as they were destroyed (docs/KNOWN-LIMITS.md KL-60); our PJSIP answers
    /// `PJ_ENOTFOUND` for such a window, an error here. The iOS binary is not patched.
    static func windowID(_ window: VideoWindow) throws(PJSUAError) -> pjsua_vid_win_id {
        guard (0..<Int(PJSUA_MAX_VID_WINS)).contains(window.rawValue) else {
            throw PJSUAError(.invalidArgument, "\(window) does not exist (pjsua has windows 0..<\(PJSUA_MAX_VID_WINS))")
        }
        var open = [pjsua_vid_win_id](repeating: PJSUA_INVALID_ID.rawValue, count: Int(PJSUA_MAX_VID_WINS))
        var count = UInt32(open.count)
        try check(pjsua_vid_enum_wins(&open, &count), "pjsua_vid_enum_wins")
        guard open.prefix(Int(count)).contains(pjsua_vid_win_id(window.rawValue)) else {
            throw PJSUAError(.invalidArgument, "\(window) is not open (pjsua opens one per incoming video stream)")
        }
        return pjsua_vid_win_id(window.rawValue)
    }

    /// Moves a video window to a point on the screen (its top-left corner, in pixels from the
    /// screen's top-left). Not valid for a native window the app owns (an iOS view): move that
    /// with the platform's own API.
    ///
    /// Drives `pjsua_vid_win_set_pos()`.
    /// - Throws: ``PJSUAError/Code/invalidArgument`` for a coordinate beyond ±16384.
    public func moveVideoWindow(_ window: VideoWindow, x: Int, y: Int) throws {
        try requireRunning()
        try Self.requireVideo()
        let range = -Self.maxVideoWindowSide...Self.maxVideoWindowSide
        guard range.contains(x), range.contains(y) else {
            throw PJSUAError(.invalidArgument, "video window position (\(x), \(y)) is out of range \(range)")
        }
        var position = pjmedia_coord(x: Int32(x), y: Int32(y))
        try check(pjsua_vid_win_set_pos(try Self.windowID(window), &position), "pjsua_vid_win_set_pos(\(window))")
    }

    /// Resizes a video window; the renderer scales the picture to fill it. Not valid for a
    /// native window the app owns.
    ///
    /// Drives `pjsua_vid_win_set_size()`.
    /// - Throws: ``PJSUAError/Code/invalidArgument`` for a side outside 1...16384.
    public func resizeVideoWindow(_ window: VideoWindow, to size: VideoSize) throws {
        try requireRunning()
        try Self.requireVideo()
        let range = 1...Self.maxVideoWindowSide
        guard range.contains(size.width), range.contains(size.height) else {
            throw PJSUAError(.invalidArgument, "video window size \(size) is out of range \(range) per side")
        }
        var rect = pjmedia_rect_size(w: UInt32(size.width), h: UInt32(size.height))
        try check(pjsua_vid_win_set_size(try Self.windowID(window), &rect), "pjsua_vid_win_set_size(\(window))")
    }
}
