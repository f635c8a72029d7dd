@_spi(MediaHooks) @_spi(Locking) import SwiftPJSUA
import CPJSUAStreams
import CPJSUASupport
import Foundation

/// The OpenAI Realtime messages (the GA interface; the beta names of the audio and transcript
/// deltas are read too): what the call side sends, as whole text messages, and what the service
/// sends, read into ``ServiceMessage``. `input_audio_buffer.append` messages are built in C
/// (WebSocketLink.c), on the clock thread.
enum OpenAIRealtime {
    /// The audio format both ways: PCM16 little-endian, mono, 24 kHz.
    static let sampleRate = 24000

    /// What a service's message says.
    enum ServiceMessage: Equatable {
        /// A piece of an answer's audio: base64 PCM16 (kept encoded; decoded in C straight into
        /// the queue), with the conversation item it belongs to.
        case audio(item: String, payload: Substring)
        case transcript(String)
        case speechStarted
        case speechStopped
        case responseStarted
        case responseDone
        case error(PJSUA.MediaStream.RealtimeError)
        /// An event the stream has no use for (session.created, rate_limits.updated...).
        case ignored
        case invalid(PJSUA.MediaStream.InvalidMessage.Reason, detail: String)
    }

    /// `session.update`: a realtime session, PCM 24 kHz both ways, the service's voice detection.
    static func sessionUpdate(_ session: PJSUA.MediaStream.RealtimeSession) -> String {
        let format = #"{"type":"audio/pcm","rate":\#(sampleRate)}"#
        var turnDetection = #"{"type":"server_vad""#
        if let silence = session.silenceDuration { turnDetection += #","silence_duration_ms":\#(silence.wholeMilliseconds)"# }
        turnDetection += "}"
        var output = #"{"format":\#(format)"#
        if let voice = session.voice { output += #","voice":\#(JSONString.literal(voice))"# }
        output += "}"
        var body = #"{"type":"realtime","output_modalities":["audio"]"#
        if let instructions = session.instructions { body += #","instructions":\#(JSONString.literal(instructions))"# }
        body += #","audio":{"input":{"format":\#(format),"turn_detection":\#(turnDetection)},"output":\#(output)}}"#
        return #"{"type":"session.update","session":\#(body)}"#
    }

    /// `conversation.item.truncate`: the service forgets the part of `item`'s audio the caller
    /// never heard (its transcript too), so the conversation holds what was actually said.
    static func truncate(item: String, audioEndMilliseconds: Int) -> String {
        #"{"type":"conversation.item.truncate","item_id":\#(JSONString.literal(item)),"content_index":0,"audio_end_ms":\#(audioEndMilliseconds)}"#
    }

    /// Reads one text message from the service. Never traps: what is not a JSON object with a
    /// `type` is `.invalid`; a type the stream does not use is `.ignored`.
    static func parse(_ bytes: UnsafeRawBufferPointer) -> ServiceMessage {
        // Audio, most of what a service sends, is found in one pass in C (WebSocketLink.c) rather
        // than by building the whole JSON object; anything that pass does not take is parsed below.
        if let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self) {
            var itemOffset: UInt64 = 0, itemLength: UInt64 = 0, deltaOffset: UInt64 = 0, deltaLength: UInt64 = 0
            if cpjsua_realtime_audio_delta(base, UInt64(bytes.count), &itemOffset, &itemLength, &deltaOffset, &deltaLength) == 1 {
                let item = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[Int(itemOffset)..<Int(itemOffset + itemLength)]), as: UTF8.self)
                let delta = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[Int(deltaOffset)..<Int(deltaOffset + deltaLength)]), as: UTF8.self)
                return .audio(item: item, payload: Substring(delta))
            }
        }
        return parseWithFoundation(bytes)
    }

    /// Reads one text message with Foundation's JSON parser (every message the C pass leaves).
    static func parseWithFoundation(_ bytes: UnsafeRawBufferPointer) -> ServiceMessage {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)), let message = object as? [String: Any] else {
            return .invalid(.notJSON, detail: "not a JSON object (\(bytes.count) bytes)")
        }
        guard let type = message["type"] as? String else {
            return .invalid(.missingField, detail: "no \"type\"")
        }
        switch type {
        case "response.output_audio.delta", "response.audio.delta":
            guard let delta = message["delta"] as? String else { return .invalid(.missingField, detail: "\(type) without delta") }
            return .audio(item: message["item_id"] as? String ?? "", payload: Substring(delta))
        case "response.output_audio_transcript.delta", "response.audio_transcript.delta":
            guard let delta = message["delta"] as? String else { return .invalid(.missingField, detail: "\(type) without delta") }
            return .transcript(delta)
        case "input_audio_buffer.speech_started": return .speechStarted
        case "input_audio_buffer.speech_stopped": return .speechStopped
        case "response.created": return .responseStarted
        case "response.done": return .responseDone
        case "error":
            let error = message["error"] as? [String: Any] ?? [:]
            return .error(PJSUA.MediaStream.RealtimeError(type: error["type"] as? String ?? "", code: error["code"] as? String,
                                                          message: error["message"] as? String ?? ""))
        default:
            return .ignored
        }
    }
}
