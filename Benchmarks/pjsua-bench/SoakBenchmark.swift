import SwiftPJSUA

/// N self-call cycles: resident memory and open file descriptors after warm-up and at the end.
enum SoakBenchmark {
    /// Longer than PJSIP's longest transaction timer (Timer J / Timer D: 32 s).
    static let settleSeconds = 40

    static func run(calls: Int) async throws {
        let phone = PJSUA()
        let transport = try await phone.start(.init(port: 0, bindAddress: "127.0.0.1", audioDevice: .null))
        var caller = SelfCaller(phone: phone, uri: transport.uri(user: "soak"))
        // Warm-up: every call slot used at least twice (pjsua rotates slots; each grows its pool
        // once), plus transaction and codec state.
        for _ in 0..<PJSUA.maxCallsLimit { _ = try await caller.cycle() }
        let rssStart = residentKilobytes(), fdsStart = openFileDescriptors()
        for index in 0..<calls {
            _ = try await caller.cycle()
            if (index + 1) % 250 == 0 {
                progress("soak: \(index + 1) calls, RSS \(residentKilobytes()) kB, fds \(openFileDescriptors())")
            }
        }
        let rssEnd = residentKilobytes(), fdsEnd = openFileDescriptors()
        // A cycle takes about a millisecond, so the calls' finished SIP transactions are all still
        // waiting out their timers (Timer J, 32 s for a non-INVITE over UDP) with their pools:
        // memory held for a while, not leaked. Measure again once they are gone.
        progress("soak: \(calls) calls done, RSS \(rssEnd) kB; waiting \(settleSeconds) s for SIP transactions to expire")
        try await Task.sleep(for: .seconds(settleSeconds))
        let rssSettled = residentKilobytes()
        await phone.shutdown()
        progress("soak over \(calls) calls: RSS \(rssStart) -> \(rssEnd) kB right after, \(rssSettled) kB settled (\(rssSettled - rssStart) kB), fds \(fdsStart) -> \(fdsEnd)")
        report(["rss_start_kb": rssStart, "rss_end_kb": rssEnd, "rss_settled_kb": rssSettled, "rss_growth_kb": rssSettled - rssStart,
                "settle_s": settleSeconds, "fds_start": fdsStart, "fds_end": fdsEnd, "calls": calls])
    }
}
