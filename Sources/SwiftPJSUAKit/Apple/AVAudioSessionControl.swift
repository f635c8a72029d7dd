// iOS only (CallKit, PushKit and AVAudioSession are iOS APIs here). SWIFTPJSUA_APPLE_STANDINS is
// set only by scripts/check-apple-code.sh, which compiles this file on Linux against stand-ins of
// Apple's declarations (Tests/AppleSDKStandIns): SwiftPM itself never sees it.
#if canImport(AVFoundation) && (os(iOS) || SWIFTPJSUA_APPLE_STANDINS)
import AVFoundation

/// The audio-session adapter: configures `AVAudioSession` for a voice call (play-and-record,
/// voice-chat mode, which also routes to Bluetooth hands-free devices). CallKit activates and
/// deactivates the session itself; this never does.
public struct AVAudioSessionControl: AudioSessionControl {
    /// Creates the adapter for the shared audio session.
    public init() {}

    /// Sets the play-and-record category in voice-chat mode.
    public func configureForVoiceCall() async throws {
        try AVAudioSession.sharedInstance().setCategory(.playAndRecord, mode: .voiceChat, options: [])
    }
}
#endif
