extension PJSUA {
    /// RTP figures of one direction of a call's audio stream (`pjmedia_rtcp_stream_stat`).
    public struct RTPStatistics: Sendable, Hashable {
        /// RTP packets (sent, or received).
        public let packets: Int
        /// Payload bytes.
        public let bytes: Int
        /// Packets lost: for the sending direction as the peer reported it in RTCP receiver
        /// reports, for the receiving direction as counted from sequence numbers.
        public let packetsLost: Int
        /// Packets discarded (too late, or invalid).
        public let packetsDiscarded: Int
        /// Packets that arrived out of order.
        public let packetsReordered: Int
        /// Duplicated packets.
        public let packetsDuplicated: Int
        /// Mean interarrival jitter (RFC 3550), or nil when no figure was computed yet.
        public let meanJitter: Duration?
        /// The largest interarrival jitter seen, or nil.
        public let maxJitter: Duration?

        /// The fraction of packets lost, 0...1 (lost over expected).
        public var lossFraction: Double {
            let expected = packets + packetsLost
            return expected > 0 ? Double(packetsLost) / Double(expected) : 0
        }

        /// Creates the figures of one direction.
        public init(packets: Int, bytes: Int, packetsLost: Int, packetsDiscarded: Int = 0, packetsReordered: Int = 0,
                    packetsDuplicated: Int = 0, meanJitter: Duration? = nil, maxJitter: Duration? = nil) {
            self.packets = packets
            self.bytes = bytes
            self.packetsLost = packetsLost
            self.packetsDiscarded = packetsDiscarded
            self.packetsReordered = packetsReordered
            self.packetsDuplicated = packetsDuplicated
            self.meanJitter = meanJitter
            self.maxJitter = maxJitter
        }
    }

    /// The receiving jitter buffer of a call's audio (`pjmedia_jb_state`): how long it holds
    /// the audio, and what it had to make up for. Figures are since the stream started.
    public struct JitterBufferStatistics: Sendable, Hashable {
        /// The audio waiting in it now.
        public let buffered: Duration
        /// The mean time audio waited in it, nil before any did.
        public let averageDelay: Duration?
        /// The longest time audio waited in it, nil before any did.
        public let maxDelay: Duration?
        /// Times the call's audio was asked of it (once per 20 ms tick of the bridge) while it was
        /// empty: the codec's loss concealment (or silence) went to the call instead, and what
        /// arrived late was played after. A stalled sender or network shows here first.
        public let emptyReads: Int
        /// Audio that never arrived, known lost because later audio was already waiting when
        /// its turn came (concealed). Audio that simply had not come yet is an empty read.
        public let lost: Duration
        /// Audio dropped: arrived too late to play, or taken out to shorten a buffer that had
        /// grown past what the jitter needs.
        public let discarded: Duration

        /// Creates the figures of a jitter buffer.
        public init(buffered: Duration, averageDelay: Duration?, maxDelay: Duration?, emptyReads: Int, lost: Duration,
                    discarded: Duration) {
            self.buffered = buffered
            self.averageDelay = averageDelay
            self.maxDelay = maxDelay
            self.emptyReads = emptyReads
            self.lost = lost
            self.discarded = discarded
        }
    }

