import SwiftPJSUA

/// `--codecs opus,PCMU` (only these, in this order), `--stats-interval S` (a JSON `stats` line
/// per call every S seconds), `--redirect follow|report` and, where DTMF is sent,
/// `--dtmf-method rfc4733|info|inband`; `--detect-inband` recognises DTMF tones in the audio;
/// `--clock-rate HZ` and `--resampler fast|medium|high` set the conference bridge (see
/// `PJSUA.MediaSettings`); `--no-device-link` leaves calls unconnected to the sound device's
/// bridge slot (`MediaSettings.connectsCallsToAudioDevice`); `--opus-rate HZ` sets Opus's internal
/// sample rate (`MediaSettings.opusSampleRate`); `--jitter-buffer-max MS` bounds the receive
/// jitter buffer (`MediaSettings.jitterBufferMax`); `--rtp-ports FROM[-TO]` sets where media
/// binds (`Configuration.rtpPort`, `rtpPortCount`).
struct MediaOptions {
    static let valued: Set<String> = ["codecs", "stats-interval", "redirect", "dtmf-method", "clock-rate", "resampler", "opus-rate",
                                         "jitter-buffer-max", "rtp-ports"]
    static let flags: Set<String> = ["detect-inband", "no-device-link"]

    var codecs: [String]?
    var statisticsInterval: Duration?
    var redirectPolicy = PJSUA.RedirectPolicy.follow
    var dtmfMethod = PJSUA.DTMFMethod.rfc4733
    var detectInband = false
    var media = PJSUA.MediaSettings()
    /// `--rtp-ports FROM[-TO]`: the first port, and how many ports from it.
    var rtpPorts: (first: Int, count: Int?)?

    init(_ arguments: Arguments) throws(UsageError) {
        detectInband = arguments.has("detect-inband")
        media.connectsCallsToAudioDevice = !arguments.has("no-device-link")
        if let list = arguments.string("codecs") {
            let ids = list.split(separator: ",").map { String($0) }
            guard !ids.isEmpty, ids.allSatisfy({ !$0.isEmpty && $0.count <= 64 }) else {
                throw UsageError("--codecs takes a comma-separated list of codec names, e.g. opus,PCMU")
            }
            codecs = ids
        }
        if let seconds = try arguments.seconds("stats-interval", in: 0.1...3600) {
            statisticsInterval = .milliseconds(Int((seconds * 1000).rounded()))
        }
        if let text = arguments.string("redirect") {
            guard let policy = PJSUA.RedirectPolicy(rawValue: text), policy != .ask else {
                throw UsageError("--redirect must be follow or report, got '\(text)'")
            }
            redirectPolicy = policy
        }
        if let text = arguments.string("dtmf-method") {
            guard let method = PJSUA.DTMFMethod(rawValue: text) else {
                throw UsageError("--dtmf-method must be rfc4733, info or inband, got '\(text)'")
            }
            dtmfMethod = method
        }
        if let rate = try arguments.integer("clock-rate", in: 8000...48000) {
            guard PJSUA.MediaSettings.clockRates.contains(rate) else {
                throw UsageError("--clock-rate must be 8000, 16000, 32000 or 48000, got \(rate)")
            }
            media.clockRate = rate
        }
        if let rate = try arguments.integer("opus-rate", in: 8000...48000) {
            guard PJSUA.MediaSettings.opusSampleRates.contains(rate) else {
                throw UsageError("--opus-rate must be 8000, 12000, 16000, 24000 or 48000, got \(rate)")
            }
            media.opusSampleRate = rate
        }
        media.jitterBufferMax = try arguments.integer("jitter-buffer-max", in: 40...5000).map { .milliseconds($0) }
        if let text = arguments.string("rtp-ports") {
            rtpPorts = try Self.rtpPorts(text)
        }
        if let text = arguments.string("resampler") {
            guard let quality = PJSUA.ResamplerQuality(rawValue: text) else {
                throw UsageError("--resampler must be fast, medium or high, got '\(text)'")
            }
            media.resamplerQuality = quality
        }
    }

    /// `FROM` or `FROM-TO`: media from port FROM upwards, or only in FROM...TO (4 ports or more).
    static func rtpPorts(_ text: String) throws(UsageError) -> (first: Int, count: Int?) {
        let bounds = text.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        let problem = UsageError("--rtp-ports takes FROM or FROM-TO, ports 1...65535 with at least 4 in the range (e.g. 20000-20999), got '\(text)'")
        guard (1...2).contains(bounds.count), let first = bounds[0], (1...65534).contains(first) else { throw problem }
        guard bounds.count == 2 else { return (first, nil) }
        guard let last = bounds[1], last <= 65535, last - first + 1 >= 4 else { throw problem }
        return (first, last - first + 1)
    }

    /// Puts the start-time choices into an engine configuration.
    func apply(to configuration: inout PJSUA.Configuration) {
        if let rtpPorts {
            configuration.rtpPort = rtpPorts.first
            configuration.rtpPortCount = rtpPorts.count
        }
        configuration.statisticsInterval = statisticsInterval
        configuration.redirectPolicy = redirectPolicy
        configuration.detectsInbandDTMF = detectInband
        configuration.media = media
    }

    /// Applies the codec list to a started engine.
    func apply(to phone: PJSUA) async throws {
        if let codecs { try await phone.useCodecs(codecs) }
    }
}
