import Foundation
import PJSIP
@_spi(MediaHooks) import SwiftPJSUA
import Synchronization

/// Latency from a pjsua callback firing on a foreign thread (where pjsua's callbacks run) to a
/// `for await` consumer receiving its event, with 1 and with 4 subscribers.
///
/// The callback is the engine's own `on_dtmf_event`, read from pjsua's configuration by a media
/// hook of the benchmark's that sets nothing (the engine refuses hooks that replace its
/// callbacks, not ones that read them), and called by a thread of the benchmark, registered
/// with PJLIB as pjsua's worker is, with a SIP INFO digit on a live self-call: the path every
/// digit takes from pjsua to the app (the C trampoline, the run, the hub), timed by the
/// benchmark's own clock reads on both sides. The engine has no probe for it.
enum EventsBenchmark {
    typealias DTMFCallback = @convention(c) (pjsua_call_id, UnsafePointer<pjsua_dtmf_event>?) -> Void

    /// The engine's `on_dtmf_event`, as its hook saw it in the configuration.
    final class InstalledCallback: Sendable {
        private let address = Mutex<UInt>(0)

        /// Hooks that read the callback and change nothing.
        var hooks: PJSUA.MediaHooks {
            PJSUA.MediaHooks(name: "pjsua-bench-events", install: { [self] config in
                let callback = config.cb.on_dtmf_event.map { UInt(bitPattern: unsafeBitCast($0, to: Int.self)) } ?? 0
                address.withLock { $0 = callback }
            }, releaseAll: {})
        }

        var callback: DTMFCallback? {
            let bits = address.withLock { $0 }
            return bits == 0 ? nil : unsafeBitCast(Int(bitPattern: bits), to: DTMFCallback.self)
        }
    }

    final class Stamps: @unchecked Sendable {
        // @unchecked Sendable: `sent` is written by the publisher before it calls the callback
        // and read by consumers after receiving the event; the hub's lock orders the two.
        var sent: UInt64 = 0
    }

    static func measure(phone: PJSUA, callback: DTMFCallback, call: PJSUA.Call, subscribers: Int, iterations: Int) async -> Percentiles {
        let stamps = Stamps()
        let streams = (0..<subscribers).map { _ in phone.events }
        var latencies = [Double]()
        latencies.reserveCapacity(iterations)
        // A plain thread calls the callback, as pjsua's worker thread would; the first
        // subscriber's consumer measures, the others consume concurrently.
        let others = streams.dropFirst().map { stream in
            Task.detached { for await _ in stream {} }
        }
        let gate = DispatchSemaphore(value: 0)
        let slot = call.slot
        let publisher = Thread {
            let descriptorCount = MemoryLayout<pj_thread_desc>.size / MemoryLayout<Int>.stride
            let descriptor = UnsafeMutablePointer<Int>.allocate(capacity: descriptorCount)
            descriptor.initialize(repeating: 0, count: descriptorCount)
            var registered: OpaquePointer?
            if pj_thread_is_registered() == 0 { _ = pj_thread_register("bench-events", descriptor, &registered) }
            var event = pjsua_dtmf_event()
            event.method = PJSUA_DTMF_METHOD_SIP_INFO
            event.digit = UInt32(UInt8(ascii: "5"))
            event.duration = 100
            for _ in 0..<iterations {
                gate.wait()
                stamps.sent = nanoseconds()
                callback(slot, &event)
            }
            // The descriptor stays: PJLIB keeps a pointer to it in the thread's key.
        }
        publisher.start()
        var iterator = streams[0].makeAsyncIterator()
        for _ in 0..<iterations {
            gate.signal()
            while let event = await iterator.next() {
                if case .dtmf = event { break }
            }
            latencies.append(Double(nanoseconds() - stamps.sent))
        }
        others.forEach { $0.cancel() }
        return Percentiles(latencies)
    }

    static func run(iterations: Int) async throws {
        let installed = InstalledCallback()
        let phone = PJSUA()
        var configuration = PJSUA.Configuration(port: 0, bindAddress: "127.0.0.1", audioDevice: .null)
        configuration.mediaHooks = [installed.hooks]
        let transport = try await phone.start(configuration)
        guard let callback = installed.callback else { throw BenchError("the engine installed no on_dtmf_event") }
        // A live call for the digits: the engine reports a digit on the call it arrived on.
        let calls = phone.events
        let outgoing = try await phone.makeCall(to: transport.uri(user: "events"))
        var incoming: PJSUA.Call?
        var confirmed = 0
        for await event in calls {
            switch event {
            case let .incomingCall(_, call, _, _, _):
                incoming = call
                try await phone.answer(call)
            case .callState(_, .confirmed, _, _):
                confirmed += 1
            case let .callState(call, .disconnected, _, status):
                throw BenchError("\(call) ended early: \(status)")
            default:
                break
            }
            if confirmed == 2 { break }
        }
        guard let call = incoming else { throw BenchError("the self-call never arrived") }
        _ = await measure(phone: phone, callback: callback, call: call, subscribers: 1, iterations: min(iterations, 2000))  // warm-up
        let one = await measure(phone: phone, callback: callback, call: call, subscribers: 1, iterations: iterations)
        let four = await measure(phone: phone, callback: callback, call: call, subscribers: 4, iterations: iterations)
        try await phone.hangUp(outgoing)
        await phone.shutdown()
        progress("event latency, \(iterations) events (ns): 1 subscriber p50 \(Int(one.p50)) p99 \(Int(one.p99)); 4 subscribers p50 \(Int(four.p50)) p99 \(Int(four.p99))")
        report(["event_ns_p50": one.p50, "event_ns_p99": one.p99, "event4_ns_p50": four.p50, "event4_ns_p99": four.p99,
                "iterations": iterations])
    }
}
