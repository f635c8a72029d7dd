import Foundation
import SwiftPJSUA
import SwiftPJSUAStreams

/// `--stream ws[s]://HOST:PORT/PATH` and its companions, shared by `answer` and `call`: bridges a
/// call's audio to a WebSocket agent (Twilio Media Streams) once the call's audio is up, and
/// prints the stream's events (`stream`, `streamMark`, `streamClear`, `streamDTMF`,
/// `streamInvalid`).
struct StreamOptions {
    static let valued: Set<String> = ["stream", "stream-protocol", "stream-on-close", "stream-timeout", "stream-token-env",
                                      "stream-ca-file", "stream-tls-verify", "stream-caller-audio", "stream-agent-audio"]
    static let repeatable: Set<String> = ["stream-header", "stream-param"]
    static let usage = """
      --stream ws://HOST:PORT/PATH (or wss://) bridges each call's audio to a WebSocket agent speaking Twilio
      Media Streams (pipecat, Vocode): --stream-header 'Name: value' (repeatable, e.g. Authorization),
      --stream-param key=value (repeatable: the start message's customParameters), --stream-timeout S
      (the handshake, default 5), --stream-on-close hangup|keep (when the agent leaves; default hangup),
      --stream-protocol twilio|openai-realtime (openai-realtime, or openai: OpenAI Realtime, ws:// or wss://),
      --stream-token-env VAR (a bearer token from the environment: Authorization for twilio, the API key for
      openai-realtime), --stream-ca-file
      CA.pem (the authorities a wss:// agent's certificate must chain to; default the system's, /etc/ssl/certs),
      --stream-tls-verify on|off (off accepts any wss:// certificate, with a warning; default on),
      --stream-caller-audio passthrough|bridge (a PCMU/PCMA caller's packets sent on as they arrive, or the
      bridge's 20 ms frames; default passthrough), --stream-agent-audio arrival|bridge (the agent's audio sent
      into a PCMU/PCMA/G.729 call as it arrives, or played at the bridge's ticks; default arrival). Prints
      stream lines: connected (with callerAudio and agentAudio), marks
      played or cleared, clears, digits sent, invalid messages, realtime events, and the end with its reason.
    """

    let url: String
    let streamProtocol: PJSUA.MediaStream.StreamProtocol
    let options: PJSUA.MediaStream.Options

