import CPJSUAStreams
import CPJSUASupport
import Foundation
import PJSIP
@_spi(MediaHooks) @_spi(Locking) import SwiftPJSUA

/// The engine side of one media stream: the WebSocket link to the agent (WebSocketLink.c), the
/// reader port that sends the call's audio through it, the writer port that plays the agent's
/// audio, and the protocol state (marks, counters, the stream's phase; for OpenAI Realtime the
/// answer items queued, for barge-in).
///
/// Threads: the WebSocket client's callbacks (pjsua's worker threads, one at a time) bring the agent's messages here;
/// the writer port's notify (the bridge's clock thread, or the thread of a `clear`) reports marks
/// played or flushed; DTMF arrives on pjsua's callback threads. Each of them only copies, takes
/// `state`'s lock briefly and sends through the link, which never blocks. Opening, wiring and ending run
/// on the engine's executor thread. Every one of those threads is registered with PJLIB.
final class StreamBridge: @unchecked Sendable {
    // @unchecked Sendable: the mutable state is in `state`; `writer` is the C port's own
    // (thread-safe) queue; `readerSlot`, `writerSlot` and `agentLoss`'s continuation are used on the executor thread only (and
    // the continuation is itself thread-safe); the rest is immutable after init.
    typealias Stream = PJSUA.MediaStream

    enum Phase { case connecting, streaming, ending, ended }

    let call: PJSUA.Call
    /// The engine run the stream belongs to: its way back to the engine's thread and its call's record.
    let context: PJSUA.MediaHookContext
    let url: String
    let streamProtocol: Stream.StreamProtocol
    let streamSID: String
    let callSID: String
    let options: Stream.Options
    let trust: Trust
    let events: AsyncStream<Stream.Event>
    private let eventsContinuation: AsyncStream<Stream.Event>.Continuation
    /// Why the agent left, once, for the engine to apply ``Stream/Options/whenAgentLeaves``.
    let agentLoss: AsyncStream<Stream.EndReason>
    private let agentLossContinuation: AsyncStream<Stream.EndReason>.Continuation
    /// The writer port's queue: the agent's audio at 8 kHz (OpenAI Realtime: 24 kHz).
    private let writer: OpaquePointer
    private let capacitySamples: Int
    /// The agent's audio rate, and its samples per millisecond.
    private let sampleRate: Int
    private let samplesPerMillisecond: UInt64
    private var readerSlot: Int32 = -1  // executor thread only
    private var writerSlot: Int32 = -1  // executor thread only

    private struct State {
        /// Nil before open and after the link is destroyed.
        var link: OpaquePointer?
        var phase = Phase.connecting
        var connectOutcome: Result<Void, PJSUAError>?
        var connectWaiter: CheckedContinuation<Void, Error>?
        var markNames: [UInt64: String] = [:]
        var lastMark: UInt64 = 0
        var invalidMessages = 0
        var flushedInClear = 0
        var clearedSamples: UInt64 = 0
        /// The link's counters when it went, so that a stream's statistics outlive it.
        var finalWire = cpjsua_ws_stats()
        /// The counters of paces left (re-INVITEs, the end).
        var pace = cpjsua_pace_stats()
        /// OpenAI Realtime: the answer audio written to the queue so far (samples: the queue's
        /// stream position after the last write), and where each answer item's audio starts
        /// and ends in it, newest last; the items the caller interrupted (their late deltas are
        /// dropped); whether a response is under way.
        var writtenSamples: UInt64 = 0
        var answerItems: [(id: String, start: UInt64, end: UInt64)] = []
        var interruptedItems: Set<String> = []
        var responding = false
    }
    private let state = LockedValueBox(State())

