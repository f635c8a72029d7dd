// Stand-in for AVFoundation: the adapters only use AVAudioSession, which AVFoundation re-exports
// from AVFAudio (avfaudio/avaudiosession: "Framework AVFAudio").
@_exported import AVFAudio
