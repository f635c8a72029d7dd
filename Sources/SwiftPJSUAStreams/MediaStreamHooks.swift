import CPJSUAStreams
import PJSIP
@_spi(MediaHooks) import SwiftPJSUA

extension PJSUA.Configuration {
    /// Whether calls can be streamed to WebSocket agents (``SwiftPJSUA/PJSUA/stream(_:to:protocol:options:)``);
    /// off by default.
    ///
    /// On, every call's media transport is wrapped in a tap that can pass the caller's RTP
    /// straight to the call's agent (``SwiftPJSUA/PJSUA/MediaStream/Options/passesCallerAudioThrough``),
    /// and every audio stream's port in a pace that can send the agent's audio into the call as
    /// it arrives (``SwiftPJSUA/PJSUA/MediaStream/Options/sendsAgentAudioOnArrival``): pjsua's
    /// `on_create_media_transport` and `on_stream_created2`. A call that is not streamed passes
    /// through both without a lock. Off, no call's media passes through code of this package,
    /// and ``SwiftPJSUA/PJSUA/stream(_:to:protocol:options:)`` throws `PJSUAError.Code.unsupported`.
    public var enablesMediaStreams: Bool {
        get { mediaHooks.contains { $0.name == MediaStreamHooks.name } }
        set {
            mediaHooks.removeAll { $0.name == MediaStreamHooks.name }
            if newValue { mediaHooks.append(MediaStreamHooks.hooks) }
        }
    }
}

/// The tap (MediaTap.c) and the pace (MediaPace.c), as the engine installs them.
enum MediaStreamHooks {
    static let name = "SwiftPJSUAStreams"

    static let hooks = PJSUA.MediaHooks(
        name: name,
        install: { config in
            withUnsafeMutablePointer(to: &config) { pointer in
                cpjsua_media_tap_install(pointer)
                cpjsua_media_pace_install(pointer)
            }
        },
        releaseAll: {
            cpjsua_media_tap_release_all()  // media taps whose transport's group lock outlived pjsua
            cpjsua_media_pace_release_all()  // paced wrappers whose group lock outlived pjsua
        })
}
