import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

/// The design document's usage sketch, verbatim: what an app developer pastes first.
/// ``PublicSurfaceTests/theDesignSketchCompilesAsWritten()`` type-checks it as a `main.swift`
/// against the built SwiftPJSUA module (only `import`s and a `deviceToken` go before it, as in
/// the app it is pasted into). Never edit it to fit the API: change the API.
let designSketch = #"""
let phone = PJSUA()
try await phone.start(.init(port: 5060, transport: .udp))
let account = try await phone.addAccount(id: "sip:alice@example.com", registrar: "sip:example.com",
    username: "alice", password: "••••",
    push: .apns(teamID: "ABCDE12345", bundleID: "com.example.offhook", token: deviceToken))
Task {
    for await event in phone.events {
        switch event {
        case let .incomingCall(account, call, sipCallID, from, offeredVideo):
            try? await phone.answer(call)
        case let .callState(call, state, _, lastStatus):
            print("call \(call) → \(state) (\(lastStatus))")
        default:
            break
        }
    }
}
let call = try await phone.makeCall(to: "sip:bob@example.com", from: account)
// CallKit: didActivate -> try? await phone.activateAudioDevice()
//          didDeactivate -> await phone.deactivateAudioDevice()
"""#

@Suite("Public surface")
struct PublicSurfaceTests {
    @Test func errorCodesMatchInCatchClauses() {
        let error: any Error = PJSUAError(.invalidURI, "bad")
        var matched = false
        do { throw error } catch PJSUAError.invalidURI { matched = true } catch {}
        #expect(matched)
        #expect(!(PJSUAError.staleHandle ~= error))
    }

    /// The sketch, pasted into an app's `main.swift` after its imports and a push token, builds.
    @Test func theDesignSketchCompilesAsWritten() async throws {
        let source = "import Foundation\nimport SwiftPJSUA\nlet deviceToken = Data()\n" + designSketch
        let result = try await typecheck(source)
        #expect(result.status == 0, "the design sketch no longer compiles:\n\(result.output)")
    }

    @Test func responseCodesAreTheirNumbersWithNamesFromPJSIP() {
        let named: [(PJSUA.SIPResponseCode, Int)] = [
            (.trying, 100), (.ringing, 180), (.sessionProgress, 183), (.ok, 200), (.accepted, 202),
            (.movedTemporarily, 302), (.forbidden, 403), (.notFound, 404), (.temporarilyUnavailable, 480),
            (.ambiguous, 485), (.busyHere, 486), (.requestTerminated, 487), (.notAcceptableHere, 488),
            (.serviceUnavailable, 503), (.decline, 603), (.unwanted, 607),
        ]
        for (code, number) in named { #expect(code.rawValue == number, "\(code)") }
        let literal: PJSUA.SIPResponseCode = 486
        #expect(literal == .busyHere && literal.description == "486")
        #expect(PJSUA.SIPResponseCode.ringing.isProvisional && !PJSUA.SIPResponseCode.ringing.isSuccess)
        #expect(PJSUA.SIPResponseCode.ok.isSuccess && !PJSUA.SIPResponseCode.ok.isError)
        #expect(PJSUA.SIPResponseCode.movedTemporarily.isError && PJSUA.SIPResponseCode.decline.isError)
        #expect(!PJSUA.SIPResponseCode(rawValue: 0).isError && !PJSUA.SIPResponseCode(rawValue: 700).isError)
    }

    @Test func limitsComeFromTheCHeaders() {
        // scripts/pjproject-config_site.h sets these for the Linux build.
        #expect(PJSUA.maxCallsLimit == 256)
        #expect(PJSUA.maxAccountsLimit == 32)
    }
}

/// Type-checks `source` as the `main.swift` of a client of the SwiftPJSUA module this test binary
/// was built with (its `Modules` directory, and the C modules SwiftPJSUA imports), with the
/// toolchain's `swiftc`; returns the exit status and the diagnostics.
private func typecheck(_ source: String) async throws -> (status: Int32, output: String) {
    let products = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    let modules = products.appendingPathComponent("Modules")
    var tests = URL(fileURLWithPath: #filePath)
    while tests.lastPathComponent != "Tests" { tests.deleteLastPathComponent() }
    let root = tests.deletingLastPathComponent()
    let swiftc = try (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        .map { "\($0)/swiftc" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        ?? ChildProcess.locate("swiftc")
    let work = FileManager.default.temporaryDirectory.appendingPathComponent("swift-pjsua-sketch-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: work) }
    let main = work.appendingPathComponent("main.swift")
    try Data(source.utf8).write(to: main)
    // The C modules: PJSIP's map in Sources/, and the ones SwiftPM generated for C targets.
    var arguments = ["-typecheck", "-swift-version", "6", "-module-cache-path", work.appendingPathComponent("cache").path,
                     "-I", modules.path, "-I", root.appendingPathComponent("Sources/PJSIP").path,
                     "-Xcc", "-I" + root.appendingPathComponent("Sources/CPJSUASupport/include").path]
    for entry in try FileManager.default.contentsOfDirectory(atPath: products.path) where entry.hasSuffix(".build") {
        let map = products.appendingPathComponent(entry).appendingPathComponent("module.modulemap")
        if let text = readText(map.path), !text.contains("-Swift.h\"") {
            arguments += ["-Xcc", "-fmodule-map-file=" + map.path]
        }
    }
    arguments.append(main.path)
    let compiler = try ChildProcess(swiftc, arguments, name: "swiftc-design-sketch")
    let status = try await compiler.waitForExit(timeout: .seconds(120))
    return (status, compiler.output)
}
