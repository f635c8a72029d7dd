import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// baresip 1.0 as a test peer: a generated config directory in a temporary directory, SIP,
/// control (`ctrl_tcp`) and RTP on loopback ports of a ``PortBlock`` it holds (``ports(of:)``),
/// no sound card (`aufile` plays a WAV or silence,
/// `aubridge` swallows playback, `sndfile` records both directions to WAV files), and commands
/// over the control socket: dial, answer, send DTMF, hang up.
///
/// Received DTMF is only logged (baresip has no event for it besides its verbose log): read it
/// with ``receivedDTMF``.
public final class Baresip: @unchecked Sendable {
    // @unchecked Sendable: every stored property is immutable after init; `ChildProcess` is Sendable.

    /// What to start.
    public struct Options: Sendable {
        /// The account's user part.
        public var user = "bob"
        /// Whether incoming calls are answered at once (`answermode=auto`).
        public var autoAnswer = true
        /// A WAV file baresip plays into every call; nil plays silence (in whatever codec is
        /// negotiated). baresip 1.0's `aufile` does not resample: a file must have the negotiated
        /// codec's rate and channels (48 kHz stereo for Opus, 8 kHz mono for G.711), or baresip
        /// gives up the call; the call ends when the file does.
        public var play: String?
        /// Whether what is sent and received is written to WAV files in ``Baresip/recordingDirectory``.
        public var record = false
        /// Audio codec modules loaded, in preference order (`g711`, `opus`, `g722`).
        public var codecs = ["opus", "g711"]
        /// Extra config lines.
        public var extraConfig: [String] = []

        /// Default options: auto-answer, Opus and G.711, silence.
        public init() {}
    }

    /// The baresip process.
    public let process: ChildProcess
    /// The SIP port (UDP and TCP, 127.0.0.1).
    public let sipPort: Int
    /// The `ctrl_tcp` port.
    public let controlPort: Int
    /// The generated config directory (also holds recordings).
    public let directory: String
    /// The account's user part.
    public let user: String

    /// Starts baresip; it runs for at most `lifetime` seconds (its `-t`).
    public init(_ options: Options = Options(), lifetime: Int = 60) throws {
        directory = NSTemporaryDirectory() + "baresip-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let block = try PortBlock()
        sipPort = block[0]
        controlPort = block[2]
        user = options.user
        let source = options.play.map { "aufile,\($0)" } ?? "aufile,\(directory)/silence.wav"
        var sourceFormat: [String] = []
        if options.play == nil {
            // aufile ends the call at the end of its file: silence for baresip's whole lifetime.
            // The codec is the offerer's choice, not ours: a caller without Opus (the iOS
            // profile) gets PCMU from `["opus", "g711"]`, and aufile refuses a file whose rate
            // is not the codec's ("input file must have sample-rate 8000 Hz"), after which
            // baresip abandons the call it was answering and sends nothing on one it placed.
            // `ausrc_srate`/`ausrc_channels` declare the source's format, and baresip resamples
            // it to whichever codec was negotiated ("enable ausrc resampler").
            try Self.writeSilence(to: directory + "/silence.wav", seconds: lifetime, sampleRate: 48000, channels: 2)
            sourceFormat = ["ausrc_srate 48000", "ausrc_channels 2"]
        }
        var modules = ["account", "menu", "ctrl_tcp", "aufile", "aubridge"] + options.codecs
        if options.record { modules.append("sndfile") }
        let config = Self.ports(of: block) + [
            "audio_source \(source)",
            "audio_player aubridge,nil",
            "audio_alert aubridge,nil",
            "rtcp_mux no",
            "module_path /usr/lib/baresip/modules",
            "snd_path \(directory)",
        ] + sourceFormat + modules.map { "module \($0).so" } + options.extraConfig
        try (config.joined(separator: "\n") + "\n").write(toFile: directory + "/config", atomically: true, encoding: .utf8)
        let answer = options.autoAnswer ? "auto" : "manual"
        let account = "<sip:\(options.user)@127.0.0.1:\(sipPort)>;answermode=\(answer);regint=0\n"
        try account.write(toFile: directory + "/accounts", atomically: true, encoding: .utf8)
        try "".write(toFile: directory + "/contacts", atomically: true, encoding: .utf8)
        process = try ChildProcess("baresip", ["-4", "-v", "-f", directory, "-t", "\(lifetime)"], name: "baresip", holding: block)
    }

    /// The config lines that put a baresip's ports in `block`: SIP over UDP and TCP on its first
    /// port and SIP/TLS on the next (baresip takes `sip_listen`'s port + 1 for TLS: a full-suite
    /// run once lost that one to a parallel test, "SIP/TLS transport failed: Address already in
    /// use"), `ctrl_tcp` (when loaded) on the third, and RTP and RTCP on its last twelve (six
    /// pairs; baresip's default range, 1024-49152, reaches into other blocks).
    public static func ports(of block: PortBlock) -> [String] {
        ["sip_listen 127.0.0.1:\(block[0])", "net_interface 127.0.0.1", "ctrl_tcp_listen 127.0.0.1:\(block[2])",
         "rtp_ports \(block[4])-\(block[PortBlock.size - 1])"]
    }

