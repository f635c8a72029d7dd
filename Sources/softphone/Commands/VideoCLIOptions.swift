import SwiftPJSUA

/// `--video` (the call carries video both ways), `--video-codecs VP8,H264` (only these video
/// codecs, in this order) and `--video-device N|colorbar` (the capture device; by default the
/// first camera, or pjmedia's colour-bar generator on a machine without one).
struct VideoCLIOptions {
    static let valued: Set<String> = ["video-codecs", "video-device", "video-size", "video-fps", "video-kbps"]
    static let flags: Set<String> = ["video"]
    static let usage = """
      --video offers (call) or accepts (answer) a video stream both ways; --video-codecs VP8,H264 keeps only
      those video codecs, in that order; --video-device N (an index from the "videoDevice" lines) or
      colorbar picks the capture device (default: the first camera, else the colour-bar test pattern);
      --video-size WxH, --video-fps N and --video-kbps N set what every enabled video codec encodes.
    """

    let enabled: Bool
    let codecs: [String]?
    /// The device asked for: an index, or "colorbar".
    let device: String?
    let size: PJSUA.VideoSize?
    let frameRate: Int?
    let kilobits: Int?

    init(_ arguments: Arguments) throws(UsageError) {
        enabled = arguments.has("video")
        if let list = arguments.string("video-codecs") {
            let ids = list.split(separator: ",").map(String.init)
            guard !ids.isEmpty, ids.allSatisfy({ !$0.isEmpty && $0.count <= 64 }) else {
                throw UsageError("--video-codecs takes a comma-separated list of video codec names, e.g. VP8,H264")
            }
            codecs = ids
        } else {
            codecs = nil
        }
        device = arguments.string("video-device")
        if let device, device != "colorbar", Int(device) == nil {
            throw UsageError("--video-device must be a device index or colorbar, got '\(device)'")
        }
        if let text = arguments.string("video-size") {
            let parts = text.lowercased().split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2 else { throw UsageError("--video-size must be WIDTHxHEIGHT, e.g. 640x480, got '\(text)'") }
            size = PJSUA.VideoSize(width: parts[0], height: parts[1])
        } else {
            size = nil
        }
        frameRate = try arguments.integer("video-fps", in: 1...60)
        kilobits = try arguments.integer("video-kbps", in: 10...20_000)
        if !enabled && (codecs != nil || device != nil || size != nil || frameRate != nil || kilobits != nil) {
            throw UsageError("--video-codecs, --video-device, --video-size, --video-fps and --video-kbps need --video")
        }
    }

    /// Applies the codec list to a started engine, lists the video devices and returns the
    /// options of the video calls (nil without --video).
    func apply(to phone: PJSUA, output: Output) async throws -> PJSUA.VideoOptions? {
        guard enabled else { return nil }
        if let codecs { try await phone.useVideoCodecs(codecs) }
        if size != nil || frameRate != nil || kilobits != nil {
            for codec in try await phone.videoCodecs() where codec.priority > 0 {
                var settings = try await phone.videoCodecSettings(codec.id)
                if let size { settings.size = size }
                if let frameRate { settings.frameRate = frameRate }
                if let kilobits {
                    settings.averageBitrate = kilobits * 1000
                    settings.maxBitrate = max(settings.maxBitrate, kilobits * 1000)
                }
                try await phone.setVideoCodecSettings(codec.id, to: settings)
            }
        }
        let devices = try await phone.videoDevices()
        for device in devices {
            output.emit("videoDevice", ["id": device.id.rawValue, "name": device.name, "driver": device.driver,
                                        "capture": device.canCapture, "render": device.canRender],
                        human: "video device \(device)")
        }
        let captures = devices.filter(\.canCapture)
        let chosen: PJSUA.VideoDevice?
        switch device {
        case "colorbar"?:
            chosen = captures.first(where: \.isColorBars)
        case let text?:
            chosen = captures.first { $0.id.rawValue == Int(text) }
            if chosen == nil {
                throw UsageError("--video-device \(text) is not a capture device (see the videoDevice lines)")
            }
        case nil:
            // A server has no camera: then the colour-bar generator is the picture.
            chosen = captures.first { !$0.isColorBars } ?? captures.first(where: \.isColorBars)
        }
        return PJSUA.VideoOptions(captureDevice: chosen?.id)
    }
}
