import Foundation
import SwiftPJSUA

/// `softphone demo --video`: a real loopback video call whose incoming picture pjsua renders in
/// its own window (SDL). A second `softphone answer --video` process sends pjmedia's colour-bar
/// test pattern; this process receives it (receive-only), shows pjsua's window for the call's
/// incoming video for the set time, and checks that pictures were decoded.
enum VideoDemo {
    static let usage = """
    usage: softphone demo --video [--seconds N] [--video-codecs VP8|H264] [--window-size WxH] [--window-position X,Y] [--json]
      The same call with video: the second process sends the colour-bar test pattern (352x288), and
      pjsua shows what arrives here in its own window (SDL: on $DISPLAY when set, off-screen otherwise)
      for N seconds (default 5). --window-size scales the window (default: the picture's size) and
      --window-position moves it (from the screen's top-left; default: where the window system puts it).
      Prints a "videoWindow" line once the window is shown, video statistics, and the verdict.
      Exits 0 only if the call connected and pictures were decoded and shown.
    """

    static let valued: Set<String> = ["video-codecs", "window-size", "window-position"]
    /// The colour-bar generator's own size: what the far end sends, unscaled.
    static let pictureSize = "352x288"

    /// The audio demo takes none of the video options.
    static func refuseVideoOptions(_ arguments: Arguments) throws(UsageError) {
        if let option = valued.sorted().first(where: { arguments.string($0) != nil }) {
            throw UsageError("--\(option) needs --video")
        }
    }

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let output = Output(json: arguments.has("json"))
        let seconds = try arguments.seconds("seconds", in: 1...600, default: 5) ?? 5
        let codec = arguments.string("video-codecs")
        if let codec, !["VP8", "H264"].contains(codec.uppercased()) {
            throw UsageError("--video-codecs for the demo is VP8 or H264, got '\(codec)'")
        }
        let windowSize = try arguments.string("window-size").map { text throws(UsageError) in try parseSize(text) }
        let windowPosition = try arguments.string("window-position").map { text throws(UsageError) in try parsePosition(text) }
        guard PJSUA.supportsVideo else {
            throw PJSUAError(.unsupported, "demo --video: this PJSIP build has no video (PJMEDIA_HAS_VIDEO is 0)")
        }
        let display = ProcessInfo.processInfo.environment["DISPLAY"].flatMap { $0.isEmpty ? nil : $0 }
        output.emit("demo", ["step": "start-callee", "video": true],
                    human: "demo: starting the callee (softphone answer --video, sending colour bars) as a second process")
        // The callee has no window to show (it only sends): SDL's headless driver keeps it off the display.
        var calleeArguments = ["answer", "--listen", "udp:127.0.0.1:0", "--exit-after", "1", "--json",
                               "--video", "--video-device", "colorbar", "--video-size", pictureSize]
        if let codec { calleeArguments += ["--video-codecs", codec.uppercased()] }
        let callee = try Callee(arguments: calleeArguments, environment: ["SDL_VIDEODRIVER": "dummy"])
        defer { callee.stop() }
        guard let calleeURI = await callee.listeningURI(within: 60) else {
            output.emit("failed", ["reason": "the callee did not start"], human: "demo: the callee did not start:\n\(callee.transcript)")
            return 1
        }
        output.emit("demo", ["step": "call", "callee": calleeURI, "video": true], human: "demo: calling \(calleeURI) with video")