    /// The quality of a call's audio: RTP both ways, RTCP round-trip time, and an estimated
    /// mean opinion score.
    public struct CallQuality: Sendable, Hashable {
        /// The codec in use, e.g. `opus/48000` or `PCMU/8000`.
        public let codec: String
        /// What we sent (losses and jitter as the peer's RTCP reports describe them).
        public let sent: RTPStatistics
        /// What we received.
        public let received: RTPStatistics
        /// The mean RTCP round-trip time, nil until a receiver report came back.
        public let roundTripTime: Duration?
        /// The last RTCP round-trip time measured, nil until a receiver report came back.
        public let lastRoundTripTime: Duration?
        /// The estimated transmission rating factor R (0...100) of the E-model; see ``mos``.
        public let rFactor: Double
        /// The estimated mean opinion score, 1.0 (bad) to about 4.4 (the narrowband E-model's best).
        ///
        /// ITU-T G.107's E-model, simplified as is usual for VoIP monitoring (Cole and Rosenbluth,
        /// 2001): R = 93.2 - Id - Ie,eff with the defaults of G.107 for everything not measured;
        /// Id = 0.024 d + 0.11 (d - 177.3) H(d - 177.3), where d is the one-way delay in ms
        /// (half the RTCP round trip, plus twice the mean jitter for the jitter buffer, plus one
        /// 20 ms frame); Ie,eff = Ie + (95 - Ie) Ppl / (Ppl + Bpl) with the codec's Ie and Bpl
        /// from ITU-T G.113 Appendix I (random loss, BurstR 1), Ppl the worse direction's loss in
        /// percent; MOS = 1 + 0.035 R + 7e-6 R (R - 60) (100 - R), clamped to 1...4.5.
        public let mos: Double
        /// The call's video figures, when it has an active video stream (nil for audio-only
        /// calls). Set by ``PJSUA/quality(of:)`` and the periodic ``PJSUA/Event/stats(call:quality:)``.
        public var video: VideoStatistics?
        /// The receiving jitter buffer of the call's audio. Set by ``PJSUA/quality(of:)`` and the
        /// periodic ``PJSUA/Event/stats(call:quality:)``.
        public var jitterBuffer: JitterBufferStatistics?

        /// Computes R and the MOS from measured figures (see ``mos`` for the formula).
        public init(codec: String, sent: RTPStatistics, received: RTPStatistics, roundTripTime: Duration?,
                    lastRoundTripTime: Duration? = nil) {
            self.codec = codec
            self.sent = sent
            self.received = received
            self.roundTripTime = roundTripTime
            self.lastRoundTripTime = lastRoundTripTime
            let milliseconds: (Duration?) -> Double = { duration in
                guard let duration else { return 0 }
                return Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
            }
            let delay = milliseconds(roundTripTime) / 2 + 2 * milliseconds(received.meanJitter) + 20
            let lossPercent = 100 * max(sent.lossFraction, received.lossFraction)
            let r = Self.rFactor(oneWayDelay: .milliseconds(delay), lossPercent: lossPercent, codec: codec)
            rFactor = r
            mos = Self.mos(rFactor: r)
        }

        /// The E-model's R for a one-way delay, a packet loss and a codec (see ``mos``).
        public static func rFactor(oneWayDelay: Duration, lossPercent: Double, codec: String) -> Double {
            let d = Double(oneWayDelay.components.seconds) * 1000 + Double(oneWayDelay.components.attoseconds) / 1e15
            let delayImpairment = 0.024 * d + (d > 177.3 ? 0.11 * (d - 177.3) : 0)
            let (ie, bpl) = impairment(of: codec)
            let loss = min(max(lossPercent, 0), 100)
            let equipment = ie + (95 - ie) * loss / (loss + bpl)
            return min(max(93.2 - delayImpairment - equipment, 0), 100)
        }

        /// The MOS for an R factor (ITU-T G.107 Annex B).
        public static func mos(rFactor r: Double) -> Double {
            guard r > 0 else { return 1 }
            guard r < 100 else { return 4.5 }
            return min(max(1 + 0.035 * r + 7e-6 * r * (r - 60) * (100 - r), 1), 4.5)
        }

        /// Equipment impairment Ie and packet-loss robustness Bpl (ITU-T G.113 Appendix I) of
        /// a codec, by encoding name. Codecs G.113 does not list (Opus, Speex, G.722 in the
        /// narrowband scale) get G.711 with concealment's figures, which their concealment
        /// matches or beats at the rates pjmedia uses; GSM and iLBC use their published values.
        static func impairment(of codec: String) -> (ie: Double, bpl: Double) {
            let name = codec.lowercased()
            if name.hasPrefix("g729") { return (11, 19) }
            if name.hasPrefix("gsm") { return (20, 43) }
            if name.hasPrefix("ilbc") { return (11, 32) }
            return (0, 25.1)
        }
    }
}
