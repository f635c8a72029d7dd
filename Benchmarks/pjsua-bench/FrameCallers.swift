import Foundation
import PJSUATestSupport
import Synchronization

/// The calling side of `pjsua-bench frames`: N SIP calls from one UDP socket, each with its own
/// RTP socket that sends PCMU every 20 ms on an absolute monotonic schedule (a quiet tone with a
/// loud one-packet click every `clickPeriod` packets, staggered between calls; optionally a
/// network hiccup every 5 s: `hiccupMilliseconds` of packets held back, then sent at once) and timestamps the
/// clicks it sends and the clicks that come back. Plain sockets and two threads, so the callers
/// cost little next to the server under test, and every timestamp is CLOCK_MONOTONIC, which the
/// server process reads too.
final class FrameCallers: Sendable {
    struct Call {
        let callID: String
        let rtp: Int32
        let rtpPort: Int
        var remote = sockaddr_in()
        var toHeader = ""
        var requestURI = ""
        var confirmed = false
        var byeAnswered = false
        var hungUpByServer = false
        var failure: String?
        /// Send times of the clicks (ns) and whether each was high (2 kHz; clicks alternate
        /// with 1 kHz, so a lost click is never taken for the next one).
        var clicksSent: [(time: UInt64, high: Bool)] = []
        /// Arrival times of click onsets in what came back (ns), and their pitch.
        var clicksBack: [(time: UInt64, high: Bool)] = []
        var packetsReceived = 0
        var lastArrival: UInt64 = 0
        var longestGap: UInt64 = 0
        var loud = false
    }

    struct Result {
        var calls: [Call]
        /// The media phase: from the first packet sent to the last.
        var mediaSeconds: Double
        /// The server's CPU seconds over the media phase.
        var serverCPUSeconds: Double
        /// The server's resident memory at the end of the media phase (kB).
        var serverRSSKilobytes: Int
        /// The server's threads' context switches over the media phase.
        var serverContextSwitches: Int
    }

    static let packetNanoseconds: UInt64 = 20_000_000
    static let clickPeriod = 50  // packets: a click a second, longer than any latency matched
    /// No clicks in the first second: the echo is being set up and the jitter buffer settles.
    static let quietStart = 50

    let target: String
    let targetPort: Int
    let sip: Int32
    let sipPort: Int
    let rtcpSink: Int32
    let rtcpPort: Int
    let state: Mutex<[Call]>
    private let stopping = Atomic<Bool>(false)
    private let receiving = Atomic<Bool>(false)

    init(count: Int, targetPort: Int) throws {
        target = "127.0.0.1"
        self.targetPort = targetPort
        (sip, sipPort) = try Self.udpSocket()
        (rtcpSink, rtcpPort) = try Self.udpSocket()
        let nonce = UInt32.random(in: 0...UInt32.max)
        var calls: [Call] = []
        for index in 0..<count {
            let (fd, port) = try Self.udpSocket()
            calls.append(Call(callID: "frames-\(index)-\(nonce)@127.0.0.1", rtp: fd, rtpPort: port))
        }
        state = Mutex(calls)
    }

    deinit {
        close(sip)
        close(rtcpSink)
        for call in state.withLock({ $0 }) { close(call.rtp) }
    }

