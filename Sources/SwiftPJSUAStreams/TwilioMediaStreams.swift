@_spi(MediaHooks) @_spi(Locking) import SwiftPJSUA
import Foundation

/// The Twilio Media Streams messages: those the call side sends, built around their sequence
/// number (which the link inserts, so that numbers follow the order messages go out), and those
/// the agent sends, read into ``AgentMessage``. `media` messages to the agent are built in C
/// (WebSocketLink.c), on the clock thread, in the same shape; the agent's `media` is mostly read
/// there too (play_media), and only the shapes that reader leaves alone come to ``parse(_:)``.
enum TwilioMediaStreams {
    /// A message to the agent: `head` + sequence number + `tail` (`numbered`), or `head` + `tail`.
    struct Outgoing {
        let head: String
        let tail: String
        let numbered: Bool
    }

    /// What an agent's message asks for.
    enum AgentMessage: Equatable {
        /// Audio to play: base64 mu-law (kept encoded; decoded in C straight into the queue).
        case media(payload: Substring)
        case mark(name: String)
        case clear
        case invalid(PJSUA.MediaStream.InvalidMessage.Reason, detail: String)
    }

    static func connected() -> Outgoing {
        Outgoing(head: #"{"event":"connected","protocol":"Call","version":"1.0.0"}"#, tail: "", numbered: false)
    }

    static func start(streamSID: String, callSID: String, accountSID: String, customParameters: [String: String]) -> Outgoing {
        let parameters = customParameters.sorted { $0.key < $1.key }
            .map { "\(JSONString.literal($0.key)):\(JSONString.literal($0.value))" }.joined(separator: ",")
        let start = #"{"accountSid":\#(JSONString.literal(accountSID)),"streamSid":\#(JSONString.literal(streamSID)),"#
            + #""callSid":\#(JSONString.literal(callSID)),"#
            + #""tracks":["inbound"],"customParameters":{\#(parameters)},"#
            + #""mediaFormat":{"encoding":"audio/x-mulaw","sampleRate":8000,"channels":1}}"#
        return numbered("start", tail: #","start":\#(start),"streamSid":\#(JSONString.literal(streamSID))}"#)
    }

    static func dtmf(streamSID: String, digit: Character) -> Outgoing {
        numbered("dtmf", tail: #","streamSid":\#(JSONString.literal(streamSID)),"dtmf":{"track":"inbound_track","digit":\#(JSONString.literal(String(digit)))}}"#)
    }

    /// A mark echoed back; a cleared one carries `"cleared":true` (Twilio echoes cleared marks
    /// too, with nothing to tell them apart: agents that ignore the field see Twilio's behaviour).
    static func mark(streamSID: String, name: String, cleared: Bool) -> Outgoing {
        let flag = cleared ? #","cleared":true"# : ""
        return numbered("mark", tail: #","streamSid":\#(JSONString.literal(streamSID)),"mark":{"name":\#(JSONString.literal(name))\#(flag)}}"#)
    }

    static func stop(streamSID: String, callSID: String, accountSID: String) -> Outgoing {
        numbered("stop", tail: #","stop":{"accountSid":\#(JSONString.literal(accountSID)),"callSid":\#(JSONString.literal(callSID))},"streamSid":\#(JSONString.literal(streamSID))}"#)
    }

    private static func numbered(_ event: String, tail: String) -> Outgoing {
        Outgoing(head: #"{"event":"\#(event)","sequenceNumber":""#, tail: "\"" + tail, numbered: true)
    }

    /// Reads one text message from the agent. Never traps: anything unexpected is `.invalid`.
    static func parse(_ bytes: UnsafeRawBufferPointer) -> AgentMessage {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)), let message = object as? [String: Any] else {
            return .invalid(.notJSON, detail: "not a JSON object (\(bytes.count) bytes)")
        }
        guard let event = message["event"] as? String else {
            return .invalid(.missingField, detail: "no \"event\"")
        }
        switch event {
        case "media":
            guard let media = message["media"] as? [String: Any], let payload = media["payload"] as? String else {
                return .invalid(.missingField, detail: "media without media.payload")
            }
            return .media(payload: Substring(payload))
        case "mark":
            guard let mark = message["mark"] as? [String: Any], let name = mark["name"] as? String else {
                return .invalid(.missingField, detail: "mark without mark.name")
            }
            return .mark(name: name)
        case "clear":
            return .clear
        default:
            return .invalid(.unknownEvent, detail: "event \"\(event.prefix(64))\"")
        }
    }
}
