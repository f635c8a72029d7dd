// Stand-in for the AVFAudio slice SwiftPJSUAKit uses; see ../README.md.
import Foundation

/// avfaudio/avaudiosession (M: conformances include Sendable; iOS 3.0+).
open class AVAudioSession: NSObject, @unchecked Sendable {
    // @unchecked Sendable: mirrors the SDK's declared conformance; the stand-in has no state, so
    // there is nothing to lock.

    /// avfaudio/avaudiosession/sharedinstance()
    open class func sharedInstance() -> AVAudioSession { AVAudioSession() }

    /// avfaudio/avaudiosession/setcategory(_:mode:options:) (iOS 10.0+)
    open func setCategory(_ category: AVAudioSession.Category, mode: AVAudioSession.Mode,
                          options: AVAudioSession.CategoryOptions = []) throws {}

    /// avfaudio/avaudiosession/setactive(_:options:) (iOS 6.0+)
    open func setActive(_ active: Bool, options: AVAudioSession.SetActiveOptions = []) throws {}
}

extension AVAudioSession {
    /// avfaudio/avaudiosession/category-swift.struct
    public struct Category: Hashable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// avfaudio/avaudiosession/category-swift.struct/playandrecord
        public static let playAndRecord = Category(rawValue: "AVAudioSessionCategoryPlayAndRecord")
    }

    /// avfaudio/avaudiosession/mode-swift.struct
    public struct Mode: Hashable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// avfaudio/avaudiosession/mode-swift.struct/voicechat
        public static let voiceChat = Mode(rawValue: "AVAudioSessionModeVoiceChat")
    }

    /// avfaudio/avaudiosession/categoryoptions-swift.struct
    public struct CategoryOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }

        /// avfaudio/avaudiosession/categoryoptions-swift.struct/allowbluetoothhfp
        public static var allowBluetoothHFP: AVAudioSession.CategoryOptions { CategoryOptions(rawValue: 0x4) }
    }

    /// avfaudio/avaudiosession/setactiveoptions
    public struct SetActiveOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }

        /// avfaudio/avaudiosession/setactiveoptions/notifyothersondeactivation
        public static var notifyOthersOnDeactivation: AVAudioSession.SetActiveOptions { SetActiveOptions(rawValue: 1) }
    }
}
