@_spi(MediaHooks) @_spi(Locking) import SwiftPJSUA

extension PJSUA {
    /// A call's audio connected to a WebSocket agent (``SwiftPJSUA/PJSUA/stream(_:to:protocol:options:)``):
    /// the caller's audio goes to the agent as the protocol's messages, paced by the media clock,
    /// and the agent's audio plays into the call through a bounded queue.
    ///
    /// The handle reports what happens to the stream in ``events`` (marks played or cleared,
    /// clears, invalid messages from the agent, the end with its reason) and counts it in
    /// ``statistics``. Its properties may be read from any task; ending it goes through the
    /// engine (``SwiftPJSUA/PJSUA/stopStream(_:)``).
    public final class MediaStream: Sendable, CustomStringConvertible {
        /// The call whose audio is streamed.
        public var call: Call { bridge.call }
        /// The agent's WebSocket URL.
        public var url: String { bridge.url }
        /// The protocol spoken with the agent.
        public var streamProtocol: StreamProtocol { bridge.streamProtocol }
        /// The stream's identifier (Twilio's `streamSid`), sent in every message.
        public var streamSID: String { bridge.streamSID }
        /// The call's identifier given to the agent (Twilio's `callSid`): the SIP Call-ID unless
        /// ``Options/callSID`` says otherwise.
        public var callSID: String { bridge.callSID }

        let bridge: StreamBridge

        init(bridge: StreamBridge) {
            self.bridge = bridge
        }

        /// What happens to the stream, in order; ends after ``Event/ended(_:)``. Iterate from one
        /// task.
        public var events: AsyncStream<Event> { bridge.events }

        /// The counters so far.
        public var statistics: Statistics { bridge.statistics }

        /// Whether the stream has ended.
        public var hasEnded: Bool { bridge.hasEnded }

        public var description: String { "stream \(streamSID) of \(call) to \(url)" }
    }
}

extension PJSUA.MediaStream {
    /// What happened to a media stream.
    public enum Event: Sendable, Hashable {
        /// The agent's mark came back: all the agent's audio queued before it has gone to the
        /// call. The mark was echoed to the agent.
        case markPlayed(MarkReport)
        /// The agent's mark was dropped by a `clear` before the audio in front of it played.
        /// It was echoed to the agent with `"cleared":true` in its `mark` object.
        case markCleared(MarkReport)
        /// The agent sent `clear`, or (OpenAI Realtime) the caller started speaking over the
        /// answer: the queued audio was dropped.
        case cleared(ClearReport)
        /// A digit the caller keyed went to the agent as a `dtmf` message (Twilio Media Streams
        /// only: OpenAI Realtime has no message for digits).
        case dtmfSent(PJSUA.DTMFDigit)
        /// The agent sent something the protocol does not define, or could not be read: it was
        /// counted and ignored.
        case invalidMessage(InvalidMessage)
        /// An event of an OpenAI Realtime session (``StreamProtocol/openAIRealtime``).
        case realtime(RealtimeEvent)
        /// The stream ended (last event).
        case ended(Ending)
    }

    /// What an OpenAI Realtime session reported.
    public enum RealtimeEvent: Sendable, Hashable {
        /// A piece of the transcript of the model's spoken answer
        /// (`response.output_audio_transcript.delta`, or the beta `response.audio_transcript.delta`).
        case transcript(String)
        /// The service's voice detection heard the caller start speaking
        /// (`input_audio_buffer.speech_started`). An answer still playing was cut off (barge-in):
        /// see <doc:MediaStreams>.
        case speechStarted
        /// ... and stop (`input_audio_buffer.speech_stopped`).
        case speechStopped
        /// The model started an answer (`response.created`).
        case responseStarted
        /// The model finished an answer (`response.done`).
        case responseDone
        /// The service reported an error (its `error` event); the session goes on unless the
        /// service closes it.
        case error(RealtimeError)
    }

    /// An OpenAI Realtime `error` event's `error` object.
    public struct RealtimeError: Sendable, Hashable, CustomStringConvertible {
        /// The kind of error (`invalid_request_error`, `server_error`...).
        public let type: String
        /// The service's code for it (`invalid_value`...), when it gave one.
        public let code: String?
        /// What the service said, for people.
        public let message: String

        /// An error as the service reported it.
        public init(type: String, code: String?, message: String) {
            self.type = type
            self.code = code
            self.message = message
        }

        public var description: String { "\(type)\(code.map { " (\($0))" } ?? ""): \(message)" }
    }

    /// A mark of the agent's, and how far its audio had played.
    public struct MarkReport: Sendable, Hashable {
        /// The mark's name as the agent sent it.
        public let name: String
        /// The agent's audio played into the call so far (silence, dropped and trimmed audio not
        /// counted).
        public let playedMilliseconds: Int
    }

    /// What a `clear` dropped.
    public struct ClearReport: Sendable, Hashable {
        /// The agent's audio that was queued and never played.
        public let discardedMilliseconds: Int
        /// The marks that were waiting behind it (each reported as ``Event/markCleared(_:)``).
        public let marksCleared: Int
    }

