import Foundation

/// Recognises DTMF digits in 16-bit audio (in-band DTMF) with the Goertzel algorithm: pjmedia
/// has tone generation but no detector.
///
/// Audio arrives in blocks (one conference-bridge frame, 10-20 ms). A block holds a digit when
/// one row and one column frequency together carry most of its energy, neither is more than
/// about 9 dB weaker than the other (twist), each beats the rest of its group by 6 dB, and the
/// block is not near-silent. A digit is reported once, when it ends, after it was seen in at
/// least 40 ms of blocks. It ends at a pause: 40 ms of quiet audio (12 dB or more under the
/// digit's own level: two presses of one key need that much between them, ITU-T Q.24), 100 ms of
/// audio without it whatever its level, or another digit. A shorter break (frames lost, or
/// concealed by the decoder with audio that keeps one of the two tones and fades the other,
/// KL-54) does not end it, and counts in its duration when the digit goes on after it.
public struct DTMFDetector: Sendable {
    /// A digit and how long it sounded.
    public struct Detection: Sendable, Hashable {
        /// The digit.
        public let digit: Character
        /// How long it was heard.
        public let duration: Duration
    }

    private static let rows: [Double] = [697, 770, 852, 941]
    private static let columns: [Double] = [1209, 1336, 1477, 1633]
    private static let keys: [[Character]] = [["1", "2", "3", "A"], ["4", "5", "6", "B"], ["7", "8", "9", "C"], ["*", "0", "#", "D"]]

    /// Samples per second of the audio given.
    public let sampleRate: Int
    private let coefficients: [Double]
    private var current: Character?
    private var currentMilliseconds = 0
    /// The current digit's blocks' summed mean square and their count: its level.
    private var currentLevel = 0.0
    private var currentBlocks = 0
    /// Milliseconds without the current digit since it was last heard, and of those the quiet ones.
    private var gap = 0
    private var quietGap = 0

    /// A pause of quiet audio that ends a digit (ITU-T Q.24's shortest pause).
    static let quietPauseMilliseconds = 40
    /// A break of any audio that ends a digit: longer than a decoder conceals a loss by
    /// (pjmedia's PLC and Opus's fade within a few frames).
    static let breakMilliseconds = 100

    /// The sample rates a detector takes, in Hz.
    public static let sampleRates = 8000...48000

    /// A detector for audio at `sampleRate` Hz (``sampleRates``).
    /// - Throws: ``PJSUAError/Code/invalidArgument`` for a rate outside ``sampleRates``.
    public init(sampleRate: Int) throws {
        guard Self.sampleRates.contains(sampleRate) else {
            throw PJSUAError(.invalidArgument, "a DTMF detector takes \(Self.sampleRates.lowerBound)...\(Self.sampleRates.upperBound) Hz, not \(sampleRate)")
        }
        self.sampleRate = sampleRate
        coefficients = (Self.rows + Self.columns).map { frequency in
            2 * cos(2 * Double.pi * frequency / Double(sampleRate))
        }
    }

    /// Feeds one block of samples; returns a digit that just ended, if any.
    public mutating func process<Samples: Collection>(_ samples: Samples) -> Detection? where Samples.Element == Int16 {
        guard !samples.isEmpty else { return nil }
        let milliseconds = samples.count * 1000 / sampleRate
        let (heard, meanSquare) = classify(samples)
        if let heard, heard == current {
            // The digit goes on: a break inside it was the digit too (lost or concealed frames).
            currentMilliseconds += gap + milliseconds
            currentLevel += meanSquare
            currentBlocks += 1
            gap = 0
            quietGap = 0
            return nil
        }
        // A break inside a digit that is not yet a pause (a codec glitch, a block straddling its
        // edge, frames lost or concealed on a loaded machine) is forgiven: the same digit heard
        // again after it goes on. Concealed audio keeps much of the digit's level; a pause
        // between presses is quiet.
        if heard == nil, current != nil {
            let quiet = meanSquare * 16 < currentLevel / Double(max(currentBlocks, 1))
            let nextQuiet = quietGap + (quiet ? milliseconds : 0)
            if nextQuiet < Self.quietPauseMilliseconds, gap + milliseconds < Self.breakMilliseconds {
                gap += milliseconds
                quietGap = nextQuiet
                return nil
            }
        }
        let ended = finish()
        if let heard {
            current = heard
            currentMilliseconds = milliseconds
            currentLevel = meanSquare
            currentBlocks = 1
        }
        return ended
    }

    /// Reports a digit still sounding (the audio ended).
    public mutating func finish() -> Detection? {
        defer {
            current = nil
            currentMilliseconds = 0
            currentLevel = 0
            currentBlocks = 0
            gap = 0
            quietGap = 0
        }
        guard let current, currentMilliseconds >= 40 else { return nil }
        return Detection(digit: current, duration: .milliseconds(currentMilliseconds))
    }

    /// The digit one block holds, if any, and the block's mean square (its level).
    func classify<Samples: Collection>(_ samples: Samples) -> (digit: Character?, meanSquare: Double) where Samples.Element == Int16 {
        var energy = 0.0
        var state1 = [Double](repeating: 0, count: 8)
        var state2 = [Double](repeating: 0, count: 8)
        for sample in samples {
            let x = Double(sample)
            energy += x * x
            for k in 0..<8 {
                let s = x + coefficients[k] * state1[k] - state2[k]
                state2[k] = state1[k]
                state1[k] = s
            }
        }
        let n = Double(samples.count)
        let meanSquare = energy / n
        // Below about -45 dBFS (RMS 180) there is nothing to hear.
        guard meanSquare > 180 * 180 else { return (nil, meanSquare) }
        // A pure tone of amplitude A puts (A n / 2)^2 into its bin and n A^2 / 2 into the energy:
        // each bin's share of the block's energy, 1 for a lone pure tone.
        let shares = (0..<8).map { k in
            (state1[k] * state1[k] + state2[k] * state2[k] - coefficients[k] * state1[k] * state2[k]) / (energy * n / 2)
        }
        let rowShares = Array(shares[0..<4])
        let columnShares = Array(shares[4..<8])
        guard let row = rowShares.indices.max(by: { rowShares[$0] < rowShares[$1] }),
              let column = columnShares.indices.max(by: { columnShares[$0] < columnShares[$1] }) else { return (nil, meanSquare) }
        let rowShare = rowShares[row]
        let columnShare = columnShares[column]
        guard rowShare + columnShare > 0.6, rowShare > 0.1, columnShare > 0.1 else { return (nil, meanSquare) }
        guard rowShares.indices.allSatisfy({ $0 == row || rowShares[$0] * 4 < rowShare }),
              columnShares.indices.allSatisfy({ $0 == column || columnShares[$0] * 4 < columnShare }) else { return (nil, meanSquare) }
        return (Self.keys[row][column], meanSquare)
    }
}
