import PJSIP

/// What the engine keeps for call media beyond pjsua's own and beyond any one call: tone
/// generators and the statistics timer. Part of the run (``EngineRun/State``), made at start and
/// released by its teardown, before pjsua_destroy; used on the executor thread only.
struct CallMediaResources {
    /// Tones started with ``PJSUA/playTone(_:on:)``, by token.
    var tones: [UInt: ToneSource] = [:]
    /// The task publishing ``PJSUA/Event/stats(call:quality:)``.
    var statisticsTask: Task<Void, Never>?
}

extension PJSUA {
    /// Starts what the configuration asks of call media: codec preferences and statistics.
    func startCallMedia(_ configuration: Configuration) throws(PJSUAError) {
        try preferCodecs(configuration.preferredCodecs)
        try configuration.media.applyToCodecs()
        startStatistics(every: configuration.statisticsInterval)
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
