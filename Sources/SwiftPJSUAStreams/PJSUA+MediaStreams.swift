import PJSIP
@_spi(MediaHooks) import SwiftPJSUA

extension PJSUA {
    /// Connects a call's audio to a WebSocket agent (a voice bot: pipecat, Vocode, a hosted model)
    /// speaking `protocol`, and returns once the agent has accepted the connection and got the
    /// protocol's opening messages (`connected`, `start`; OpenAI Realtime: `session.update`).
    ///
    /// From then on the caller's audio goes to the agent every 20 ms, paced by the conference
    /// bridge's clock, and the agent's audio plays into the call through a bounded queue; marks,
    /// clears and DTMF follow the protocol (see <doc:MediaStreams>). The stream ends when the call
    /// ends (`stop` is sent), on ``stopStream(_:)``, at shutdown, or when the agent leaves
    /// (``MediaStream/Options/whenAgentLeaves`` says what happens to the call then).
    ///
    /// The URL's host is resolved first (a numeric one needs no lookup) with the system's
    /// resolver (`getaddrinfo`) on a thread of its own, so the engine goes on serving other calls
    /// meanwhile; then each of its addresses, IPv6 and IPv4 in the resolver's order, is tried
    /// until one takes the connection (a refused or unreachable one passes to the next). A
    /// `wss://` agent's certificate is checked against the URL's host name, which SNI carries,
    /// whatever address answered. ``MediaStream/Options/connectTimeout`` bounds it all.
    ///
    /// Needs an engine started with ``SwiftPJSUA/PJSUA/Configuration/enablesMediaStreams``.
    ///
    /// Built on our RFC 6455 client on PJLIB's sockets (`pj_activesock_start_connect()`, for
    /// `wss://` `pj_ssl_sock_start_connect2()`) and two pjmedia ports on the bridge
    /// (`pjsua_conf_add_port()`, `pjsua_conf_connect()`), for both protocols.
    /// - Parameters:
    ///   - call: a call whose audio is active, not streamed yet.
    ///   - url: the agent's `ws://` or `wss://` URL. A `wss://` agent's certificate must chain to
    ///     a trusted authority and name the URL's host (``MediaStream/Options/tls``).
    ///   - streamProtocol: what the agent speaks.
    ///   - options: handshake headers, custom parameters, timeouts, the playback queue and what
    ///     happens when the agent leaves.
    /// - Throws: `PJSUAError.Code.unsupported` when the engine was started without
    ///   ``SwiftPJSUA/PJSUA/Configuration/enablesMediaStreams``,
    ///   `PJSUAError.Code.mediaNotActive` before the call's audio is up,
    ///   `PJSUAError.Code.tooMany` when the call is streamed already,
    ///   `PJSUAError.Code.invalidArgument` for a bad URL or option, or a host name that does
    ///   not resolve (the message names it),
    ///   `PJSUAError.Code.unsupported` for another protocol, `PJSUAError.Code.timedOut` when the lookup, the
    ///   connection and the handshake did not finish within
    ///   ``MediaStream/Options/connectTimeout``, `PJSUAError.Code.certificateUntrusted`,
    ///   `PJSUAError.Code.certificateExpired`, `PJSUAError.Code.certificateNameMismatch` or
    ///   `PJSUAError.Code.certificateRejected` when a `wss://` agent's certificate was refused,
    ///   `PJSUAError.Code.pjsip` when the lookup could not be made (no nameserver answered),
    ///   no address took the connection, or the handshake failed.
    public func stream(_ call: Call, to url: String, protocol streamProtocol: MediaStream.StreamProtocol = .twilioMediaStreams,
                       options: MediaStream.Options = MediaStream.Options()) async throws -> MediaStream {
        guard try mediaHookContext().hasHooks(named: MediaStreamHooks.name) else {
            throw PJSUAError(.unsupported, "media streams need an engine started with configuration.enablesMediaStreams")
        }
        try options.validate()
        guard streamProtocol == .twilioMediaStreams || streamProtocol == .openAIRealtime else {
            throw PJSUAError(.unsupported, "the stream protocol \(streamProtocol) is not implemented")
        }
        if streamProtocol == .openAIRealtime, options.authorizationToken?.isEmpty ?? true {
            throw PJSUAError(.invalidArgument, "OpenAI Realtime needs options.authorizationToken (the API key)")
        }
        // A barge-in truncates the answer to what the caller heard, counted from the queue's
        // position, which trimmed audio also moves: the service would keep audio nobody heard.
        if streamProtocol == .openAIRealtime, options.trimsStandingQueue {
            throw PJSUAError(.invalidArgument, "options.trimsStandingQueue is for Twilio Media Streams, not OpenAI Realtime")
        }
        try Self.validateStreamURL(url)
        // A call that cannot be streamed fails at once, not after a lookup; its state is read
        // again below.
        _ = try audioSlot(of: call)
        // One deadline for the lookup, the connection and the handshake. The lookup runs on a
        // thread of its own while this actor serves other calls: the engine and the call may
        // have changed by the time it returns, so what the stream uses is read after it.
        let deadline = ContinuousClock.now.advanced(by: options.connectTimeout)
        let addresses = try await HostLookup.addresses(ofHostIn: url, until: deadline)
        let context = try mediaHookContext()
        let callSlot = try audioSlot(of: call)
        let sipCallID = try sipCallID(of: call)
        guard context.attachment(of: call, as: StreamBridge.self) == nil else {
            throw PJSUAError(.tooMany, "\(call) is streamed already")
        }
        let remaining = deadline - ContinuousClock.now
        guard remaining > .zero else {
            throw PJSUAError(.timedOut, "no time was left to connect to the agent at \(Validation.quoted(url)) within \(options.connectTimeout)")
        }
        let trust = StreamBridge.Trust(options.tls ?? context.tls)
        guard let bridge = StreamBridge(call: call, context: context, url: url, streamProtocol: streamProtocol, callSID: sipCallID, options: options,
                                        trust: trust) else {
            throw PJSUAError(.invalidArgument, "cannot make a playback queue of \(options.playbackCapacity)")
        }
        try bridge.open(callSlot: callSlot, addresses: addresses, timeout: remaining)
        guard context.attach(bridge, to: call) else {
            bridge.finish(.connectFailed(PJSUAError(.tooMany, "\(call) is streamed already")), graceful: false)
            throw PJSUAError(.tooMany, "\(call) is streamed already")
        }
        do {
            try await bridge.waitUntilConnected(timeout: remaining)
        } catch {
            let failure = error as? PJSUAError ?? PJSUAError(.pjsip, "\(error)")
            bridge.finish(.connectFailed(failure), graceful: false)
            throw failure
        }
        Task { [weak self] in
            for await reason in bridge.agentLoss {
                await self?.agentLeft(bridge, reason)
                return
            }
        }
        return MediaStream(bridge: bridge)
    }

