@testable import softphone
import Testing

@Suite("softphone's argument parser")
struct ArgumentsTests {
    let spec = OptionSpec(valued: ["listen", "seconds", "max-calls"], flags: ["json"], positionals: 0...1)

    @Test func parsesValuesFlagsAndPositionals() throws {
        let arguments = try Arguments(["sip:bob@example.com", "--listen", "udp:127.0.0.1:5060", "--json", "--seconds=2.5"], spec: spec)
        #expect(arguments.positionals == ["sip:bob@example.com"])
        #expect(arguments.string("listen") == "udp:127.0.0.1:5060")
        #expect(arguments.has("json"))
        #expect(try arguments.seconds("seconds", in: 0...10) == 2.5)
        #expect(try arguments.integer("max-calls", in: 1...10, default: 3) == 3)
    }

    @Test(arguments: [
        (["--nope"], "unknown option --nope"),
        (["--listen"], "--listen needs a value"),
        (["--json=1"], "--json takes no value"),
        (["--seconds", "1", "--seconds", "2"], "--seconds given twice"),
        (["a", "b"], "unexpected argument 'b'"),
    ])
    func rejectsBadInputWithOneLine(input: [String], message: String) {
        #expect(throws: UsageError.self) { try Arguments(input, spec: spec) }
        do {
            _ = try Arguments(input, spec: spec)
        } catch {
            #expect(error.description == message)
            #expect(!error.description.contains("\n"))
        }
    }

    @Test(arguments: ["x", "-1", "11", "1.5", ""])
    func rejectsOutOfRangeIntegers(value: String) throws {
        let arguments = try Arguments(["--max-calls", value], spec: spec)
        #expect(throws: UsageError.self) { try arguments.integer("max-calls", in: 1...10) }
    }

    @Test(arguments: ["nan", "inf", "-1", "abc"])
    func rejectsBadSeconds(value: String) throws {
        let arguments = try Arguments(["--seconds", value], spec: spec)
        #expect(throws: UsageError.self) { try arguments.seconds("seconds", in: 0...10) }
    }

    @Test func aMissingPositionalIsNamedAndAsksForTheUsageLine() {
        let spec = OptionSpec(valued: [], flags: [], positionals: 2...2, positionalNames: ["<uri>", "<text>"])
        for (input, message) in [([String](), "missing <uri> and <text>"), (["sip:a@b"], "missing <text>")] {
            do {
                _ = try Arguments(input, spec: spec)
                Issue.record("\(input) parsed")
            } catch {
                #expect(error.description == message)
                #expect(error.showsUsage)
            }
        }
    }

    @Test func doubleDashEndsOptions() throws {
        let arguments = try Arguments(["--", "--json"], spec: spec)
        #expect(arguments.positionals == ["--json"])
        #expect(!arguments.has("json"))
    }

    @Test func listenAddressesParse() throws {
        #expect(try ListenAddress(parsing: "udp:127.0.0.1:5060") == ListenAddress(transport: .udp, host: "127.0.0.1", port: 5060))
        #expect(try ListenAddress(parsing: "tcp:[::1]:0") == ListenAddress(transport: .tcp, host: "::1", port: 0))
        #expect(try ListenAddress(parsing: "tls:127.0.0.1:5061") == ListenAddress(transport: .tls, host: "127.0.0.1", port: 5061))
        for bad in ["udp:127.0.0.1", "sctp:1.2.3.4:5", "udp::5060", "udp:1.2.3.4:70000", "tls:1.2.3.4", "udp:1.2.3.4:x"] {
            #expect(throws: UsageError.self, "\(bad)") { try ListenAddress(parsing: bad) }
        }
    }
}
