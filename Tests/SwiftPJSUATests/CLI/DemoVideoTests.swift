import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

/// The title pjmedia's SDL renderer gives its windows (sdl_dev.c).
private let sdlWindowTitle = "pjmedia-SDL video"

@Suite("make demo-video: the video demo under Xvfb, checked in a screenshot", .serialized)
struct DemoVideoTests {
    @Test func theVideoDemoShowsTheFarEndsColourBarsInPjsuasWindow() async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let screen = try await Xvfb(width: 640, height: 480)
        defer { screen.stop() }
        // A window smaller than the screen, away from its corner, scaled from the 352x288 picture:
        // the screenshot then shows where it is and that the renderer filled it.
        let (x, y, width, height) = (40, 30, 480, 360)
        let demo = try ChildProcess(try softphone(), ["demo", "--video", "--seconds", "6", "--json",
                                                      "--window-size", "\(width)x\(height)", "--window-position", "\(x),\(y)"],
                                    name: "softphone-demo-video", environment: ["DISPLAY": screen.display, "SDL_VIDEODRIVER": "x11"])
        defer { demo.stop() }
        try await demo.waitForOutput("\"event\":\"videoWindow\"", timeout: .seconds(45))
        let shown = try #require(jsonLines(demo.output).first { $0["event"] as? String == "videoWindow" })
        #expect(shown["shown"] as? Bool == true && shown["display"] as? String == screen.display, "\(shown)")

        // Where X says pjsua's window is, then what is on the screen there.
        let frame = try #require(try await screen.windowFrame(titled: sdlWindowTitle), "no \(sdlWindowTitle) window on \(screen.display)")
        #expect(frame.x == x && frame.y == y && frame.width == width && frame.height == height, "\(frame)")
        // The first pictures after showing may still be on their way: a few screenshots, 0.3 s apart.
        var bars: (matches: Bool, seen: [String]) = (false, [])
        var screenshot: XWDImage?
        for _ in 0..<10 {
            let image = try await screen.screenshot()
            screenshot = image
            bars = ColourBars.match(width: frame.width, height: frame.height) { image.rgb(x: frame.x + $0, y: frame.y + $1) }
            if bars.matches { break }
            try await Task.sleep(for: .milliseconds(300))
        }
        #expect(bars.matches, "\(bars.seen)")
        // The bars are inside the window and nowhere else: the black root window around it.
        let image = try #require(screenshot)
        #expect(image.width == screen.width && image.height == screen.height)
        for (outsideX, outsideY) in [(x - 5, y + height / 2), (x + width + 5, y + height / 2), (x + width / 16, y - 5), (x + width / 16, y + height + 5)] {
            let pixel = try #require(image.rgb(x: outsideX, y: outsideY))
            #expect(Int(pixel.red) + Int(pixel.green) + Int(pixel.blue) < 30, "(\(outsideX), \(outsideY)) is \(pixel)")
        }

        let status = try await demo.waitForExit(timeout: .seconds(40))
        #expect(status == 0, "\(demo.output.suffix(3000))")
        let picture = jsonLines(demo.output).first { $0["event"] as? String == "picture" }
        #expect(picture?["rendered"] as? Bool == true && (picture?["framesReceived"] as? Int ?? 0) > 20, "\(String(describing: picture))")
    }

    @Test(arguments: [
        (["demo", "--window-size", "480x360"], "--window-size needs --video"),
        (["demo", "--video", "--window-size", "480"], "--window-size"),
        (["demo", "--video", "--window-position", "-4,2"], "--window-position"),
        (["demo", "--video", "--video-codecs", "speex"], "--video-codecs"),
    ])
    func badVideoDemoOptionsAreOneLineUsageErrors(arguments: [String], message: String) async throws {
        let result = try await runSoftphone(arguments, timeout: .seconds(20))
        #expect(result.status == 2, "\(result.output)")
        let lines = result.output.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.contains(message) == true, "\(result.output)")
    }
}

@Suite("Video windows: pjsua's window ids are checked before pjsua sees them")
struct VideoWindowInputTests {
    @Test func windowOperationsRefuseIdsPjsuaWouldAssertOn() async throws {
        try await withEngine { phone, _, _ in
            for window in [PJSUA.VideoWindow(rawValue: -1), PJSUA.VideoWindow(rawValue: 10_000)] {
                await #expect(throws: PJSUAError.self) { try await phone.moveVideoWindow(window, x: 0, y: 0) }
                await #expect(throws: PJSUAError.self) { try await phone.resizeVideoWindow(window, to: PJSUA.VideoSize(width: 10, height: 10)) }
                await #expect(throws: PJSUAError.self) { try await phone.setVideoWindowShown(window, to: true) }
                await #expect(throws: PJSUAError.self) { try await phone.videoWindowInfo(window) }
            }
            // A window pjsua has not opened: pjsua's own refusal, no crash.
            await #expect(throws: PJSUAError.self) { try await phone.moveVideoWindow(PJSUA.VideoWindow(rawValue: 3), x: 0, y: 0) }
            await #expect(throws: PJSUAError.self) { try await phone.resizeVideoWindow(PJSUA.VideoWindow(rawValue: 0), to: PJSUA.VideoSize(width: 0, height: 10)) }
            await #expect(throws: PJSUAError.self) { try await phone.moveVideoWindow(PJSUA.VideoWindow(rawValue: 0), x: 99_999, y: 0) }
        }
    }
}
