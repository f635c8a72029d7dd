import Foundation
import PJSIP

/// RFC 4733 digit reception for `on_dtmf_event` below.
/// Like every callback, they run on pjsua's threads, hold no reference to the actor, never
/// block, publish to the current run and return.
enum DTMFReception {
    /// An RFC 4733 digit whose start arrived and whose end has not (yet): kept in the call's
    /// record (``CallRecord/pendingDigit``).
    struct PendingDigit {
        let digit: Character
        let timestamp: UInt32
        var durationMilliseconds: UInt32
    }

    /// One RFC 4733 indication. A digit is published once: when it ends (with its total
    /// duration), or, if its end never arrives, when the next digit starts or the call ends.
    /// pjmedia reports an event's end once; a digit whose start was lost still counts.
    static func received(_ call: PJSUA.Call, digit: Character, timestamp: UInt32, durationMilliseconds: UInt32, isEnd: Bool,
                         in run: EngineRun) {
        let indication = PendingDigit(digit: digit, timestamp: timestamp, durationMilliseconds: durationMilliseconds)
        let flushed: PendingDigit? = run.withCall(call) { record in
            defer { record.pendingDigit = isEnd ? nil : indication }
            guard let current = record.pendingDigit, current.digit != digit || current.timestamp != timestamp else { return nil }
            return current
        }
        if let flushed { publish(flushed, of: call, in: run) }
        if isEnd { publish(indication, of: call, in: run) }
    }

    static func publish(_ pending: PendingDigit, of call: PJSUA.Call, in run: EngineRun) {
        let duration: Duration? = pending.durationMilliseconds == 0 ? nil : .milliseconds(Int(pending.durationMilliseconds))
        run.publish(.dtmf(call: call, digit: PJSUA.DTMFDigit(digit: pending.digit, method: .rfc4733, duration: duration)))
    }
}

/// `on_dtmf_event`: RFC 4733 indications from the stream (start, updates, end) and SIP INFO
/// digits (one indication, flagged as the end). Installed instead of `on_dtmf_digit2`, which
/// pjsua calls at an RFC 4733 digit's start with no duration.
func onDTMFEvent(_ callID: pjsua_call_id, _ event: UnsafePointer<pjsua_dtmf_event>?) {
    guard let event = event?.pointee, let scalar = Unicode.Scalar(UInt32(event.digit)), let run = EngineRun.current else { return }
    let call = callHandle(callID)
    let digit = Character(scalar)
    let unknown = event.duration == UInt32(bitPattern: -1)
    if event.method == PJSUA_DTMF_METHOD_SIP_INFO {
        // pjsua reports 0 for an INFO body without a Duration line.
        let duration: Duration? = unknown || event.duration == 0 ? nil : .milliseconds(Int(event.duration))
        run.publish(.dtmf(call: call, digit: PJSUA.DTMFDigit(digit: digit, method: .sipInfo, duration: duration)))
        return
    }
    DTMFReception.received(call, digit: digit, timestamp: event.timestamp, durationMilliseconds: unknown ? 0 : event.duration,
                            isEnd: event.flags & UInt32(PJMEDIA_STREAM_DTMF_IS_END.rawValue) != 0, in: run)
}
