import Foundation
import PJSUATestSupport
import Testing

/// Processes without a display: SDL, which pjsua opens at start to list video devices, stays
/// quiet (KL-8). The engine asks SDL for its headless driver; before it did, SDL's Wayland probe
/// printed "XDG_RUNTIME_DIR is invalid or not set" once per engine start.
@Suite("Video without a display")
struct HeadlessVideoTests {
    @Test func anEngineStartedWithoutADisplayPrintsNothingFromSDL() async throws {
        // `softphone demo` starts two engines (itself and its callee) and makes one call.
        let demo = try ChildProcess(try softphone(), ["demo", "--seconds", "1"], name: "softphone-demo-headless",
                                    unsetting: ["DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER", "XDG_RUNTIME_DIR"])
        let status = try await demo.waitForExit(timeout: .seconds(60))
        #expect(status == 0, "\(demo.output)")
        #expect(!demo.output.contains("XDG_RUNTIME_DIR"), "\(demo.output)")
        #expect(demo.output.contains("demo"), "\(demo.output)")
    }
}