    init?(call: PJSUA.Call, context: PJSUA.MediaHookContext, url: String, streamProtocol: Stream.StreamProtocol, callSID: String, options: Stream.Options,
          trust: Trust = Trust(PJSUA.TLSConfiguration())) {
        self.call = call
        self.context = context
        self.trust = trust
        self.url = url
        self.streamProtocol = streamProtocol
        self.callSID = options.callSID ?? callSID
        self.options = options
        streamSID = options.streamSID ?? Self.makeStreamSID()
        (events, eventsContinuation) = AsyncStream.makeStream(of: Stream.Event.self, bufferingPolicy: .bufferingNewest(4096))
        (agentLoss, agentLossContinuation) = AsyncStream.makeStream(of: Stream.EndReason.self, bufferingPolicy: .bufferingNewest(1))
        sampleRate = streamProtocol == .openAIRealtime ? OpenAIRealtime.sampleRate : 8000
        samplesPerMillisecond = UInt64(sampleRate / 1000)
        let frames = max(1, Int(options.playbackCapacity.wholeMilliseconds / 20))
        let samplesPerFrame = sampleRate / 50
        capacitySamples = frames * samplesPerFrame
        guard let writer = cpjsua_frame_buffer_create(UInt32(samplesPerFrame), UInt32(frames), writerNotify, nil) else { return nil }
        self.writer = writer
        // The buffer's notify context is this object, unretained: the writer port keeps it alive
        // while it can notify (cpjsua_frame_port_attach's `retained`).
        cpjsua_frame_buffer_set_context(writer, Unmanaged.passUnretained(self).toOpaque())
        // 200 ms of 20 ms frames at one depth before a trim (Options.trimsStandingQueue).
        if options.trimsStandingQueue { cpjsua_frame_buffer_set_trim(writer, 10) }
    }

    deinit {
        eventsContinuation.finish()
        agentLossContinuation.finish()
        cpjsua_frame_buffer_free(writer)
    }

