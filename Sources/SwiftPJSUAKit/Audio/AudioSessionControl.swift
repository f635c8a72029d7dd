/// The platform audio session (`AVAudioSession` on Apple platforms; a fake in tests).
public protocol AudioSessionControl: Sendable {
    /// Configures the session for a voice call (play-and-record, voice-chat mode) before CallKit
    /// activates it; never activates it itself.
    func configureForVoiceCall() async throws
}
