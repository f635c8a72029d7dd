import PJSIP

// What the engine keeps for call media beyond pjsua's own (tone generators, in-band DTMF
// senders and detectors, the statistics timer, the redirect policy): set up at start, released
// before pjsua_destroy.

/// The engine's tone generators and statistics timer; actor state of ``PJSUA``.
struct CallMediaResources {
    /// Tones started with ``PJSUA/playTone(_:on:)``, by token.
    var tones: [UInt: ToneSource] = [:]
    /// One in-band DTMF generator per call that sent in-band digits.
    var inbandDTMF: [PJSUA.Call: ToneSource] = [:]
    /// The task publishing ``PJSUA/Event/stats(call:quality:)``.
    var statisticsTask: Task<Void, Never>?
}

extension PJSUA {
    /// Starts what the configuration asks of call media: codec preferences and statistics.
    func startCallMedia(_ configuration: Configuration) throws(PJSUAError) {
        MediaCallbacks.activate(redirectPolicy: configuration.redirectPolicy)
        InbandDTMF.activate(configuration.detectsInbandDTMF)
        try preferCodecs(configuration.preferredCodecs)
        try configuration.media.applyToCodecs()
        startStatistics(every: configuration.statisticsInterval)
    }

    /// Releases every tone generator and stops the statistics timer (before pjsua_destroy).
    func stopCallMedia() {
        callMedia.statisticsTask?.cancel()
        InbandDTMF.removeAll()
        for source in callMedia.tones.values { source.destroy() }
        for source in callMedia.inbandDTMF.values { source.destroy() }
        callMedia = CallMediaResources()
    }

    /// The most codecs ``Configuration/preferredCodecs`` may name (pjmedia has fewer).
    static let maxPreferredCodecs = 64

    static func validateCallMedia(_ configuration: Configuration) throws(PJSUAError) {
        if let interval = configuration.statisticsInterval { try validateStatisticsInterval(interval) }
        // Each gets a priority of its own below 255 (PJMEDIA_CODEC_PRIO_HIGHEST).
        guard configuration.preferredCodecs.count <= maxPreferredCodecs else {
            throw PJSUAError(.invalidArgument, "preferredCodecs has \(configuration.preferredCodecs.count) entries; at most \(maxPreferredCodecs)")
        }
        for id in configuration.preferredCodecs {
            try Validation.headerValue(id, what: "codec id", maxLength: 64)
        }
    }
}
