import Foundation
@_spi(Benchmarks) import SwiftPJSUA

/// Latency from an event being published on a foreign thread (where pjsua's callbacks run) to a
/// `for await` consumer receiving it, with 1 and with 4 subscribers.
enum EventsBenchmark {
    final class Stamps: @unchecked Sendable {
        // @unchecked Sendable: `sent` is written by the publisher before the event is published
        // and read by consumers after receiving it; the hub's lock orders the two.
        var sent: UInt64 = 0
    }

    static func measure(phone: PJSUA, subscribers: Int, iterations: Int) async -> Percentiles {
        let stamps = Stamps()
        let streams = (0..<subscribers).map { _ in phone.events }
        var latencies = [Double]()
        latencies.reserveCapacity(iterations)
        // A plain thread publishes, as pjsua's worker thread would; the first subscriber's
        // consumer measures, the others consume concurrently.
        let others = streams.dropFirst().map { stream in
            Task.detached { for await _ in stream {} }
        }
        let gate = DispatchSemaphore(value: 0)
        let publisher = Thread {
            for _ in 0..<iterations {
                gate.wait()
                stamps.sent = nanoseconds()
                phone.publishProbeEvent()
            }
        }
        publisher.start()
        var iterator = streams[0].makeAsyncIterator()
        for _ in 0..<iterations {
            gate.signal()
            _ = await iterator.next()
            latencies.append(Double(nanoseconds() - stamps.sent))
        }
        others.forEach { $0.cancel() }
        return Percentiles(latencies)
    }

    static func run(iterations: Int) async throws {
        let phone = PJSUA()
        try await phone.start(.init(port: 0, bindAddress: "127.0.0.1", audioDevice: .null))
        _ = await measure(phone: phone, subscribers: 1, iterations: min(iterations, 2000))  // warm-up
        let one = await measure(phone: phone, subscribers: 1, iterations: iterations)
        let four = await measure(phone: phone, subscribers: 4, iterations: iterations)
        await phone.shutdown()
        progress("event latency, \(iterations) events (ns): 1 subscriber p50 \(Int(one.p50)) p99 \(Int(one.p99)); 4 subscribers p50 \(Int(four.p50)) p99 \(Int(four.p99))")
        report(["event_ns_p50": one.p50, "event_ns_p99": one.p99, "event4_ns_p50": four.p50, "event4_ns_p99": four.p99,
                "iterations": iterations])
    }
}
