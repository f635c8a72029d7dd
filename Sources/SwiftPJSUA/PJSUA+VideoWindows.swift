import PJSIP

extension PJSUA {
    /// The largest window side accepted, in pixels: beyond any screen, small enough for the
    /// renderer's `int` arithmetic.
    static let maxVideoWindowSide = 16_384

    /// A window's pjsua id, once checked against pjsua's table: pjsua asserts (and aborts the
    /// process) on an id outside it, and ``VideoWindow`` can be made from any number.
    static func windowID(_ window: VideoWindow) throws(PJSUAError) -> pjsua_vid_win_id {
        guard (0..<Int(PJSUA_MAX_VID_WINS)).contains(window.rawValue) else {
            throw PJSUAError(.invalidArgument, "\(window) does not exist (pjsua has windows 0..<\(PJSUA_MAX_VID_WINS))")
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
