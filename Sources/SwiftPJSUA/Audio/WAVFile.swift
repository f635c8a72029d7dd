import Foundation

/// A mono 16-bit PCM WAV file: the format pjsua's players and recorders use.
///
/// Bots and test harnesses use it to produce a prompt or tone to play into a call and to check
/// what a recorder captured (``dominantFrequency(in:step:)``, ``rmsLevel``).
public struct WAVFile: Sendable, Equatable {
    /// Samples per second.
    public var sampleRate: Int
    /// The samples (first channel only when the file had more).
    public var samples: [Int16]

    /// Creates a file from samples.
    public init(sampleRate: Int, samples: [Int16]) {
        self.sampleRate = sampleRate
        self.samples = samples
    }

    /// A sine tone.
    /// - Parameters:
    ///   - frequency: in Hz.
    ///   - duration: how long it sounds, at most ``longestTone``.
    ///   - sampleRate: samples per second (``sampleRates``; pjsua's bridge runs at 16000 by default).
    ///   - amplitude: 0...1 of full scale.
    /// - Throws: ``PJSUAError/Code/invalidArgument`` for a negative or too long duration, a
    ///   sample rate outside ``sampleRates``, or a frequency or amplitude that is not finite.
    public static func tone(frequency: Double, duration: Duration, sampleRate: Int = 16_000, amplitude: Double = 0.5) throws -> WAVFile {
        try Validation.duration(duration, in: .zero ... longestTone, what: "tone duration")
        guard sampleRates.contains(sampleRate) else {
            throw PJSUAError(.invalidArgument, "tone sample rate \(sampleRate) Hz is out of range \(sampleRates.lowerBound)...\(sampleRates.upperBound)")
        }
        guard frequency.isFinite, amplitude.isFinite else {
            throw PJSUAError(.invalidArgument, "tone frequency \(frequency) and amplitude \(amplitude) must be finite")
        }
        let count = duration.wholeMilliseconds * sampleRate / 1000
        let scale = max(0, min(1, amplitude)) * Double(Int16.max)
        let samples = (0..<count).map { index in
            Int16(scale * sin(2 * Double.pi * frequency * Double(index) / Double(sampleRate)))
        }
        return WAVFile(sampleRate: sampleRate, samples: samples)
    }

    /// The longest tone ``tone(frequency:duration:sampleRate:amplitude:)`` makes.
    public static let longestTone = Duration.seconds(600)

    /// The sample rates a file can be written with (and a tone made at), in Hz.
    public static let sampleRates = 1...384_000

