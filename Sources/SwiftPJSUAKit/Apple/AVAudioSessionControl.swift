#if canImport(AVFoundation) && os(iOS)
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
