import Foundation
import PJSIP

/// In-band DTMF reception: a media port of our own on the conference bridge, fed with what the
/// call hears, running ``DTMFDetector`` (pjmedia detects no DTMF in audio itself, and pjsua has
/// no in-band method).
///
/// Ports are attached, re-attached after a media change, and removed on the engine's executor
/// thread only, from the same step as ``AudioWiring`` (``EngineRun/scheduleRewire(_:)``).
/// The bridge's clock thread calls the port's `put_frame`, publishes each digit and returns.
enum InbandDTMF {
    /// One call's detector port and its bridge slot (the port's pool goes with the port).
    struct Attachment {
        let port: UnsafeMutablePointer<pjmedia_port>
        let slot: pjsua_conf_port_id
    }

    /// Attaches a detector to `call` (or re-connects it to the call's current slot) when the run
    /// detects in-band DTMF; the detector is kept in the call's record
    /// (``CallRecord/inbandDetector``) and leaves with it. Executor thread only.
    static func wire(_ call: PJSUA.Call, in run: EngineRun) {
        guard run.detectsInbandDTMF else { return }
        guard isLive(call), let source = withCallInfo(call.slot, { info in activeAudioSlots(info).first }) ?? nil else { return }
        if let existing = run.record(of: call, { $0.inbandDetector }) ?? nil {
            pjsua_conf_connect(source, existing.slot)
            return
        }
        guard let attachment = makePort(for: call, in: run) else { return }
        run.withStateUnchecked { $0.calls[call, default: CallRecord()].inbandDetector = attachment }
        pjsua_conf_connect(source, attachment.slot)
    }

    /// Takes a detector off the bridge and drops our reference: the port, its detector and its
    /// pool go once the bridge has applied the removal (``BridgePortLifetime``). Executor
    /// thread only.
    static func retire(_ attachment: Attachment) {
        pjsua_conf_remove_port(attachment.slot)
        pjmedia_port_destroy(attachment.port)
    }

    /// A port at the bridge's clock rate and frame size whose `put_frame` runs a detector.
    private static func makePort(for call: PJSUA.Call, in run: EngineRun) -> Attachment? {
        var bridge = pjsua_conf_port_info()
        // The bridge runs at one of MediaSettings' clock rates, which the detector takes.
        guard pjsua_conf_get_port_info(0, &bridge) == pjSuccess, let detector = try? DTMFDetector(sampleRate: Int(bridge.clock_rate)),
              let pool = pjsua_pool_create("dtmf-detect", 512, 512) else { return nil }
        guard let raw = pj_pool_zalloc(pool, MemoryLayout<pjmedia_port>.size) else {
            pj_pool_release(pool)
            return nil
        }
        let port = raw.bindMemory(to: pjmedia_port.self, capacity: 1)
        var name = pj_str_t()
        _ = "dtmf-detect".withCString { text in pj_strdup2_with_null(pool, &name, text) }
        let channels = max(bridge.channel_count, 1)
        // 'DTMD': any signature distinct from pjmedia's own port classes.
        pjmedia_port_info_init(&port.pointee.info, &name, 0x444D_5444, bridge.clock_rate, 1, 16, bridge.samples_per_frame / channels)
        port.pointee.port_data.pdata = Unmanaged.passRetained(DetectorBox(call: call, detector: detector, run: run)).toOpaque()
        port.pointee.put_frame = detectorPutFrame
        port.pointee.get_frame = detectorGetFrame
        port.pointee.on_destroy = detectorDestroy
        // On failure the port was destroyed (its box released) and the pool released.
        guard BridgePortLifetime.attach(port, pool: pool) == pjSuccess else { return nil }
        var slot: pjsua_conf_port_id = -1
        guard pjsua_conf_add_port(pool, port, &slot) == pjSuccess else {
            pjmedia_port_destroy(port)  // the port's last reference: box and pool go with it
            return nil
        }
        return Attachment(port: port, slot: slot)
    }
}

/// A call's detector state, touched only by the bridge's clock thread inside `put_frame` (the
/// bridge calls a port's `put_frame` from one thread, one frame at a time) and freed by the
/// port's `on_destroy`; with the run its digits are published to (weak: the run keeps the port
/// in the call's record; set in `init` only).
private final class DetectorBox {
    let call: PJSUA.Call
    var detector: DTMFDetector
    private(set) weak var run: EngineRun?

    init(call: PJSUA.Call, detector: DTMFDetector, run: EngineRun) {
        self.call = call
        self.detector = detector
        self.run = run
    }
}

private func detectorPutFrame(_ port: UnsafeMutablePointer<pjmedia_port>?, _ frame: UnsafeMutablePointer<pjmedia_frame>?) -> pj_status_t {
    guard let port, let data = port.pointee.port_data.pdata else { return pjSuccess }
    let box = Unmanaged<DetectorBox>.fromOpaque(data).takeUnretainedValue()
    let detection: DTMFDetector.Detection?
    if let frame, frame.pointee.type == PJMEDIA_FRAME_TYPE_AUDIO, let buffer = frame.pointee.buf, frame.pointee.size >= 2 {
        let samples = UnsafeBufferPointer(start: buffer.assumingMemoryBound(to: Int16.self), count: Int(frame.pointee.size) / 2)
        detection = box.detector.process(samples)
    } else {
        // Silence (the bridge sends no audio when nothing is heard) ends a digit.
        let frameSamples = Int(port.pointee.info.fmt.det.aud.frame_time_usec) * box.detector.sampleRate / 1_000_000
        detection = box.detector.process(repeatElement(Int16(0), count: max(frameSamples, 1)))
    }
    if let detection {
        let digit = PJSUA.DTMFDigit(digit: detection.digit, method: .inband, duration: detection.duration)
        box.run?.publish(.dtmf(call: box.call, digit: digit))
    }
    return pjSuccess
}

private func detectorGetFrame(_ port: UnsafeMutablePointer<pjmedia_port>?, _ frame: UnsafeMutablePointer<pjmedia_frame>?) -> pj_status_t {
    frame?.pointee.type = PJMEDIA_FRAME_TYPE_NONE
    frame?.pointee.size = 0
    return pjSuccess
}

private func detectorDestroy(_ port: UnsafeMutablePointer<pjmedia_port>?) -> pj_status_t {
    guard let port, let data = port.pointee.port_data.pdata else { return pjSuccess }
    port.pointee.port_data.pdata = nil
    Unmanaged<DetectorBox>.fromOpaque(data).release()
    return pjSuccess
}