    static func makeStreamSID() -> String {
        "MZ" + (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    // MARK: Executor thread

    /// Starts connecting to `addresses` (the URL's host resolved, tried in order) within
    /// `timeout`, and puts the ports on the bridge, wired to `callSlot`.
    func open(callSlot: Int32, addresses: [String], timeout: Duration) throws(PJSUAError) {
        var headers = options.headers
        if let token = options.authorizationToken, !headers.keys.contains(where: { $0.lowercased() == "authorization" }) {
            headers["Authorization"] = "Bearer \(token)"
        }
        let sortedHeaders = headers.sorted { $0.key < $1.key }
        let names = sortedHeaders.map { strdup($0.key) }
        let values = sortedHeaders.map { strdup($0.value) }
        let numeric = addresses.map { strdup($0) }
        let urlText = strdup(url), caFile = trust.caFile.map { strdup($0) }, caPath = trust.caDirectory.map { strdup($0) }
        defer {
            (names + values + numeric + [urlText, caFile ?? nil, caPath ?? nil]).forEach { free($0) }
        }
        let strings: [UnsafePointer<CChar>] = (names + values + numeric).compactMap { $0.map { UnsafePointer($0) } }
        guard strings.count == names.count + values.count + numeric.count, !numeric.isEmpty, let urlText,
              caFile.map({ $0 != nil }) ?? true, caPath.map({ $0 != nil }) ?? true else {
            throw PJSUAError(.pjsip, "out of memory")
        }
        var opened: OpaquePointer?
        // One array of C strings: the header names, their values, then the addresses.
        let status = strings.withUnsafeBufferPointer { pointers in
            pointers.baseAddress.map { base in
                var config = cpjsua_ws_link_config(
                    target: cpjsua_ws_target(url: urlText, addresses: base + names.count + values.count, address_count: UInt32(numeric.count),
                                             header_names: base, header_values: base + names.count, header_count: UInt32(sortedHeaders.count)),
                    tls: cpjsua_ws_tls(ca_file: caFile.flatMap { $0.map { UnsafePointer($0) } }, ca_path: caPath.flatMap { $0.map { UnsafePointer($0) } },
                                       verify_server: trust.verify ? 1 : 0),
                    max_message: UInt32(options.maximumMessageSize), connect_timeout_ms: UInt32(clamping: max(1, timeout.wholeMilliseconds)),
                    pollers: context.workerThreadCount, media_format: Int32(isRealtime ? CPJSUA_WS_MEDIA_REALTIME : CPJSUA_WS_MEDIA_TWILIO))
                let owner = cpjsua_ws_owner(notify: linkNotify, ctx: Unmanaged.passRetained(self).toOpaque(), release: bridgeRelease)
                return cpjsua_ws_link_open(&config, owner, &opened)
            }
        }
        guard let status else { throw PJSUAError(.pjsip, "out of memory") }
        guard status == pjSuccess, let opened else {
            throw PJSUAError(status: status, operation: "cannot connect to the agent at \(Validation.quoted(url))")
        }
        // The agent's `media` is read and queued in C from now on (WebSocketLink.c play_media);
        // what that reader does not take still comes here as text.
        if !isRealtime { cpjsua_ws_link_set_player(opened, writer, UInt32(capacitySamples)) }
        // Unchecked: the link is the C client's handle, which this bridge keeps until destroyLink.
        state.withLockedValueUnchecked { $0.link = opened }
        var slot: Int32 = -1
        var attach = cpjsua_ws_link_attach_reader(opened, &slot)
        if attach == pjSuccess {
            readerSlot = slot
            attach = cpjsua_frame_port_attach(writer, 1, UInt32(sampleRate), Unmanaged.passRetained(self).toOpaque(), bridgeRelease, &slot)
            if attach == pjSuccess { writerSlot = slot }
        }
        guard attach == pjSuccess else {
            end(.connectFailed(PJSUAError(status: attach, operation: "cannot add the stream's ports to the bridge")), action: nil, graceful: false)
            throw PJSUAError(status: attach, operation: "cannot add the stream's ports for \(call) to the conference bridge")
        }
        wire(callSlot: callSlot)
    }

    private var isRealtime: Bool { streamProtocol == .openAIRealtime }

    /// Connects the ports to the call's conference slot (again, after a re-INVITE gave it a new
    /// one, or changed its codec). With the caller's audio passed through
    /// (``Stream/Options/passesCallerAudioThrough``), the reader port stays on the bridge off
    /// the call: its ticks only keep the stream going with silence while no packet comes.
    func wire(callSlot: Int32) {
        if readerSlot >= 0 {
            let link = state.withLockedValue { $0.link }
            if let link, options.passesCallerAudioThrough, cpjsua_ws_link_tap(link, call.slot, callSlot) == 1 {
                pjsua_conf_disconnect(callSlot, readerSlot)
            } else {
                if let link { cpjsua_ws_link_untap(link) }
                pjsua_conf_connect(callSlot, readerSlot)
            }
        }
        if writerSlot >= 0 {
            // Sent as it arrives (``Stream/Options/sendsAgentAudioOnArrival``), the agent's audio
            // goes into the call's stream without the bridge: the writer port stays on it off the
            // call, and the bridge skips it at every tick.
            let link = state.withLockedValue { $0.link }
            if let link, options.sendsAgentAudioOnArrival, cpjsua_ws_link_pace(link, call.slot, callSlot) == 1 {
                pjsua_conf_disconnect(writerSlot, callSlot)
            } else {
                if let link { unpace(link) }
                pjsua_conf_connect(writerSlot, callSlot)
            }
        }
    }

    /// Back to the writer port's ticks, keeping the counters of the pace left.
    private func unpace(_ link: OpaquePointer) {
        var left = cpjsua_pace_stats()
        cpjsua_ws_link_pace_stats(link, &left)
        cpjsua_ws_link_unpace(link)
        state.withLockedValue { state in
            state.pace.on_arrival += left.on_arrival
            state.pace.held_back += left.held_back
        }
    }

    /// Waits until the handshake is done (and `start` sent), at most `timeout`.
    func waitUntilConnected(timeout: Duration) async throws {
        let timer = Task {
            try await Task.sleep(for: timeout)
            connectFinished(.failure(PJSUAError(.timedOut, "the agent at \(Validation.quoted(url)) did not complete the WebSocket handshake within \(timeout)")))
        }
        defer { timer.cancel() }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            let outcome: Result<Void, PJSUAError>? = state.withLockedValue { state in
                if let outcome = state.connectOutcome { return outcome }
                state.connectWaiter = continuation
                return nil
            }
            if let outcome { continuation.resume(with: outcome.mapError { $0 as Error }) }
        }
    }

    /// Ends the stream: `stop` and a close frame to the agent when it was streaming and
    /// `graceful`, ports off the bridge, the last event. The link goes now, or (graceful) when
    /// the agent's close echo arrives or a second later (``finishClosing(after:)``).
    /// Idempotent.
    func end(_ reason: Stream.EndReason, action: Stream.AgentLossPolicy?, graceful: Bool) {
        let ending: (wasStreaming: Bool, link: OpaquePointer?, waiter: CheckedContinuation<Void, Error>?)? = state.withLockedValue { state in
            let previous = state.phase
            guard previous == .connecting || previous == .streaming else { return nil }
            state.phase = .ending
            if state.connectOutcome == nil {
                if case let .connectFailed(error) = reason {
                    state.connectOutcome = .failure(error)
                } else {
                    state.connectOutcome = .failure(PJSUAError(.staleHandle, "the stream ended before the agent answered"))
                }
            }
            defer { state.connectWaiter = nil }
            return (previous == .streaming, state.link, state.connectWaiter)
        }
        guard let (wasStreaming, link, waiter) = ending else { return }
        guard let link else {
            finishEnded(reason, action: action, waiter: waiter)
            state.withLockedValue { $0.phase = .ended }
            return
        }
        // No `media` after `stop`: the caller's audio stops going out before it is sent.
        cpjsua_ws_link_stop_media(link)
        if wasStreaming && graceful {
            // OpenAI Realtime has no `stop`: the close frame ends the session.
            if !isRealtime {
                _ = state.withLockedValue { _ in send(TwilioMediaStreams.stop(streamSID: streamSID, callSID: callSID, accountSID: options.accountSID), on: link) }
            }
            cpjsua_ws_link_close(link, 1000)
        }
        cpjsua_ws_link_untap(link)
        unpace(link)
        cpjsua_ws_link_detach_reader(link)
        cpjsua_frame_buffer_close(writer)
        cpjsua_frame_port_detach(writer)
        readerSlot = -1
        writerSlot = -1
        finishEnded(reason, action: action, waiter: waiter)
        if !(wasStreaming && graceful) { destroyLink() }
    }

    private func finishEnded(_ reason: Stream.EndReason, action: Stream.AgentLossPolicy?, waiter: CheckedContinuation<Void, Error>?) {
        if let waiter, case let .failure(error)? = state.withLockedValue({ $0.connectOutcome }) { waiter.resume(throwing: error) }
        eventsContinuation.yield(.ended(.init(reason: reason, action: action)))
        eventsContinuation.finish()
        agentLossContinuation.finish()
    }

    /// Whether the link still waits for the agent's close echo.
    var isClosing: Bool { state.withLockedValue { $0.phase == .ending && $0.link != nil } }

    /// Drops the connection. Executor thread; idempotent.
    func destroyLink() {
        let link = state.withLockedValue { state in
            defer {
                if let link = state.link { state.finalWire = cpjsua_ws_link_stats(link) }
                state.link = nil
                state.phase = .ended
            }
            return state.link
        }
        if let link { cpjsua_ws_link_destroy(link) }
    }

    // MARK: Any registered thread

    var hasEnded: Bool { state.withLockedValue { $0.phase == .ending || $0.phase == .ended } }

    var statistics: Stream.Statistics {
        let (link, invalid, cleared, final, paceLeft) = state.withLockedValue { ($0.link, $0.invalidMessages, $0.clearedSamples, $0.finalWire, $0.pace) }
        let wire = link.map { cpjsua_ws_link_stats($0) } ?? final
        var paced = cpjsua_pace_stats()
        let isPaced = link.map { cpjsua_ws_link_pace_stats($0, &paced) != 0 } ?? false
        let audio = cpjsua_frame_buffer_stats(writer)
        return Stream.Statistics(messagesSent: Int(wire.sent), mediaMessagesSent: Int(wire.media_sent), messagesReceived: Int(wire.received),
                                 invalidMessages: invalid, messagesDropped: Int(wire.dropped),
                                 playedMilliseconds: Int(audio.played / samplesPerMillisecond),
                                 queuedMilliseconds: Int(UInt64(audio.queued) / samplesPerMillisecond),
                                 droppedMilliseconds: Int((audio.dropped + cleared + wire.audio_skipped) / samplesPerMillisecond),
                                 underruns: Int(audio.underruns),
                                 underrunSilenceMilliseconds: Int(audio.stall_silence / samplesPerMillisecond),
                                 trimmedMilliseconds: Int(audio.trimmed / samplesPerMillisecond),
                                 passesCallerAudioThrough: wire.passing_through != 0, passedThroughPackets: Int(wire.passed_packets),
                                 latePackets: Int(wire.late_packets), concealedMilliseconds: Int(wire.concealed_samples / 8),
                                 sendsAgentAudioOnArrival: isPaced, framesSentOnArrival: Int(paceLeft.on_arrival + paced.on_arrival),
                                 framesHeldBack: Int(paceLeft.held_back + paced.held_back))
    }

    /// A digit the caller keyed (pjsua's DTMF callback): sent to the agent as `dtmf`. OpenAI
    /// Realtime has no message for digits: none is sent.
    func sendDTMF(_ digit: PJSUA.DTMFDigit) {
        guard !isRealtime else { return }
        let sent = state.withLockedValue { (state) -> Bool in
            guard state.phase == .streaming, let link = state.link else { return false }
            return send(TwilioMediaStreams.dtmf(streamSID: streamSID, digit: digit.digit), on: link) == 0
        }
        if sent { eventsContinuation.yield(.dtmfSent(digit)) }
    }

    /// Sends a message through `link`. Under `state`'s lock (which keeps the link from being destroyed
    /// meanwhile) or from the link's own callback.
    @discardableResult
    private func send(_ message: TwilioMediaStreams.Outgoing, on link: OpaquePointer) -> Int32 {
        message.head.withCString { head in
            message.tail.withCString { tail in
                cpjsua_ws_link_send(link, head, UInt32(message.head.utf8.count), tail, UInt32(message.tail.utf8.count),
                                    message.numbered ? 1 : 0, nil)
            }
        }
    }

    /// Sends a whole text message (OpenAI Realtime's) through `link`. Under `state`'s lock or from the
    /// link's own callback, as ``send(_:on:)``.
    @discardableResult
    private func send(text: String, on link: OpaquePointer) -> Int32 {
        send(TwilioMediaStreams.Outgoing(head: text, tail: "", numbered: false), on: link)
    }

    // MARK: The link's callbacks (pjsua's worker threads)

    fileprivate func linkEvent(_ link: OpaquePointer, _ event: Int32, _ status: Int32, _ data: UnsafeRawBufferPointer) {
        switch Int(event) {
        case CPJSUA_WS_EVENT_OPEN:
            let streaming = state.withLockedValue { (state) -> Bool in
                guard state.phase == .connecting else { return false }
                state.phase = .streaming
                return true
            }
            guard streaming else { return }
            if isRealtime {
                send(text: OpenAIRealtime.sessionUpdate(options.realtimeSession), on: link)
            } else {
                send(TwilioMediaStreams.connected(), on: link)
                send(TwilioMediaStreams.start(streamSID: streamSID, callSID: callSID, accountSID: options.accountSID,
                                              customParameters: options.customParameters), on: link)
            }
            cpjsua_ws_link_start_media(link, streamSID)
            connectFinished(.success(()))
        case CPJSUA_WS_EVENT_FAILED:
            var operation = "cannot connect to the agent at \(Validation.quoted(url))"
            if !data.isEmpty { operation += " (\(String(decoding: data, as: UTF8.self)))" }
            connectFinished(.failure(PJSUAError(status: status, operation: operation)))
        case CPJSUA_WS_EVENT_REFUSED:
            let problems = PJSUA.CertificateProblems(rawValue: UInt32(bitPattern: status))
            connectFinished(.failure(problems.error(remote: "the agent at \(Validation.quoted(url))")))

        case CPJSUA_WS_EVENT_TEXT:
            guard state.withLockedValue({ $0.phase == .streaming }) else { return }
            if isRealtime {
                handle(OpenAIRealtime.parse(data), on: link)
            } else {
                handle(TwilioMediaStreams.parse(data))
            }
        case CPJSUA_WS_EVENT_BINARY:
            guard state.withLockedValue({ $0.phase == .streaming }) else { return }
            handle(.invalid(.binaryMessage, detail: "a binary message of \(data.count) bytes"))
        case CPJSUA_WS_EVENT_CLOSED:
            let previous = state.withLockedValue { $0.phase }
            switch previous {
            case .connecting:
                connectFinished(.failure(PJSUAError(.pjsip, "the agent at \(Validation.quoted(url)) closed the connection during the handshake")))
            case .streaming:
                let reason = status == 0 ? Stream.EndReason.connectionLost
                    : .agentClosed(code: Int(status), reason: String(decoding: data, as: UTF8.self))
                agentLossContinuation.yield(reason)
            case .ending:
                context.onEngineThread { [self] in closed() }
            case .ended:
                break
            }
        default:
            break
        }
    }

    /// A message over ``Stream/Options/maximumMessageSize`` that the client skipped.
    fileprivate func oversized(length: UInt64, binary: Bool) {
        guard state.withLockedValue({ $0.phase == .streaming }) else { return }
        handle(.invalid(.tooLarge, detail: "a \(binary ? "binary" : "text") message of \(length) bytes, over \(options.maximumMessageSize)"))
    }

    /// The connection attempt ended: wakes ``waitUntilConnected(timeout:)``.
    private func connectFinished(_ outcome: Result<Void, PJSUAError>) {
        let waiter = state.withLockedValue { (state) -> CheckedContinuation<Void, Error>? in
            guard state.connectOutcome == nil else { return nil }
            state.connectOutcome = outcome
            defer { state.connectWaiter = nil }
            return state.connectWaiter
        }
        waiter?.resume(with: outcome.mapError { $0 as Error })
    }

    private func handle(_ message: TwilioMediaStreams.AgentMessage) {
        switch message {
        case let .media(payload):
            play(payload)
        case let .mark(name):
            let outcome: Int32 = state.withLockedValue { state in
                state.lastMark += 1
                state.markNames[state.lastMark] = name
                let result = cpjsua_frame_buffer_mark(writer, state.lastMark)
                if result != 0 { state.markNames[state.lastMark] = nil }
                return result
            }
            if outcome == -2 { handle(.invalid(.tooManyMarks, detail: "mark \"\(name.prefix(64))\" with \(CPJSUA_FRAME_MAX_MARKS) waiting")) }
        case .clear:
            state.withLockedValue { $0.flushedInClear = 0 }
            let discarded = cpjsua_frame_buffer_flush(writer)
            let marks = state.withLockedValue { state in
                state.clearedSamples += discarded
                return state.flushedInClear
            }
            eventsContinuation.yield(.cleared(.init(discardedMilliseconds: Int(discarded / 8), marksCleared: marks)))
        case let .invalid(reason, detail):
            let count = state.withLockedValue { state in
                state.invalidMessages += 1
                return state.invalidMessages
            }
            eventsContinuation.yield(.invalidMessage(.init(reason: reason, detail: detail, count: count)))
        }
    }

    /// An OpenAI Realtime service's message (the link's callback: one at a time).
    private func handle(_ message: OpenAIRealtime.ServiceMessage, on link: OpaquePointer) {
        switch message {
        case let .audio(item, payload):
            guard !state.withLockedValue({ $0.interruptedItems.contains(item) }) else { return }
            play(payload, item: item)
        case let .transcript(text):
            eventsContinuation.yield(.realtime(.transcript(text)))
        case .speechStarted:
            eventsContinuation.yield(.realtime(.speechStarted))
            bargeIn(on: link)
        case .speechStopped:
            eventsContinuation.yield(.realtime(.speechStopped))
        case .responseStarted:
            state.withLockedValue { $0.responding = true }
            eventsContinuation.yield(.realtime(.responseStarted))
        case .responseDone:
            state.withLockedValue { $0.responding = false }
            eventsContinuation.yield(.realtime(.responseDone))
        case let .error(error):
            eventsContinuation.yield(.realtime(.error(error)))
        case .ignored:
            break
        case let .invalid(reason, detail):
            handle(.invalid(reason, detail: detail))
        }
    }

    /// The caller started speaking: the answer still queued goes at once, and the service is
    /// told how much of the interrupted item the caller heard (`conversation.item.truncate`),
    /// so that its conversation holds only that.
    private func bargeIn(on link: OpaquePointer) {
        let discarded = cpjsua_frame_buffer_flush(writer)
        let truncation: (item: String, milliseconds: Int)? = state.withLockedValue { state in
            state.clearedSamples += discarded
            // The queue's position when it was flushed: everything written, less what went.
            let reached = state.writtenSamples - discarded
            guard discarded > 0 || state.responding, let current = state.answerItems.last(where: { $0.start <= reached }) else { return nil }
            state.interruptedItems.insert(current.id)
            state.answerItems.removeAll()
            let heard = min(reached, current.end) - current.start
            return (current.id, Int(heard / samplesPerMillisecond))
        }
        guard let truncation else { return }
        eventsContinuation.yield(.cleared(.init(discardedMilliseconds: Int(discarded / samplesPerMillisecond), marksCleared: 0)))
        if !truncation.item.isEmpty {
            send(text: OpenAIRealtime.truncate(item: truncation.item, audioEndMilliseconds: truncation.milliseconds), on: link)
        }
    }

    /// Decodes an OpenAI Realtime audio delta (base64 PCM16 24 kHz) into the writer's queue,
    /// and notes where `item`'s audio lies in it.
    private func play(_ payload: Substring, item: String) {
        let (bytes, decoded) = decodeAudio(payload, samplesPerFourCharacters: 1.5, cpjsua_pcm16_base64_decode) { samples, count in
            let kept = min(count, capacitySamples)
            state.withLockedValue { state in
                // Under the lock with the write, so that positions follow the queue's order.
                guard cpjsua_frame_buffer_write(writer, samples + (count - kept), UInt32(kept), 1) == 1 else { return }
                let start = state.writtenSamples
                state.writtenSamples += UInt64(kept)
                state.clearedSamples += UInt64(count - kept)
                if let last = state.answerItems.last, last.id == item {
                    state.answerItems[state.answerItems.count - 1].end = state.writtenSamples
                } else {
                    state.answerItems.append((item, start, state.writtenSamples))
                    if state.answerItems.count > 64 { state.answerItems.removeFirst() }
                }
            }
        }
        if decoded < 0 { handle(.invalid(.badPayload, detail: "an audio delta that is not base64 PCM16 (\(bytes) bytes)")) }
    }

    /// Decodes a `media` payload into the writer's queue; beyond the queue's capacity the oldest
    /// audio goes (the newest is what the agent wants heard now).
    private func play(_ payload: Substring) {
        let (bytes, decoded) = decodeAudio(payload, samplesPerFourCharacters: 3, cpjsua_ulaw_base64_decode) { samples, count in
            let kept = min(count, capacitySamples)
            _ = cpjsua_frame_buffer_write(writer, samples + (count - kept), UInt32(kept), 1)
            if kept < count { state.withLockedValue { $0.clearedSamples += UInt64(count - kept) } }
        }
        if decoded < 0 { handle(.invalid(.badPayload, detail: "a media payload that is not base64 (\(bytes) bytes)")) }
    }

    /// Decodes base64 audio with one of CPJSUASupport's decoders into a temporary buffer and
    /// hands the samples to `take` (not called for an empty or invalid payload). Returns the
    /// payload's length and the decoder's count (negative: not valid base64 of that encoding).
    private func decodeAudio(
        _ payload: Substring, samplesPerFourCharacters: Double,
        _ decoder: (UnsafePointer<CChar>, UInt32, UnsafeMutablePointer<Int16>, UInt32) -> Int32,
        take: (UnsafeMutablePointer<Int16>, Int) -> Void
    ) -> (bytes: Int, decoded: Int32) {
        var text = String(payload)
        let bytes = text.utf8.count
        guard bytes > 0 else { return (0, 0) }
        let capacity = Int(Double(bytes / 4) * samplesPerFourCharacters) + 3
        let decoded: Int32 = text.withUTF8 { base64 in
            guard let base = base64.baseAddress else { return -1 }
            return withUnsafeTemporaryAllocation(of: Int16.self, capacity: capacity) { samples in
                guard let out = samples.baseAddress else { return -1 }
                let count = base.withMemoryRebound(to: CChar.self, capacity: bytes) {
                    decoder($0, UInt32(bytes), out, UInt32(capacity))
                }
                if count > 0 { take(out, Int(count)) }
                return count
            }
        }
        return (bytes, decoded)
    }

    // MARK: The writer port's callbacks (clock thread, or the thread of a `clear`)

    fileprivate func writerEvent(_ event: Int32, mark id: UInt64, played: UInt64) {
        let cleared: Bool
        switch Int(event) {
        case CPJSUA_FRAME_EVENT_MARK_PLAYED: cleared = false
        case CPJSUA_FRAME_EVENT_MARK_FLUSHED: cleared = true
        default: return
        }
        let name: String? = state.withLockedValue { state in
            guard let name = state.markNames.removeValue(forKey: id) else { return nil }
            if cleared { state.flushedInClear += 1 }
            if let link = state.link, state.phase == .streaming {
                send(TwilioMediaStreams.mark(streamSID: streamSID, name: name, cleared: cleared), on: link)
            }
            return name
        }
        guard let name else { return }
        let report = Stream.MarkReport(name: name, playedMilliseconds: Int(played / 8))
        eventsContinuation.yield(cleared ? .markCleared(report) : .markPlayed(report))
    }
}

extension StreamBridge {
    /// How a `wss://` agent's certificate is verified: ``Stream/Options/tls`` or the engine's
    /// `PJSUA.Configuration.tls` when it names authorities, else the system's trust store.
    struct Trust: Sendable, Hashable {
        var caFile: String?
        var caDirectory: String?
        var verify: Bool

