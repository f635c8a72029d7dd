@testable import softphone
import SwiftPJSUA
import Testing

@Suite("softphone's TLS and SRTP options")
struct SecurityOptionsTests {
    let spec = OptionSpec(valued: SecurityOptions.valued.union(["listen"]), flags: [])
    let tls = ListenAddress(transport: .tls, host: "127.0.0.1", port: 0)
    let udp = ListenAddress.loopback

    func options(_ arguments: [String], listen: ListenAddress) throws(UsageError) -> SecurityOptions {
        try SecurityOptions(try Arguments(arguments, spec: spec), listen: listen)
    }

    @Test func tlsFilesAndVerificationOnByDefault() throws {
        let parsed = try options(["--ca-file", "/ca.pem", "--cert", "/c.pem", "--key", "/k.pem"], listen: tls)
        #expect(parsed.tls.caFile == "/ca.pem")
        #expect(parsed.tls.certificateFile == "/c.pem")
        #expect(parsed.tls.privateKeyFile == "/k.pem")
        #expect(parsed.tls.verifyServer)
        #expect(parsed.warnings.isEmpty)
    }

    @Test func turningVerificationOffWarns() throws {
        let parsed = try options(["--tls-verify", "off"], listen: tls)
        #expect(!parsed.tls.verifyServer)
        #expect(parsed.warnings.count == 1)
        #expect(parsed.warnings[0].contains("NOT verified"))
    }

    @Test func srtpModesAndTheirSignalingRequirement() throws {
        let overTLS = try options(["--srtp", "mandatory"], listen: tls)
        #expect(overTLS.srtp.mode == .mandatory)
        #expect(overTLS.srtp.secureSignaling == .tls)
        #expect(overTLS.warnings.isEmpty)
        let overUDP = try options(["--srtp", "optional"], listen: udp)
        #expect(overUDP.srtp.mode == .optional)
        #expect(overUDP.srtp.secureSignaling == .any)
        #expect(overUDP.warnings.first?.contains("in clear SIP") == true)
        #expect(try options(["--srtp", "off"], listen: udp).warnings.isEmpty)
    }

    @Test func badCombinationsAreUsageErrors() throws {
        let bad: [([String], ListenAddress)] = [
            (["--srtp", "always"], udp), (["--tls-verify", "maybe"], tls), (["--cert", "/c.pem"], tls),
            (["--key", "/k.pem"], tls), (["--ca-file", "/ca.pem"], udp), (["--key-password-env", "X"], tls),
        ]
        for (arguments, listen) in bad {
            #expect(throws: UsageError.self, "\(arguments)") { try options(arguments, listen: listen) }
        }
    }

    /// The client TLS transport a `sips:` destination gets without `--listen` takes the TLS
    /// options as a TLS listener does.
    @Test func tlsOptionsApplyToTheClientTLSTransport() throws {
        let parsed = try options(["--ca-file", "/ca.pem", "--tls-verify", "off", "--srtp", "mandatory"], listen: ListenAddress(transport: .tls, host: "127.0.0.1", port: 0))
        #expect(parsed.tls.caFile == "/ca.pem")
        #expect(!parsed.tls.verifyServer)
        #expect(parsed.srtp.secureSignaling == .tls)
        #expect(throws: UsageError.self) { try options(["--ca-file", "/ca.pem"], listen: .loopback) }
    }
}