    /// A message from the agent that was counted and ignored.
    public struct InvalidMessage: Sendable, Hashable {
        /// Why the message was ignored.
        public enum Reason: Sendable, Hashable {
            /// Not a JSON object.
            case notJSON
            /// A binary WebSocket message (the protocol uses text).
            case binaryMessage
            /// An `event` the protocol does not define for the agent.
            case unknownEvent
            /// A required field is missing or has the wrong type.
            case missingField
            /// A `media` payload that is not base64.
            case badPayload
            /// More marks waiting to play than the stream keeps (256).
            case tooManyMarks
            /// Larger than ``Options/maximumMessageSize``: its bytes were skipped unread.
            case tooLarge
        }

        /// Why it was ignored.
        public let reason: Reason
        /// What was wrong, for logs (the unknown event's name, the missing field...).
        public let detail: String
        /// Invalid messages so far on this stream, this one included.
        public let count: Int
    }

    /// How and why a stream ended.
    public struct Ending: Sendable, Hashable {
        /// Why.
        public let reason: EndReason
        /// What was done with the call because the agent left (``Options/whenAgentLeaves``);
        /// nil when the stream ended for another reason.
        public let action: AgentLossPolicy?
    }

    /// Why a stream ended.
    public enum EndReason: Sendable, Hashable {
        /// The call ended; `stop` was sent and the connection closed.
        case callEnded
        /// The app stopped the stream (``SwiftPJSUA/PJSUA/stopStream(_:)``); `stop` was sent.
        case stoppedByApp
        /// The engine shut down.
        case engineStopped
        /// The agent closed the WebSocket (its close code, 1000 for a normal close, and reason).
        case agentClosed(code: Int, reason: String)
        /// The connection broke without a close handshake.
        case connectionLost
        /// The connection or the WebSocket handshake failed, or did not finish in time
        /// (`PJSUAError.Code.timedOut`).
        case connectFailed(PJSUAError)
    }

    /// Counters of a stream.
    public struct Statistics: Sendable, Hashable {
        /// Messages sent to the agent.
        public var messagesSent: Int
        /// Of those, `media` messages (OpenAI Realtime: `input_audio_buffer.append`), one per
        /// 20 ms of the caller's audio.
        public var mediaMessagesSent: Int
        /// Messages received from the agent.
        public var messagesReceived: Int
        /// Messages from the agent counted and ignored.
        public var invalidMessages: Int
        /// Messages to the agent dropped because the connection did not take them fast enough:
        /// `media` dropped oldest first from a full send queue, and other messages (`mark`,
        /// `dtmf`, `stop`) refused by a queue holding nothing else (those are never dropped
        /// silently once queued).
        public var messagesDropped: Int
        /// The agent's audio played into the call so far.
        public var playedMilliseconds: Int
        /// The agent's audio waiting to play.
        public var queuedMilliseconds: Int
        /// The agent's audio dropped because more arrived than the queue holds
        /// (``Options/playbackCapacity``), or by `clear` (OpenAI Realtime: by barge-in).
        public var droppedMilliseconds: Int
        /// Times the agent's audio ran dry while it was playing.
        public var underruns: Int
        /// The silence played from each underrun until the agent's audio flowed again. The
        /// engine cannot tell audio that came late from the end of what the agent had to say, so
        /// the pauses between its utterances count too; during a continuous utterance this is
        /// what its lateness cost the caller. With ``Options/trimsStandingQueue`` the trim takes
        /// back at most this much (``trimmedMilliseconds``).
        public var underrunSilenceMilliseconds: Int
        /// The agent's audio skipped to shorten a standing queue after stalls
        /// (``Options/trimsStandingQueue``); 0 when that is off.
        public var trimmedMilliseconds: Int
        /// Whether the caller's audio is going to the agent as its packets arrive
        /// (``Options/passesCallerAudioThrough``, a PCMU or PCMA call), rather than as the
        /// bridge's frames.
        public var passesCallerAudioThrough: Bool
        /// The caller's RTP packets sent on as they arrived.
        public var passedThroughPackets: Int
        /// The caller's packets dropped because a later one had already been sent on (reordered
        /// or duplicated in the network).
        public var latePackets: Int
        /// The caller's audio that never arrived (lost, or replaced by RFC 4733 events), sent to
        /// the agent as silence.
        public var concealedMilliseconds: Int
        /// Whether the agent's audio goes into the call as it arrives
        /// (``Options/sendsAgentAudioOnArrival``, a PCMU, PCMA or G.729 call), rather than at the
        /// bridge's ticks.
        public var sendsAgentAudioOnArrival: Bool
        /// Frames of the agent's audio sent into the call the moment they arrived.
        public var framesSentOnArrival: Int
        /// Frames of the agent's audio that waited, while it is sent as it arrives, because the
        /// call was not due a packet yet: a burst (audio faster than real time) draining at one
        /// frame per 20 ms, or a frame that came more than 40 ms ahead of the call's real-time
        /// position.
        public var framesHeldBack: Int
    }
}