        /// The system's store, where the platform keeps one as files (Debian's ca-certificates);
        /// elsewhere nil, and the TLS backend's default applies.
        static let systemFile = "/etc/ssl/certs/ca-certificates.crt"
        static let systemDirectory = "/etc/ssl/certs"

        init(_ tls: PJSUA.TLSConfiguration) {
            verify = tls.verifyServer
            if tls.caFile != nil || tls.caDirectory != nil {
                caFile = tls.caFile
                caDirectory = tls.caDirectory
            } else {
                let files = FileManager.default
                caFile = files.fileExists(atPath: Self.systemFile) ? Self.systemFile : nil
                caDirectory = files.fileExists(atPath: Self.systemDirectory) ? Self.systemDirectory : nil
            }
        }
    }
}

/// The link's notify function: `ctx` is the bridge, kept alive by the link.
private let linkNotify: cpjsua_ws_notify = { ctx, link, event, status, data, length in
    guard let ctx else { return }
    let bridge = Unmanaged<StreamBridge>.fromOpaque(ctx).takeUnretainedValue()
    if event == CPJSUA_WS_EVENT_OVERSIZED {
        bridge.oversized(length: length, binary: status == CPJSUA_WS_EVENT_BINARY)
        return
    }
    let bytes = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : Int(length))
    bridge.linkEvent(link, event, status, bytes)
}

/// The writer port's notify function: `ctx` is the bridge, kept alive by the port.
private let writerNotify: cpjsua_frame_notify = { ctx, event, _, _, value, played in
    guard let ctx else { return }
    Unmanaged<StreamBridge>.fromOpaque(ctx).takeUnretainedValue().writerEvent(event, mark: value, played: played)
}

/// Releases a retained bridge: the link's when its last reference goes, the writer port's when
/// the bridge destroys it.
private let bridgeRelease: @convention(c) (UnsafeMutableRawPointer?) -> Void = { retained in
    guard let retained else { return }
    Unmanaged<StreamBridge>.fromOpaque(retained).release()
}
