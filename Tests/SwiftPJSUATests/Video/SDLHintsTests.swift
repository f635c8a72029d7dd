import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SDL, which pjsua opens at start to list video devices (Linux), behaves like a library's
/// library (CPJSUASupport/SDLHints.c): it takes no signal handlers from the app, and in a process
/// without a display it prints nothing (KL-8).
@Suite("SDL inside the engine")
struct SDLHintsTests {
    /// Left alone, SDL_Init installs SIGINT/SIGTERM handlers wherever the app kept the defaults,
    /// turning `kill` into an SDL event nobody reads: a bot built on the engine would ignore it.
    @Test func startingTheEngineLeavesTheProcessSignalHandlersAlone() async throws {
        let before = (signalHandler(SIGTERM), signalHandler(SIGINT))
        try await withEngine { _, _, _ in
            #expect(signalHandler(SIGTERM) == before.0, "SIGTERM's handler changed at engine start")
            #expect(signalHandler(SIGINT) == before.1, "SIGINT's handler changed at engine start")
        }
        // The test runner keeps the default dispositions; had SDL ever installed its handlers in
        // this process (an earlier engine), they would still be there.
        #expect(signalHandler(SIGTERM) == 0, "SIGTERM is handled by something in this process")
        #expect(signalHandler(SIGINT) == 0, "SIGINT is handled by something in this process")
    }

    /// The pjsua app as a test peer ends on the SIGTERM that stops every peer (it needed SIGKILL
    /// while SDL held the signal).
    @Test func thePjsuaAppPeerEndsOnSIGTERM() async throws {
        let app = try await PjsuaApp(name: "pjsua-app-sigterm", arguments: ["--auto-answer=200"])
        try await app.waitForLog("transport started", timeout: .seconds(15))
        kill(app.process.pid, SIGTERM)
        let status = try await app.process.waitForExit(timeout: .seconds(5))
        #expect(status == 128 + SIGTERM, "\(app.process.output.suffix(2000))")
    }

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

/// The address of `signal`'s current handler (0: the default disposition, 1: ignored).
private func signalHandler(_ signal: Int32) -> UInt {
    var current = sigaction()
    sigaction(signal, nil, &current)
    return unsafeBitCast(current.__sigaction_handler.sa_handler, to: UInt.self)
}
