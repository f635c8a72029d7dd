import CPJSUAStreams
@_spi(MediaHooks) import SwiftPJSUA

/// Where a stream meets the engine, through the engine's MediaHooks SPI: the bridge is its
/// call's attachment (kept in the call's record, told of the call's wiring, digits and end and
/// of the engine's stop), and it keeps the run it belongs to (``StreamBridge/context``). A stream
/// that sent its close frame is held by the run for the agent's echo, a second at most, and the
/// engine's stop drops whatever still waits before pjsua goes.
extension StreamBridge: PJSUA.CallMediaAttachment {
    /// How long a closing stream waits for the agent's close echo before its connection is dropped.
    static let closeGrace = Duration.seconds(1)

    /// Connects the stream's ports to the call's new conference slot. Executor thread.
    func callAudioWired(slot: Int32) {
        wire(callSlot: slot)
    }

    /// A digit the caller keyed goes to the agent (pjsua's callback threads).
    func callKeyed(_ digit: PJSUA.DTMFDigit) {
        sendDTMF(digit)
    }

    func callEnded() {
        finish(.callEnded)
    }

    /// `stop` to the agent, and the connection dropped while pjsua exists. Executor thread.
    func engineStopping() {
        end(.engineStopped, action: nil, graceful: true)
        destroyLink()
    }

    /// Ends the stream, takes it out of its call's record, and lets its connection close within
    /// ``closeGrace``. Executor thread.
    func finish(_ reason: PJSUA.MediaStream.EndReason, action: PJSUA.MediaStream.AgentLossPolicy? = nil, graceful: Bool = true) {
        context.detach(self, from: call)
        end(reason, action: action, graceful: graceful)
        guard isClosing else { return }
        context.holdUntilStop(self)
        Task { [self] in
            try? await Task.sleep(for: Self.closeGrace)
            context.onEngineThread { self.closed() }
        }
    }

    /// The agent echoed the close, or the grace ran out: the connection goes. Executor thread.
    func closed() {
        context.release(self)
        destroyLink()
    }
}
