import CPJSUASupport
import PJSIP

/// What the engine keeps for one call beyond pjsua's own: one record per call in
/// ``EngineRun/State/calls``, made when something is first kept for the call and removed in one
/// place, ``EngineRun/endCall(_:)``, when the call ends (or all of them at teardown).
struct CallRecord {
    /// Whether the call's microphone path (sound device -> call) stays disconnected; read by
    /// ``AudioWiring`` whenever it rewires the call.
    var isMuted = false
    /// The Call-ID and remote party of an incoming call, read whole from its INVITE.
    var identity: InviteIdentity?
    /// Whether the call is hung up when its transfer reports a 2xx final status.
    var hangsUpOnTransferSuccess = false
    /// An RFC 4733 digit whose start arrived and whose end has not (yet).
    var pendingDigit: DTMFReception.PendingDigit?
    /// The video options asked for at make-call or answer time, and whether they were applied.
    var videoOptions: PJSUA.VideoOptions?
    var videoOptionsApplied = false
    /// The counting tap on the call's decoding port, and the frames counted by taps detached
    /// before it.
    var videoCounter: VideoWiring.Tap?
    var videoFramesCounted = 0
    /// The app's subscriptions to the call's decoded pictures.
    var videoSubscriptions: [PJSUA.VideoSubscription: VideoWiring.Subscription] = [:]
    /// The in-band DTMF detector's port on the bridge.
    var inbandDetector: InbandDTMF.Attachment?
    /// The in-band DTMF sender (a tone generator feeding the call).
    var inbandSender: ToneSource?
    /// The app's frame ports on the bridge (readers and writers), by channel.
    var frameChannels: [ObjectIdentifier: (channel: FrameChannel, slot: Int32)] = [:]
    /// What packages built on the engine keep for the call, one per type
    /// (``PJSUA/CallMediaAttachment``: SwiftPJSUAStreams' media stream).
    var attachments: [ObjectIdentifier: any PJSUA.CallMediaAttachment] = [:]

    /// Takes what the record put on the bridge off it: attachments' ports, the detector, the
    /// DTMF sender, frame ports and video taps. Executor thread only, while pjsua exists.
    func releaseMedia(in run: EngineRun) {
        for attachment in attachments.values { attachment.callEnded() }
        if let detector = inbandDetector { InbandDTMF.retire(detector) }
        inbandSender?.destroy()
        for (channel, _) in frameChannels.values {
            channel.close()
            channel.detach()
        }
        if let counter = videoCounter { cpjsua_video_tap_detach(counter.pointer) }
        videoSubscriptions.values.forEach(VideoWiring.end)
    }
}
