import PJSIP

extension PJSUA {
    /// Sends DTMF digits on a call: 0-9, `*`, `#`, A-D (a-d accepted), at most 64 at once (32
    /// in-band, the tone generator's queue).
    ///
    /// Drives `pjsua_call_send_dtmf()` for ``DTMFMethod/rfc4733`` and ``DTMFMethod/sipInfo``;
    /// for ``DTMFMethod/inband``, a pjmedia tone generator connected to the call
    /// (`pjmedia_tonegen_play_digits()`), queued behind digits still sounding.
    /// - Parameters:
    ///   - digits: the digits, sent in order.
    ///   - call: a call with active audio (SIP INFO needs only a confirmed dialog).
    ///   - method: how to send them; RFC 4733 telephone events by default.
    ///   - duration: how long each digit lasts, 40 ms...5 s (160 ms by default); in-band digits
    ///     are followed by as long a silence, at least 60 ms.
    public func sendDTMF(_ digits: String, on call: Call, method: DTMFMethod = .rfc4733, duration: Duration = .milliseconds(160)) throws {
        let slot = try resolve(call)
        try Self.validateDTMF(digits, limit: method == .inband ? 32 : 64)
        guard duration >= .milliseconds(40), duration <= .seconds(5) else {
            throw PJSUAError(.invalidArgument, "DTMF duration \(duration) is outside 40 ms...5 s")
        }
        switch method {
        case .rfc4733, .sipInfo:
            try withCStringArena { arena throws(PJSUAError) in
                var parameters = pjsua_call_send_dtmf_param()
                pjsua_call_send_dtmf_param_default(&parameters)
                parameters.method = method == .rfc4733 ? PJSUA_DTMF_METHOD_RFC2833 : PJSUA_DTMF_METHOD_SIP_INFO
                parameters.duration = UInt32(duration.wholeMilliseconds)
                parameters.digits = arena.pj(digits.uppercased())
                try check(pjsua_call_send_dtmf(slot, &parameters), "cannot send DTMF (\(method)) on \(call)")
            }
        case .inband:
            let port = try audioPort(of: call)
            releaseFinishedTones()
            let run = try requireRunning()
            let source: ToneSource
            if let existing = run.record(of: call, { $0.inbandSender }) ?? nil {
                source = existing
            } else {
                source = try ToneSource(name: "dtmf", call: call)
                run.withStateUnchecked { $0.calls[call, default: CallRecord()].inbandSender = source }
            }
            // The call's conference slot changes when a re-INVITE rebuilds its stream.
            try source.connect(to: port)
            try source.play(digits: digits, on: duration, off: max(duration, .milliseconds(60)))
        }
    }

    /// Rejects anything that is not 1...`limit` DTMF digits.
    static func validateDTMF(_ digits: String, limit: Int) throws(PJSUAError) {
        guard !digits.isEmpty, digits.count <= limit, digits.uppercased().allSatisfy({ dtmfDigits.contains($0) }) else {
            throw PJSUAError(.invalidArgument, "DTMF digits \(Validation.quoted(digits)) must be 1...\(limit) of 0-9, *, #, A-D")
        }
    }
}