    deinit {
        process.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The URI that reaches baresip's account.
    public var uri: String { "sip:\(user)@127.0.0.1:\(sipPort)" }

    /// Where ``Options/record`` puts its WAV files (sndfile names them by call and direction).
    public var recordingDirectory: String { directory }

    /// Waits until the control socket accepts connections.
    public func waitUntilReady(timeout: Duration = .seconds(10)) async throws {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            if let socket = try? connectControl() {
                close(socket)
                return
            }
            if !process.isRunning { throw ChildProcessError(process.explain("exited before its control port opened")) }
            if ContinuousClock.now >= deadline { throw ChildProcessError(process.explain("did not open its control port within \(timeout)")) }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Calls `uri`.
    public func dial(_ uri: String) async throws { try await command("dial", uri) }
    /// Answers the ringing call.
    public func answer() async throws { try await command("accept") }
    /// Sends DTMF digits on the current call. baresip 1.0 sends RFC 4733 telephone events only
    /// (it receives SIP INFO digits too).
    public func sendDTMF(_ digits: String) async throws { try await command("sndcode", digits) }
    /// Hangs up the current call.
    public func hangup() async throws { try await command("hangup") }

    /// Runs one control command; returns its response's `data`. The reply is awaited without
    /// blocking the thread (it polls the socket and sleeps asynchronously), bounded to 5 s.
    @discardableResult
    public func command(_ name: String, _ parameters: String? = nil) async throws -> String {
        var object: [String: String] = ["command": name, "token": "t\(UUID().uuidString.prefix(6))"]
        if let parameters { object["params"] = parameters }
        let json = try JSONSerialization.data(withJSONObject: object)
        let socket = try connectControl()
        defer { close(socket) }
        let frame = Array("\(json.count):".utf8) + Array(json) + Array(",".utf8)
        guard frame.withUnsafeBytes({ send(socket, $0.baseAddress, $0.count, 0) }) == frame.count else {
            throw ChildProcessError("cannot send \(name) to baresip")
        }
        // Replies and events arrive as netstrings; the reply carries "response": true.
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = ContinuousClock.now.advanced(by: .seconds(5))
        while true {
            let count = recv(socket, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
                continue
            }
            guard count > 0 else { throw ChildProcessError("baresip did not answer \(name)") }
            received += buffer.prefix(count)
            while let colon = received.firstIndex(of: UInt8(ascii: ":")),
                  let length = Int(String(decoding: received[..<colon], as: UTF8.self)),
                  received.count >= colon + 1 + length + 1 {
                let body = Data(received[(colon + 1)..<(colon + 1 + length)])
                received.removeFirst(colon + 1 + length + 1)
                if let reply = try? JSONSerialization.jsonObject(with: body) as? [String: Any], reply["response"] as? Bool == true {
                    guard reply["ok"] as? Bool != false else {
                        throw ChildProcessError("baresip refused \(name): \(reply["data"] ?? "")")
                    }
                    return reply["data"] as? String ?? ""
                }
            }
        }
    }

    /// The DTMF digits baresip received, in order, from its verbose log.
    public var receivedDTMF: String {
        // baresip 1.0 with -v logs each RFC 4733 event's start and end ("received event: '5'
        // (end=1)") and each SIP INFO digit ("received DTMF: '5'"): count ends and INFO digits.
        var digits = ""
        let text = process.output
        var index = text.startIndex
        while let range = text.range(of: "received ", range: index..<text.endIndex) {
            index = range.upperBound
            let rest = text[range.upperBound...]
            for prefix in ["event: '", "DTMF: '"] where rest.hasPrefix(prefix) {
                let after = rest.dropFirst(prefix.count)
                guard let digit = after.first, "0123456789*#ABCD".contains(digit) else { continue }
                if prefix == "event: '" && !after.dropFirst().hasPrefix("' (end=1)") { continue }
                digits.append(digit)
            }
        }
        return digits
    }

    private func connectControl() throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ChildProcessError("socket: errno \(errno)") }
        let connected = withLoopbackAddress(port: controlPort) { address, length in connect(fd, address, length) }
        guard connected == 0 else {
            close(fd)
            throw ChildProcessError("cannot connect to baresip's control port")
        }
        return fd
    }

    /// Silence, for `aufile` when nothing is to be played.
    private static func writeSilence(to path: String, seconds: Int, sampleRate: Int, channels: Int) throws {
        let samples = sampleRate * channels * seconds
        var data = Data()
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8)); append(UInt32(36 + samples * 2))
        data.append(contentsOf: Array("WAVEfmt ".utf8)); append(UInt32(16)); append(UInt16(1)); append(UInt16(channels))
        append(UInt32(sampleRate)); append(UInt32(sampleRate * 2 * channels)); append(UInt16(2 * channels)); append(UInt16(16))
        data.append(contentsOf: Array("data".utf8)); append(UInt32(samples * 2))
        data.append(Data(count: samples * 2))
        try data.write(to: URL(fileURLWithPath: path))
    }
}