    /// Reads a PCM WAV file.
    /// - Throws: ``PJSUAError/Code/file`` when the file is unreadable or not 16-bit PCM WAV.
    public init(contentsOf path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PJSUAError(.file, "cannot read \(Validation.quoted(path))")
        }
        try self.init(data: data, name: path)
    }

    /// Parses WAV data.
    public init(data: Data, name: String = "WAV data") throws {
        let bytes = [UInt8](data)
        func bad(_ why: String) -> PJSUAError { PJSUAError(.file, "\(Validation.quoted(name)) is not a usable WAV file: \(why)") }
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        guard bytes.count >= 12, bytes[0..<4] == [0x52, 0x49, 0x46, 0x46], bytes[8..<12] == [0x57, 0x41, 0x56, 0x45] else {
            throw bad("no RIFF/WAVE header")
        }
        var offset = 12
        var format: (channels: Int, rate: Int, bits: Int)?
        var samples: [Int16]?
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = u32(offset + 4)
            let body = offset + 8
            // pjmedia's writer leaves the data size at 0 until it closes the file.
            let end = (id == "data" && size == 0) ? bytes.count : min(bytes.count, body + size)
            if id == "fmt " {
                guard end - body >= 16 else { throw bad("short fmt chunk") }
                guard u16(body) == 1 else { throw bad("not PCM (format \(u16(body)))") }
                format = (u16(body + 2), u32(body + 4), u16(body + 14))
            } else if id == "data" {
                guard let format else { throw bad("data before fmt") }
                guard format.bits == 16, format.channels >= 1 else { throw bad("\(format.bits)-bit, \(format.channels) channels") }
                let frame = 2 * format.channels
                let frames = (end - body) / frame
                samples = (0..<frames).map { Int16(bitPattern: UInt16(u16(body + $0 * frame))) }
                break
            }
            offset = body + size + (size & 1)
        }
        guard let format, let samples else { throw bad("no fmt or data chunk") }
        guard format.rate > 0 else { throw bad("sample rate 0") }
        self.init(sampleRate: format.rate, samples: samples)
    }

    /// The file's bytes (RIFF/WAVE, PCM, mono, 16-bit). A size or rate a WAV header cannot
    /// hold is written cut to 32 bits; ``write(to:)`` refuses such a file instead.
    public var data: Data {
        var out = Data()
        func put32(_ value: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian) { out.append(contentsOf: $0) } }
        func put16(_ value: Int) { withUnsafeBytes(of: UInt16(truncatingIfNeeded: value).littleEndian) { out.append(contentsOf: $0) } }
        let dataSize = samples.count * 2
        out.append(contentsOf: Array("RIFF".utf8)); put32(36 + dataSize); out.append(contentsOf: Array("WAVE".utf8))
        out.append(contentsOf: Array("fmt ".utf8)); put32(16); put16(1); put16(1); put32(sampleRate); put32(sampleRate * 2); put16(2); put16(16)
        out.append(contentsOf: Array("data".utf8)); put32(dataSize)
        for sample in samples { put16(Int(UInt16(bitPattern: sample))) }
        return out
    }

    /// Writes the file.
    /// - Throws: ``PJSUAError/Code/invalidArgument`` for a sample rate outside ``sampleRates`` or
    ///   more samples than a WAV header can count; ``PJSUAError/Code/file`` when it cannot write.
    public func write(to path: String) throws {
        guard Self.sampleRates.contains(sampleRate) else {
            throw PJSUAError(.invalidArgument, "WAV sample rate \(sampleRate) Hz is out of range \(Self.sampleRates.lowerBound)...\(Self.sampleRates.upperBound)")
        }
        guard samples.count <= (Int(UInt32.max) - 36) / 2 else {
            throw PJSUAError(.invalidArgument, "\(samples.count) samples do not fit in a WAV file")
        }
        guard FileManager.default.createFile(atPath: path, contents: data) else {
            throw PJSUAError(.file, "cannot write \(Validation.quoted(path))")
        }
    }

    /// How long the file plays (its samples at its sample rate).
    public var duration: Duration {
        sampleRate > 0 ? .seconds(Double(samples.count) / Double(sampleRate)) : .zero
    }

    /// Root-mean-square level, 0...1 of full scale.
    public var rmsLevel: Double {
        guard !samples.isEmpty else { return 0 }
        let sum = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
        return (sum / Double(samples.count)).squareRoot() / Double(Int16.max)
    }

    /// The relative power at one frequency (Goertzel), normalised by the number of samples.
    public func power(at frequency: Double) -> Double {
        guard !samples.isEmpty else { return 0 }
        let coefficient = 2 * cos(2 * Double.pi * frequency / Double(sampleRate))
        var previous = 0.0, beforePrevious = 0.0
        for sample in samples {
            let current = Double(sample) / Double(Int16.max) + coefficient * previous - beforePrevious
            beforePrevious = previous
            previous = current
        }
        let power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
        return power / Double(samples.count * samples.count)
    }

    /// The strongest frequency between 100 and 4000 Hz, scanned in 10 Hz increments.
    public func dominantFrequency() -> Double {
        scan(from: 100, count: 391, step: 10)
    }

    /// The strongest frequency in `range`, scanned in `step` Hz increments from its lower bound.
    ///
    /// - Throws: ``PJSUAError/Code/invalidArgument`` when the range is not finite or not positive,
    ///   when `step` is not a positive finite number, or when the scan would take more than
    ///   1,000,000 points.
    public func dominantFrequency(in range: ClosedRange<Double>, step: Double = 10) throws(PJSUAError) -> Double {
        guard range.lowerBound >= 0, range.upperBound.isFinite else {
            throw PJSUAError(.invalidArgument, "dominantFrequency's range must be finite and not negative, got \(range)")
        }
        guard step.isFinite, step > 0 else {
            throw PJSUAError(.invalidArgument, "dominantFrequency's step must be a positive number of Hz, got \(step)")
        }
        let intervals = ((range.upperBound - range.lowerBound) / step).rounded(.down)
        guard intervals < 1_000_000 else {
            throw PJSUAError(.invalidArgument, "dominantFrequency would scan \(intervals) points of \(step) Hz over \(range); at most 1,000,000")
        }
        return scan(from: range.lowerBound, count: Int(intervals) + 1, step: step)
    }

    /// The frequency of highest ``power(at:)`` among `count` points `step` Hz apart from `start`.
    private func scan(from start: Double, count: Int, step: Double) -> Double {
        var best = (frequency: start, power: -1.0)
        for index in 0..<count {
            let frequency = start + Double(index) * step
            let value = power(at: frequency)
            if value > best.power { best = (frequency, value) }
        }
        return best.frequency
    }
}