        let verdict = try await withPhone(ListenAddress.loopback.configuration(), output: output) { phone, _, watcher in
            if let codec { try await phone.useVideoCodecs([codec.uppercased()]) }
            let call = try await phone.makeCall(to: PJSUA.SIPURI(calleeURI.replacingOccurrences(of: "sip:", with: "sip:demo@")), video: .receiveOnly)
            guard let outcome = await watcher.state(of: call, in: [.confirmed, .disconnected], within: 15, signals: .shared),
                  outcome.state == .confirmed else {
                return fail(output, "the call did not connect")
            }
            let shown = try await showWindow(of: call, phone: phone, size: windowSize, position: windowPosition, display: display, output: output)
            guard shown else { return fail(output, "no picture arrived within 15 s") }
            output.emit("demo", ["step": "render", "seconds": seconds],
                        human: "demo: rendering the far end's colour bars for \(seconds) s")
            let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int(seconds * 1000)))
            while ContinuousClock.now < deadline, Signals.shared.pending == nil {
                try? await Task.sleep(for: .milliseconds(50))
            }
            let statistics = try? await phone.videoStatistics(of: call)
            if let quality = try? await phone.quality(of: call) { output.emit(quality: quality, of: call) }
            try await phone.hangUp(call)
            _ = await watcher.state(of: call, in: [.disconnected], within: 5)
            let frames = statistics?.framesReceived ?? 0
            let rate = statistics.map { ($0.receivedFrameRate * 10).rounded() / 10 } ?? 0
            output.emit("picture", ["framesReceived": frames, "fps": rate, "size": statistics?.receiveSize.description ?? "",
                                    "codec": statistics?.codec ?? "", "rendered": frames > 0],
                        human: "demo: \(frames) pictures decoded and rendered (\(rate) fps, \(statistics?.receiveSize.description ?? "?")): \(frames > 0 ? "VIDEO SHOWN" : "NO VIDEO")")
            return frames > 0 ? 0 : 1
        }
        if let signal = Signals.shared.pending { return Signals.exitStatus(for: signal) }
        guard verdict == 0 else { return verdict }
        guard await callee.waitForExit(within: 10) else {
            return fail(output, "the callee did not finish")
        }
        return 0
    }

    /// Waits for the first decoded picture, then sizes, places and shows pjsua's window for it;
    /// false when no picture arrived.
    private static func showWindow(of call: PJSUA.Call, phone: PJSUA, size: PJSUA.VideoSize?, position: (x: Int, y: Int)?,
                                   display: String?, output: Output) async throws -> Bool {
        // pjsua sizes the window from the decoder's first picture (before it, only the codec's
        // bound is known), so the window is touched only once a picture has been decoded.
        let deadline = ContinuousClock.now.advanced(by: .seconds(15))
        var window: PJSUA.VideoWindowInfo?
        while ContinuousClock.now < deadline, Signals.shared.pending == nil {
            if let statistics = try? await phone.videoStatistics(of: call), statistics.framesReceived > 0,
               let found = try await phone.videoWindow(of: call) {
                window = found
                break
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        guard let window else { return false }
        // pjsua opens the window at the codec's bound (656x656 for H.264 level 3.1) and keeps
        // that size when the first picture turns out smaller: without a size asked for, the
        // window takes the picture's.
        let received = try? await phone.videoStatistics(of: call).receiveSize
        if let wanted = size ?? received, wanted.width > 0, wanted.height > 0 {
            try await phone.resizeVideoWindow(window.window, to: wanted)
        }
        if let position { try await phone.moveVideoWindow(window.window, x: position.x, y: position.y) }
        try await phone.setVideoWindowShown(window.window, to: true)
        let info = try await phone.videoWindowInfo(window.window)
        output.emit("videoWindow", ["window": info.window.rawValue, "renderer": info.renderer.rawValue, "shown": info.isShown,
                                    "width": info.size.width, "height": info.size.height,
                                    "x": position?.x ?? -1, "y": position?.y ?? -1, "display": display ?? ""],
                    human: "demo: \(info.window) \(info.isShown ? "shown" : "hidden"), \(info.size)"
                        + (display.map { " on display \($0)" } ?? " off-screen (no DISPLAY: SDL's headless driver)"))
        return true
    }

    private static func fail(_ output: Output, _ reason: String) -> Int32 {
        output.emit("failed", ["reason": reason], human: "demo: FAILED: \(reason)")
        return 1
    }

    private static func parseSize(_ text: String) throws(UsageError) -> PJSUA.VideoSize {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 2, let width = parts[0], let height = parts[1], (16...8192).contains(width), (16...8192).contains(height) else {
            throw UsageError("--window-size must be WIDTHxHEIGHT with sides in 16...8192, e.g. 704x576, got '\(text)'")
        }
        return PJSUA.VideoSize(width: width, height: height)
    }

    private static func parsePosition(_ text: String) throws(UsageError) -> (x: Int, y: Int) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 2, let x = parts[0], let y = parts[1], (0...16_384).contains(x), (0...16_384).contains(y) else {
            throw UsageError("--window-position must be X,Y in 0...16384, e.g. 40,30, got '\(text)'")
        }
        return (x, y)
    }
}
