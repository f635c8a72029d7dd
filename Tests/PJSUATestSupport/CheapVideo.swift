import SwiftPJSUA

/// Makes `codec` the engine's only video codec, at CIF (352x288, the colour-bar generator's own
/// size): cheap to encode on a loaded 2-core machine. The peer is started with the matching
/// softphone options (`--video-codecs CODEC --video-size 352x288`).
public func useCheapVideo(_ phone: PJSUA, codec: String = "H264") async throws {
    try await phone.useVideoCodecs([codec])
    var settings = try await phone.videoCodecSettings(codec)
    settings.size = PJSUA.VideoSize(width: 352, height: 288)
    try await phone.setVideoCodecSettings(codec, to: settings)
}
