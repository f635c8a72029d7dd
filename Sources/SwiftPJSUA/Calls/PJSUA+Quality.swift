import PJSIP

extension PJSUA {
    /// The quality of a call's audio now: RTP both ways, RTCP round trip, estimated MOS.
    ///
    /// Drives `pjsua_call_get_stream_info()` and `pjsua_call_get_stream_stat()`.
    /// - Throws: ``PJSUAError/Code/mediaNotActive`` when the call has no audio stream.
    public func quality(of call: Call) throws -> CallQuality {
        let slot = try resolve(call)
        guard let index = try withLiveCallInfo(call, { info in audioMedia(info).first.map { UInt32($0.index) } }) else {
            throw PJSUAError(.mediaNotActive, "\(call) has no audio stream")
        }
        var stream = pjsua_stream_info()
        try check(pjsua_call_get_stream_info(slot, index, &stream), "pjsua_call_get_stream_info")
        guard stream.type == PJMEDIA_TYPE_AUDIO else {
            throw PJSUAError(.mediaNotActive, "\(call) has no audio stream")
        }
        var stat = pjsua_stream_stat()
        try check(pjsua_call_get_stream_stat(slot, index, &stat), "pjsua_call_get_stream_stat")
        let format = stream.info.aud.fmt
        let rtt = stat.rtcp.rtt
        var quality = CallQuality(
            codec: "\(String(pj: format.encoding_name))/\(format.clock_rate)",
            sent: RTPStatistics(stat.rtcp.tx), received: RTPStatistics(stat.rtcp.rx),
            roundTripTime: rtt.n > 0 ? .microseconds(Int(rtt.mean)) : nil,
            lastRoundTripTime: rtt.n > 0 ? .microseconds(Int(rtt.last)) : nil)
        let codec = stream.info.aud.param?.pointee.info
        quality.jitterBuffer = JitterBufferStatistics(stat.jbuf, framePtime: codec.map { Double($0.frm_ptime) / Double(max(1, $0.frm_ptime_denum)) } ?? 20)
        if Self.supportsVideo, withCallInfo(slot, { hasActiveVideo($0) }) == true {
            quality.video = try? videoStatistics(of: call)
        }
        return quality
    }

    /// Starts, changes or (with nil) stops the periodic ``Event/stats(call:quality:)`` event,
    /// published for every call with active audio. At least 100 ms, at most one hour.
    ///
    /// The figures are read on the engine's executor thread, like every engine call; the
    /// timer itself is a task that only sleeps and hops onto the actor.
    public func setStatisticsInterval(_ interval: Duration?) throws {
        try requireRunning()
        if let interval { try Self.validateStatisticsInterval(interval) }
        startStatistics(every: interval)
    }

    static func validateStatisticsInterval(_ interval: Duration) throws(PJSUAError) {
        guard interval >= .milliseconds(100), interval <= .seconds(3600) else {
            throw PJSUAError(.invalidArgument, "statistics interval \(interval) is outside 100 ms...1 h")
        }
    }

    func startStatistics(every interval: Duration?) {
        guard let run else { return }
        run.withState { $0.callMedia.statisticsTask }?.cancel()
        run.withState { $0.callMedia.statisticsTask = nil }
        guard let interval else { return }
        let task = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled, let self else { return }
                await self.publishStatistics()
            }
        }
        run.withState { $0.callMedia.statisticsTask = task }
    }

    /// Publishes the quality of every call whose audio is active.
    private func publishStatistics() {
        guard phase == .running, let slots = try? callSlots() else { return }
        for slot in slots {
            let call = callHandle(slot)
            let active = withCallInfo(slot) { info in !activeAudioSlots(info).isEmpty } ?? false
            guard active, let quality = try? quality(of: call) else { continue }
            hub.publish(.stats(call: call, quality: quality))
        }
    }
}

extension PJSUA.JitterBufferStatistics {
    /// The figures of `pjmedia_jb_state`, whose frames are the decoder's (`framePtime`
    /// milliseconds each: 10 for G.711, whose 20 ms packets hold two) and whose delays are in
    /// milliseconds (0 before a frame waited).
    init(_ state: pjmedia_jb_state, framePtime: Double) {
        let frames = { (count: UInt32) in Duration.microseconds(Int((Double(count) * framePtime * 1000).rounded())) }
        let waited = state.max_delay > 0
        self.init(buffered: frames(state.size),
                  averageDelay: waited ? .milliseconds(Int(state.avg_delay)) : nil,
                  maxDelay: waited ? .milliseconds(Int(state.max_delay)) : nil,
                  emptyReads: Int(state.empty), lost: frames(state.lost), discarded: frames(state.discard))
    }
}

extension PJSUA.RTPStatistics {
    /// The figures of one direction of `pjmedia_rtcp_stat`.
    init(_ stat: pjmedia_rtcp_stream_stat) {
        let jitter = stat.jitter
        self.init(packets: Int(stat.pkt), bytes: Int(stat.bytes), packetsLost: Int(stat.loss), packetsDiscarded: Int(stat.discard),
                  packetsReordered: Int(stat.reorder), packetsDuplicated: Int(stat.dup),
                  meanJitter: jitter.n > 0 ? .microseconds(Int(jitter.mean)) : nil,
                  maxJitter: jitter.n > 0 ? .microseconds(Int(jitter.max)) : nil)
    }
}
