import Foundation
import PJSUATestSupport
import Testing

/// Issue 38: an app that imports only SwiftPJSUA links none of the voice-agent bridge. The
/// echo-bot example imports only the engine; the softphone imports SwiftPJSUAStreams too. Both
/// are read with `nm` from the build the tests run on.
@Suite("Streams: an app that imports only the engine links none of the bridge")
struct LinkageTests {
    /// C functions of CPJSUAStreams (the WebSocket link, the tap and the pace) and a Swift type
    /// of SwiftPJSUAStreams (mangled with its module's name).
    static let bridgeSymbols = ["cpjsua_ws_link_open", "cpjsua_media_tap_install", "cpjsua_media_pace_install", "17SwiftPJSUAStreams"]

    /// `nm` of `binary` (a ChildProcess, as every child of the suite: Foundation's `Process`
    /// leaves a weak-reference side table LeakSanitizer reports in the ASan pass).
    static func symbols(of binary: String) async throws -> String {
        let nm = try ChildProcess("nm", [binary], name: "nm-" + (binary.split(separator: "/").last.map(String.init) ?? "binary"))
        let status = try await nm.waitForExit(timeout: .seconds(120))
        #expect(status == 0, "nm \(binary) exited \(status)")
        return nm.output
    }

    @Test func theEchoBotLinksNoneOfTheBridgeAndTheSoftphoneLinksIt() async throws {
        let softphone = try softphone()
        let echoBot = softphone.replacingOccurrences(of: "/softphone", with: "/echo-bot")
        let engineOnly = try await Self.symbols(of: echoBot)
        let streaming = try await Self.symbols(of: softphone)
        #expect(engineOnly.contains("pjsua_call_make_call"), "nm found no pjsua in \(echoBot)")
        for symbol in Self.bridgeSymbols {
            #expect(!engineOnly.contains(symbol), "\(echoBot) links \(symbol)")
            #expect(streaming.contains(symbol), "\(softphone) does not link \(symbol)")
        }
    }
}