    /// Places the calls, streams for `seconds`, hangs up; blocks the calling thread.
    func run(seconds: Int, serverPID: Int32, hiccupMilliseconds: Int = 0) throws -> Result {
        let sipThread = Thread { [self] in sipLoop() }
        sipThread.start()
        defer { stopping.store(true, ordering: .relaxed) }
        let count = state.withLock { $0.count }
        for index in 0..<count {
            sendInvite(index)
            usleep(3000)
        }
        let deadline = nanoseconds() + 15_000_000_000
        while nanoseconds() < deadline, !state.withLock({ $0.allSatisfy { $0.confirmed || $0.failure != nil } }) { usleep(10_000) }
        let failed = state.withLock { $0.filter { !$0.confirmed } }
        guard failed.isEmpty else {
            throw BenchError("\(failed.count) of \(count) calls were not answered: \(failed.first?.failure ?? "no final response")")
        }
        receiving.store(true, ordering: .relaxed)
        let receiver = Thread { [self] in receiveLoop() }
        receiver.start()

        let cpuBefore = processCPUSeconds(pid: serverPID) ?? .nan
        let switchesBefore = processContextSwitches(pid: serverPID) ?? 0
        let started = nanoseconds()
        sendMedia(packets: seconds * 50, start: started, hiccupPackets: hiccupMilliseconds / 20)
        let ended = nanoseconds()
        let cpuAfter = processCPUSeconds(pid: serverPID) ?? .nan
        let switchesAfter = processContextSwitches(pid: serverPID) ?? 0
        let rss = residentKilobytes(pid: serverPID)
        usleep(300_000)  // the last echoes
        receiving.store(false, ordering: .relaxed)

        // Paced as the INVITEs are, and sent again every second to the calls with no answer yet:
        // a BYE is one UDP datagram, and at 200 calls a burst of them can overflow the server's
        // receive buffer while it tears streams down (a lost one leaves its call up for good).
        for index in 0..<count {
            sendBye(index)
            usleep(1000)
        }
        let byeDeadline = nanoseconds() + 8_000_000_000
        var lastSent = nanoseconds()
        while nanoseconds() < byeDeadline, !state.withLock({ $0.allSatisfy { $0.byeAnswered || $0.hungUpByServer } }) {
            usleep(10_000)
            guard nanoseconds() - lastSent > 1_000_000_000 else { continue }
            lastSent = nanoseconds()
            for index in state.withLock({ calls in calls.indices.filter { !calls[$0].byeAnswered && !calls[$0].hungUpByServer } }) { sendBye(index) }
        }
        return Result(calls: state.withLock { $0 }, mediaSeconds: Double(ended - started) / 1e9,
                      serverCPUSeconds: cpuAfter - cpuBefore, serverRSSKilobytes: rss,
                      serverContextSwitches: switchesAfter - switchesBefore)
    }

    // MARK: RTP

