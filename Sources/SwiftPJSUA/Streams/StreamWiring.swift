import Foundation
import PJSIP

/// Where the engine's other parts meet media streams: a call's stream lives in its record
/// (``CallRecord/mediaStream``); a stream that sent its close frame waits in the run
/// (``EngineRun/State/closingStreams``) for the agent's echo, a second at most, and the teardown
/// drops whatever still waits before pjsua goes.
enum StreamWiring {
    /// How long a closing stream waits for the agent's close echo before its connection is dropped.
    static let closeGrace = Duration.seconds(1)

    /// The call's stream, if one is running.
    static func stream(of call: PJSUA.Call) -> StreamBridge? {
        EngineRun.current?.record(of: call) { $0.mediaStream } ?? nil
    }

    /// A digit the caller keyed: to the call's agent, if it has one (pjsua's callback threads).
    static func dtmf(_ digit: PJSUA.DTMFDigit, of call: PJSUA.Call) {
        stream(of: call)?.sendDTMF(digit)
    }

    /// Connects the stream's ports to the call's new conference slot. Executor thread.
    static func wire(_ call: PJSUA.Call, callSlot: Int32) {
        stream(of: call)?.wire(callSlot: callSlot)
    }

    /// Ends `bridge` and lets its connection close within ``closeGrace``. Executor thread.
    static func end(_ bridge: StreamBridge, _ reason: PJSUA.MediaStream.EndReason, action: PJSUA.MediaStream.AgentLossPolicy? = nil,
                    graceful: Bool = true) {
        let run = EngineRun.current
        run?.withState { state in
            if state.calls[bridge.call]?.mediaStream === bridge { state.calls[bridge.call]?.mediaStream = nil }
        }
        bridge.end(reason, action: action, graceful: graceful)
        guard bridge.isClosing, let run else { return }
        run.withState { $0.closingStreams[ObjectIdentifier(bridge)] = bridge }
        Task {
            try? await Task.sleep(for: closeGrace)
            run.onEngineThread { closed(bridge) }
        }
    }

    /// The agent echoed the close, or the grace ran out: the connection goes. Executor thread.
    static func closed(_ bridge: StreamBridge) {
        _ = EngineRun.current?.withState { $0.closingStreams.removeValue(forKey: ObjectIdentifier(bridge)) }
        bridge.destroyLink()
    }

    /// The engine stops: every stream ends (`stop` sent) and every connection goes, while pjsua
    /// still exists. Executor thread, from the teardown.
    static func endAll(_ run: EngineRun) {
        let streams = run.withState { state in state.calls.values.compactMap(\.mediaStream) }
        for bridge in streams { bridge.end(.engineStopped, action: nil, graceful: true) }
        let closing = run.withState { state in
            defer { state.closingStreams = [:] }
            return Array(state.closingStreams.values)
        }
        for bridge in streams + closing { bridge.destroyLink() }
    }
}
