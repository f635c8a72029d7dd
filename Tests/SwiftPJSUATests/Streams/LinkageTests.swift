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

    static func symbols(of binary: String) throws -> String {
        let nm = Process()
        nm.executableURL = URL(fileURLWithPath: "/usr/bin/nm")
        nm.arguments = [binary]
        let pipe = Pipe()
        nm.standardOutput = pipe
        nm.standardError = FileHandle.nullDevice
        try nm.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        nm.waitUntilExit()
        #expect(nm.terminationStatus == 0, "nm \(binary) exited \(nm.terminationStatus)")
        return String(decoding: output, as: UTF8.self)
    }

    @Test func theEchoBotLinksNoneOfTheBridgeAndTheSoftphoneLinksIt() throws {
        let softphone = try softphone()
        let echoBot = softphone.replacingOccurrences(of: "/softphone", with: "/echo-bot")
        let engineOnly = try Self.symbols(of: echoBot)
        let streaming = try Self.symbols(of: softphone)
        #expect(engineOnly.contains("pjsua_call_make_call"), "nm found no pjsua in \(echoBot)")
        for symbol in Self.bridgeSymbols {
            #expect(!engineOnly.contains(symbol), "\(echoBot) links \(symbol)")
            #expect(streaming.contains(symbol), "\(softphone) does not link \(symbol)")
        }
    }
}