    /// Ends a media stream: `stop` and a close frame go to the agent, the ports leave the bridge;
    /// the call goes on. Does nothing for a stream that has ended.
    ///
    /// Drives `pj_activesock_send()` (the close frame) and `pjsua_conf_remove_port()`.
    public func stopStream(_ stream: MediaStream) {
        guard (try? mediaHookContext()) != nil else { return }
        stream.bridge.finish(.stoppedByApp)
    }

    /// The agent closed the WebSocket or the connection broke: the stream ends and the call gets
    /// what the stream's options say.
    private func agentLeft(_ bridge: StreamBridge, _ reason: MediaStream.EndReason) {
        guard (try? mediaHookContext()) != nil, !bridge.hasEnded else { return }
        let policy = bridge.options.whenAgentLeaves
        bridge.finish(reason, action: policy, graceful: false)
        switch policy {
        case .hangUp: try? hangUp(bridge.call)
        case .keepCall: break
        case let .play(path): _ = try? play(path, into: bridge.call, loop: false)
        case let .transfer(target): try? transfer(bridge.call, to: target)
        }
    }

    private static func validateStreamURL(_ url: String) throws(PJSUAError) {
        try Validation.headerValue(url, what: "the stream URL", maxLength: 2048)
        let lowered = url.lowercased()
        let scheme = lowered.hasPrefix("wss://") ? "wss://" : "ws://"
        let authority = lowered.dropFirst(scheme.count).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard lowered.hasPrefix(scheme), !authority.isEmpty, !authority.hasPrefix(":"), !url.contains(" ") else {
            throw PJSUAError(.invalidArgument, "\(Validation.quoted(url)) is not a ws:// or wss:// URL")
        }
    }
}