    /// nil without `--stream`.
    init?(_ arguments: Arguments) throws(UsageError) {
        guard let url = arguments.string("stream") else {
            for name in Self.valued.union(Self.repeatable) where name != "stream" && (arguments.string(name) != nil || !arguments.strings(name).isEmpty) {
                throw UsageError("--\(name) needs --stream")
            }
            return nil
        }
        self.url = url
        switch arguments.string("stream-protocol") {
        case nil, "twilio": streamProtocol = .twilioMediaStreams
        case "openai", "openai-realtime": streamProtocol = .openAIRealtime
        case let other?: throw UsageError("--stream-protocol must be twilio or openai-realtime, not \(other)")
        }
        var options = PJSUA.MediaStream.Options()
        if let variable = arguments.string("stream-token-env") {
            guard let token = ProcessInfo.processInfo.environment[variable], !token.isEmpty else {
                throw UsageError("--stream-token-env \(variable): the variable is not set")
            }
            options.authorizationToken = token
        }
        if streamProtocol == .openAIRealtime && options.authorizationToken == nil {
            throw UsageError("--stream-protocol openai-realtime needs --stream-token-env VAR (the API key)")
        }
        for header in arguments.strings("stream-header") {
            guard let colon = header.firstIndex(of: ":") else { throw UsageError("--stream-header \(header) is not 'Name: value'") }
            options.headers[String(header[..<colon]).trimmingCharacters(in: .whitespaces)] =
                String(header[header.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        }
        for parameter in arguments.strings("stream-param") {
            guard let equals = parameter.firstIndex(of: "=") else { throw UsageError("--stream-param \(parameter) is not key=value") }
            options.customParameters[String(parameter[..<equals])] = String(parameter[parameter.index(after: equals)...])
        }
        if let seconds = try arguments.seconds("stream-timeout", in: 0.1...600) {
            options.connectTimeout = .milliseconds(Int(seconds * 1000))
        }
        let caFile = arguments.string("stream-ca-file")
        let verify: Bool
        switch arguments.string("stream-tls-verify") {
        case nil, "on": verify = true
        case "off":
            verify = false
            FileHandle.standardError.write(Data("warning: --stream-tls-verify off accepts any wss:// agent's certificate\n".utf8))
        case let other?: throw UsageError("--stream-tls-verify must be on or off, not \(other)")
        }
        if caFile != nil || !verify {
            guard url.lowercased().hasPrefix("wss://") else { throw UsageError("--stream-ca-file and --stream-tls-verify need a wss:// --stream") }
            options.tls = PJSUA.TLSConfiguration(caFile: caFile, verifyServer: verify)
        }
        switch arguments.string("stream-caller-audio") {
        case nil, "passthrough": options.passesCallerAudioThrough = true
        case "bridge": options.passesCallerAudioThrough = false
        case let other?: throw UsageError("--stream-caller-audio must be passthrough or bridge, not \(other)")
        }
        switch arguments.string("stream-agent-audio") {
        case nil, "arrival": options.sendsAgentAudioOnArrival = true
        case "bridge": options.sendsAgentAudioOnArrival = false
        case let other?: throw UsageError("--stream-agent-audio must be arrival or bridge, not \(other)")
        }
        switch arguments.string("stream-on-close") {
        case nil, "hangup": options.whenAgentLeaves = .hangUp
        case "keep": options.whenAgentLeaves = .keepCall
        case let other?: throw UsageError("--stream-on-close must be hangup or keep, not \(other)")
        }
        self.options = options
    }

    /// Connects `call` to the agent and prints its events until the stream ends.
    func start(_ call: PJSUA.Call, phone: PJSUA, output: Output) async {
        let stream: PJSUA.MediaStream
        do {
            stream = try await phone.stream(call, to: url, protocol: streamProtocol, options: options)
        } catch {
            let code = (error as? PJSUAError).map { "\($0.code)" } ?? "other"
            output.emit("stream", ["call": call.description, "state": "failed", "code": code, "message": "\(error)"],
                        human: "\(call) stream failed: \(error)")
            return
        }
        let callerAudio = stream.statistics.passesCallerAudioThrough ? "passthrough" : "bridge"
        let agentAudio = stream.statistics.sendsAgentAudioOnArrival ? "arrival" : "bridge"
        output.emit("stream", ["call": call.description, "state": "connected", "streamSid": stream.streamSID, "url": url,
                               "callerAudio": callerAudio, "agentAudio": agentAudio],
                    human: "\(call) streaming to \(url) (\(stream.streamSID), caller's audio: \(callerAudio), agent's audio: \(agentAudio))")
        Task {
            for await event in stream.events {
                Self.emit(event, of: call, output: output)
            }
        }
    }

    private static func emit(_ event: PJSUA.MediaStream.Event, of call: PJSUA.Call, output: Output) {
        let name = call.description
        switch event {
        case let .markPlayed(mark):
            output.emit("streamMark", ["call": name, "name": mark.name, "cleared": false, "playedMilliseconds": mark.playedMilliseconds],
                        human: "\(call) mark \(mark.name) played (\(mark.playedMilliseconds) ms)")
        case let .markCleared(mark):
            output.emit("streamMark", ["call": name, "name": mark.name, "cleared": true, "playedMilliseconds": mark.playedMilliseconds],
                        human: "\(call) mark \(mark.name) cleared")
        case let .cleared(clear):
            output.emit("streamClear", ["call": name, "discardedMilliseconds": clear.discardedMilliseconds, "marksCleared": clear.marksCleared],
                        human: "\(call) agent cleared \(clear.discardedMilliseconds) ms")
        case let .dtmfSent(digit):
            output.emit("streamDTMF", ["call": name, "digit": String(digit.digit)], human: "\(call) digit \(digit.digit) sent to the agent")
        case let .invalidMessage(message):
            output.emit("streamInvalid", ["call": name, "reason": "\(message.reason)", "detail": message.detail, "count": message.count],
                        human: "\(call) invalid message from the agent: \(message.detail)")
        case let .realtime(.error(error)):
            output.emit("streamRealtime", ["call": name, "kind": "error", "type": error.type, "code": error.code ?? "", "message": error.message],
                        human: "\(call) realtime error: \(error)")
        case let .realtime(event):
            output.emit("streamRealtime", ["call": name, "kind": "\(event)"], human: "\(call) realtime: \(event)")
        case let .ended(ending):
            var fields: [(String, any Sendable)] = [("call", name), ("state", "ended"), ("reason", "\(ending.reason)")]
            if let action = ending.action { fields.append(("action", "\(action)")) }
            output.emit("stream", fields: fields, human: "\(call) stream ended: \(ending.reason)")
        }
    }
}