    private func sendMedia(packets: Int, start: UInt64, hiccupPackets: Int) {
        let quiet = Self.payload(frequency: 400, amplitude: 1000)
        let clicks = [Self.payload(frequency: 1000, amplitude: 20000), Self.payload(frequency: 2000, amplitude: 20000)]
        let targets = state.withLock { $0.map { ($0.rtp, $0.remote) } }
        let ssrcBase = UInt32.random(in: 0...UInt32.max / 2)
        var packet = [UInt8](repeating: 0, count: 12 + 160)
        for n in 0..<packets {
            // In a hiccup (from 2.5 s into every 5 s) packets wait for its end, then go at once.
            let phase = n % 250
            let due = hiccupPackets > 0 && phase >= 125 && phase < 125 + hiccupPackets ? n - phase + 125 + hiccupPackets : n
            Self.sleep(until: start + UInt64(due) * Self.packetNanoseconds)
            var sentClicks: [(Int, UInt64, Bool)] = []
            let high = (n / Self.clickPeriod) % 2 == 1
            for (index, (fd, remote)) in targets.enumerated() {
                let isClick = n >= Self.quietStart && (n + index * 7) % Self.clickPeriod == 0
                Self.header(&packet, sequence: UInt16(truncatingIfNeeded: n), timestamp: UInt32(truncatingIfNeeded: n * 160),
                            ssrc: ssrcBase + UInt32(index), marker: n == 0)
                packet.replaceSubrange(12..., with: isClick ? clicks[high ? 1 : 0] : quiet)
                var address = remote
                let now = nanoseconds()
                _ = packet.withUnsafeBytes { bytes in
                    withUnsafePointer(to: &address) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            sendto(fd, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                        }
                    }
                }
                if isClick { sentClicks.append((index, now, high)) }
            }
            if !sentClicks.isEmpty {
                state.withLock { calls in for (index, time, high) in sentClicks { calls[index].clicksSent.append((time, high)) } }
            }
        }
    }

    private func receiveLoop() {
        let fds = state.withLock { $0.map(\.rtp) }
        var polls = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        var buffer = [UInt8](repeating: 0, count: 2048)
        while receiving.load(ordering: .relaxed) {
            guard poll(&polls, nfds_t(polls.count), 50) > 0 else { continue }
            for (index, entry) in polls.enumerated() where entry.revents & Int16(POLLIN) != 0 {
                while true {
                    let count = recv(entry.fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                    guard count > 12 else { break }
                    let now = nanoseconds()
                    let loud = Self.rms(ofPCMU: buffer[12..<count]) > 5000
                    let high = loud && Self.zeroCrossings(ofPCMU: buffer[12..<count]) > 60
                    state.withLock { calls in
                        calls[index].packetsReceived += 1
                        if calls[index].lastArrival > 0 {
                            calls[index].longestGap = max(calls[index].longestGap, now - calls[index].lastArrival)
                        }
                        calls[index].lastArrival = now
                        if loud && !calls[index].loud { calls[index].clicksBack.append((now, high)) }
                        calls[index].loud = loud
                    }
                }
            }
        }
    }

    // MARK: SIP (a minimal UAC: INVITE, ACK, BYE over UDP on the loopback)

    private func sendInvite(_ index: Int) {
        let call = state.withLock { $0[index] }
        let sdp = ["v=0", "o=- \(index + 1) 1 IN IP4 127.0.0.1", "s=-", "c=IN IP4 127.0.0.1", "t=0 0",
                   "m=audio \(call.rtpPort) RTP/AVP 0", "a=rtpmap:0 PCMU/8000", "a=ptime:20", "a=rtcp:\(rtcpPort)", "a=sendrecv", ""]
            .joined(separator: "\r\n")
        send(request: "INVITE", uri: "sip:bench@\(target):\(targetPort)", call: call, to: "<sip:bench@\(target):\(targetPort)>",
             sequence: 1, body: sdp, contentType: "application/sdp")
    }

    private func sendBye(_ index: Int) {
        let call = state.withLock { $0[index] }
        guard call.confirmed, !call.hungUpByServer else { return }
        send(request: "BYE", uri: call.requestURI, call: call, to: call.toHeader, sequence: 2)
    }

    private func sendAck(_ call: Call) {
        send(request: "ACK", uri: call.requestURI, call: call, to: call.toHeader, sequence: 1)
    }

    private func send(request method: String, uri: String, call: Call, to: String, sequence: Int, body: String = "", contentType: String? = nil) {
        var lines = ["\(method) \(uri) SIP/2.0",
                     "Via: SIP/2.0/UDP 127.0.0.1:\(sipPort);rport;branch=z9hG4bK\(UInt64.random(in: 0...UInt64.max))",
                     "Max-Forwards: 70",
                     "From: <sip:caller@127.0.0.1:\(sipPort)>;tag=\(call.callID.prefix(while: { $0 != "@" }))",
                     "To: \(to)", "Call-ID: \(call.callID)", "CSeq: \(sequence) \(method)",
                     "Contact: <sip:caller@127.0.0.1:\(sipPort)>"]
        if let contentType { lines.append("Content-Type: \(contentType)") }
        lines.append("Content-Length: \(body.utf8.count)")
        sendSIP(lines.joined(separator: "\r\n") + "\r\n\r\n" + body, port: targetPort)
    }

    private func sendSIP(_ text: String, port: Int) {
        var address = Self.loopback(port: port)
        let bytes = Array(text.utf8)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(sip, bytes, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }

    private func sipLoop() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !stopping.load(ordering: .relaxed) {
            let count = recv(sip, &buffer, buffer.count, 0)
            guard count > 0, let text = String(bytes: buffer[0..<count], encoding: .utf8) else { continue }
            handleSIP(text)
        }
    }

    private func handleSIP(_ text: String) {
        let parts = text.components(separatedBy: "\r\n\r\n")
        let lines = parts[0].components(separatedBy: "\r\n")
        guard let first = lines.first else { return }
        func header(_ name: String) -> String? {
            lines.dropFirst().first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
                .map { String($0.drop(while: { $0 != ":" }).dropFirst()).trimmingCharacters(in: .whitespaces) }
        }
        guard let callID = header("Call-ID"), let cseq = header("CSeq"),
              let index = state.withLock({ $0.firstIndex { $0.callID == callID } }) else { return }
        if first.hasPrefix("SIP/2.0 ") {
            let code = Int(first.split(separator: " ")[1]) ?? 0
            guard code >= 200 else { return }
            if cseq.hasSuffix("INVITE") {
                guard code < 300 else {
                    state.withLock { $0[index].failure = first }
                    return
                }
                let body = parts.count > 1 ? parts[1] : ""
                let port = body.components(separatedBy: "\r\n").first { $0.hasPrefix("m=audio ") }
                    .flatMap { Int($0.split(separator: " ")[1]) } ?? 0
                let contact = header("Contact").flatMap { value -> String? in
                    guard let open = value.firstIndex(of: "<"), let close = value.firstIndex(of: ">") else { return nil }
                    return String(value[value.index(after: open)..<close])
                } ?? "sip:bench@\(target):\(targetPort)"
                let call = state.withLock { calls in
                    if !calls[index].confirmed {
                        calls[index].toHeader = header("To") ?? ""
                        calls[index].requestURI = contact
                        calls[index].remote = Self.loopback(port: port)
                        calls[index].confirmed = port > 0
                        if port == 0 { calls[index].failure = "no m=audio port in the answer" }
                    }
                    return calls[index]
                }
                sendAck(call)  // a retransmitted 200 gets its ACK again
            } else if cseq.hasSuffix("BYE") {
                state.withLock { $0[index].byeAnswered = true }
            }
        } else if first.hasPrefix("BYE ") {
            state.withLock { $0[index].hungUpByServer = true }
            let response = ["SIP/2.0 200 OK"] + ["Via", "From", "To", "Call-ID", "CSeq"].compactMap { name in header(name).map { "\(name): \($0)" } }
                + ["Content-Length: 0"]
            sendSIP(response.joined(separator: "\r\n") + "\r\n\r\n", port: targetPort)
        }
    }

    // MARK: helpers

    private static func udpSocket() throws -> (Int32, Int) {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket: \(String(cString: strerror(errno)))") }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw BenchError("bind: \(String(cString: strerror(errno)))") }
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var size: Int32 = 1 << 20
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    private static func sleep(until deadline: UInt64) {
        var time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &time, nil) == EINTR {}
    }

    private static func header(_ packet: inout [UInt8], sequence: UInt16, timestamp: UInt32, ssrc: UInt32, marker: Bool) {
        packet[0] = 0x80
        packet[1] = marker ? 0x80 : 0x00  // payload type 0: PCMU
        packet[2] = UInt8(sequence >> 8)
        packet[3] = UInt8(sequence & 0xFF)
        for byte in 0..<4 {
            packet[4 + byte] = UInt8((timestamp >> (24 - 8 * UInt32(byte))) & 0xFF)
            packet[8 + byte] = UInt8((ssrc >> (24 - 8 * UInt32(byte))) & 0xFF)
        }
    }

    /// 20 ms of a tone at 8 kHz in PCMU (the frequencies used divide into whole periods).
    private static func payload(frequency: Double, amplitude: Double) -> [UInt8] {
        (0..<160).map { n in PCMU.encode(Int16(amplitude * sin(2 * Double.pi * frequency * Double(n) / 8000))) }
    }

    /// Sign changes in 20 ms: about 40 for the 1 kHz click, 80 for the 2 kHz one.
    private static func zeroCrossings(ofPCMU payload: ArraySlice<UInt8>) -> Int {
        var count = 0
        var previous: Int16 = 0
        for byte in payload {
            let sample = PCMU.decoded[Int(byte)]
            if (sample < 0) != (previous < 0) { count += 1 }
            previous = sample
        }
        return count
    }

    private static func rms(ofPCMU payload: ArraySlice<UInt8>) -> Double {
        var sum = 0.0
        for byte in payload {
            let sample = Double(PCMU.decoded[Int(byte)])
            sum += sample * sample
        }
        return (sum / Double(max(1, payload.count))).squareRoot()
    }
}

/// G.711 mu-law, as the RTP payload type 0 carries it.
enum PCMU {
    static func encode(_ sample: Int16) -> UInt8 {
        let bias = 0x84
        var magnitude = Int(sample)
        let sign = magnitude < 0 ? 0x80 : 0
        magnitude = min(abs(magnitude), 32635) + bias
        var exponent = 7
        while exponent > 0 && magnitude & (0x80 << exponent) == 0 { exponent -= 1 }
        let mantissa = (magnitude >> (exponent + 3)) & 0x0F
        return UInt8(~(sign | exponent << 4 | mantissa) & 0xFF)
    }

    static func decode(_ byte: UInt8) -> Int16 {
        let value = Int(~byte)
        let exponent = (value >> 4) & 0x07
        let magnitude = (((value & 0x0F) << 3) + 0x84) << exponent - 0x84
        return Int16(value & 0x80 != 0 ? -magnitude : magnitude)
    }

    static let decoded: [Int16] = (0...255).map { decode(UInt8($0)) }
}
