@testable import softphone
import SwiftPJSUA
import Testing

@Suite("softphone's --stream options")
struct StreamOptionsTests {
    let spec = OptionSpec(valued: StreamOptions.valued, flags: [], repeatable: StreamOptions.repeatable)

    func options(_ arguments: [String]) throws(UsageError) -> StreamOptions? {
        try StreamOptions(try Arguments(arguments, spec: spec))
    }

    @Test func theCallersAudioIsPassedThroughUnlessTheBridgeIsAsked() throws {
        #expect(try options(["--stream", "ws://127.0.0.1:9/a"])?.options.passesCallerAudioThrough == true)
        #expect(try options(["--stream", "ws://127.0.0.1:9/a", "--stream-caller-audio", "passthrough"])?.options.passesCallerAudioThrough == true)
        #expect(try options(["--stream", "ws://127.0.0.1:9/a", "--stream-caller-audio", "bridge"])?.options.passesCallerAudioThrough == false)
    }

    @Test func aBadCallerAudioValueOrOneWithoutStreamIsAUsageError() {
        #expect(throws: UsageError.self) { try options(["--stream", "ws://127.0.0.1:9/a", "--stream-caller-audio", "jitter"]) }
        #expect(throws: UsageError.self) { try options(["--stream-caller-audio", "bridge"]) }
    }

    @Test func theAgentsAudioIsSentAsItArrivesUnlessTheBridgeIsAsked() throws {
        #expect(try options(["--stream", "ws://127.0.0.1:9/a"])?.options.sendsAgentAudioOnArrival == true)
        #expect(try options(["--stream", "ws://127.0.0.1:9/a", "--stream-agent-audio", "arrival"])?.options.sendsAgentAudioOnArrival == true)
        #expect(try options(["--stream", "ws://127.0.0.1:9/a", "--stream-agent-audio", "bridge"])?.options.sendsAgentAudioOnArrival == false)
        #expect(throws: UsageError.self) { try options(["--stream", "ws://127.0.0.1:9/a", "--stream-agent-audio", "tick"]) }
        #expect(throws: UsageError.self) { try options(["--stream-agent-audio", "bridge"]) }
    }
}
