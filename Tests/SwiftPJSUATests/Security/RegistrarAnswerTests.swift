import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

/// What a registrar's answer can carry that PJSIP 2.17 could not hold (docs/SECURITY.md, SEC-1):
/// the account registers, the engine stays up, and the route set it was handed is refused whole.
@Suite("Security: a registrar's answer")
struct RegistrarAnswerTests {
    /// A 200 to REGISTER with `count` Service-Route headers of one URI each (RFC 3608), echoing the
    /// REGISTER's Contact with an expiry.
    static func okWithServiceRoutes(_ count: Int, to register: RawSIPMessage, from registrar: RawSIPPeer) -> String {
        var response = registrar.response(to: register, 200, reason: "OK", toTag: registrar.unique("reg"))
        let contact = register.header("contact") ?? "<\(registrar.uri)>"
        let routes = (0..<count).map { "Service-Route: <sip:proxy\($0).example.invalid;lr>" }
        // The peer's Contact line is its own: a registrar echoes the bindings instead.
        response = response.replacingOccurrences(of: "Contact: <\(registrar.uri)>",
                                                 with: (["Contact: \(contact);expires=60"] + routes).joined(separator: "\r\n"))
        return response
    }

    /// The port the REGISTER came from, read from its top Via's sent-by.
    static func viaPort(_ message: RawSIPMessage) -> Int? {
        guard let via = message.header("via"), let sentBy = via.split(separator: " ").dropFirst().first else { return nil }
        return sentBy.split(separator: ";").first?.split(separator: ":").last.flatMap { Int($0) }
    }

    /// 40 Service-Route headers overflowed pjsua's array of PJSUA_ACC_MAX_PROXIES (8) URIs on the
    /// stack: `softphone register` died of SIGSEGV (AddressSanitizer: stack-buffer-overflow in
    /// update_service_route). Patched, the route set is refused with an error in the log, the
    /// account is registered, and it unregisters and exits 0.
    @Test(arguments: [9, 40])
    func aRegistrarAnsweringWithMoreServiceRoutesThanPJSUAKeepsNeitherCrashesNorStopsTheRegistration(_ count: Int) async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let registrar = try RawSIPPeer(target: 0)
        let child = try ChildProcess(try softphone(), [
            "register", "--account", "sip:alice@127.0.0.1", "--registrar", "sip:127.0.0.1:\(registrar.port)",
            "--timeout", "20", "--json",
        ], name: "softphone-service-route-\(count)")
        defer { child.stop() }
        let register = try #require(try await registrar.request("REGISTER", timeout: ChildProcess.startTimeout),
                                    "no REGISTER: \(child.output)")
        let port = try #require(Self.viaPort(register), "\(register.text)")
        registrar.send(Self.okWithServiceRoutes(count, to: register, from: registrar), toPort: port)
        // softphone register prints the outcome, then unregisters: a REGISTER with expires 0.
        let unregister = try await registrar.first(timeout: .seconds(15)) { $0.method == "REGISTER" && $0.cseq?.number != register.cseq?.number }
        if let unregister {
            registrar.send(registrar.response(to: unregister, 200, reason: "OK", toTag: registrar.unique("reg")), toPort: port)
        }
        let status = try await child.waitForExit(timeout: .seconds(20))
        #expect(status == 0, "softphone register exited \(status) (128+11 is SIGSEGV): \(child.output.suffix(3000))")
        #expect(unregister != nil, "no unregistration: \(child.output.suffix(3000))")
        let registered = jsonLines(child.output).contains { $0["registered"] as? Bool == true }
        #expect(registered, "\(child.output.suffix(3000))")
    }
}
