import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

/// Many start/shutdown cycles and a shutdown under load: nothing accumulates, nothing is left
/// hanging.
@Suite("Engine lifecycle under stress")
struct LifecycleStressTests {
    /// The process's figures around 200 start/shutdown cycles after a warm-up of 40 (half on one
    /// engine object, half each on a new one, whose executor thread is created and ended each
    /// time), each cycle with a call: before, after the first 100, and once threads and
    /// descriptors have come back to the warm-up count.
    static func cycles() async throws -> (before: ProcessFigures, halfway: ProcessFigures, after: ProcessFigures) {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let reused = PJSUA()
        func cycle(_ phone: PJSUA, _ index: Int) async throws {
            let log = EventLog(phone.events)
            let transport = try await phone.start(.init(port: 0, bindAddress: "127.0.0.1", audioDevice: .null))
            let call = try await phone.makeCall(to: transport.uri(user: "cycle-\(index)"))
            try await log.state(call, .calling)
            await phone.shutdown()
            try await waitUntil("cycle \(index) events finished") { log.isFinished }
        }
        for index in 0..<40 { try await cycle(index.isMultiple(of: 2) ? reused : PJSUA(), index) }
        let before = ProcessFigures.now()
        for index in 40..<140 { try await cycle(index.isMultiple(of: 2) ? reused : PJSUA(), index) }
        let halfway = ProcessFigures.now()
        for index in 140..<240 { try await cycle(index.isMultiple(of: 2) ? reused : PJSUA(), index) }
        // Released engines end their threads on their own, a moment after their last job: wait
        // for threads and descriptors to come back rather than read them once (a leak never comes
        // back, and fails here). The figures are the whole process's, so make test runs these
        // suites in a test process of their own (the Makefile's OWN_PROCESS_SUITES): beside other
        // tests, a child's pipes and the threads that watch it moved the same figures, and the
        // wait outlasted its bound while the video suites' children came and went (stop 44's CI).
        try await waitUntil("threads and descriptors back to the warm-up count") {
            let now = ProcessFigures.now()
            return now.threads <= before.threads && now.descriptors <= before.descriptors
        }
        return (before, halfway, ProcessFigures.now())
    }

    /// 200 cycles: threads and file descriptors come back to where they were after the warm-up.
    /// (In make test's asan-own run, with LeakSanitizer at exit; memory growth is
    /// ``LifecycleMemoryTests``', unsanitized.)
    @Test func twoHundredStartShutdownCyclesLeaveNoThreadsOrDescriptorsBehind() async throws {
        let (before, _, after) = try await Self.cycles()
        #expect(after.threads <= before.threads, "threads \(before.threads) -> \(after.threads)")
        #expect(after.descriptors <= before.descriptors, "fds \(before.descriptors) -> \(after.descriptors)")
    }

    /// 50 live call legs (25 answered self-calls) at shutdown: every leg ends with DISCONNECTED,
    /// and every subscriber's sequence finishes.
    @Test func shutdownWithFiftyLiveCallsEndsEveryCallAndEverySequence() async throws {
        await EngineTurns.shared.acquire()
        defer { Task { await EngineTurns.shared.release() } }
        let phone = PJSUA()
        let logs = (0..<3).map { _ in EventLog(phone.events) }
        let log = logs[0]
        let transport = try await phone.start(.init(port: 0, bindAddress: "127.0.0.1", maxCalls: 64, audioDevice: .null))
        var legs: [PJSUA.Call] = []
        for index in 0..<25 {
            let caller = try await phone.makeCall(to: transport.uri(user: "live-\(index)"))
            legs.append(caller)
        }
        try await waitUntil("25 incoming calls") {
            log.all.filter { if case .incomingCall = $0 { true } else { false } }.count == 25
        }
        for event in log.all {
            if case let .incomingCall(_, call, _, _, _) = event {
                try await phone.answer(call)
                legs.append(call)
            }
        }
        for leg in legs { try await log.state(leg, .confirmed) }
        #expect(try await phone.activeCalls().count == 50)
        await phone.shutdown()
        for events in logs {
            try await waitUntil("a subscriber's sequence finished") { events.isFinished }
            for leg in legs {
                #expect(events.states(of: leg).last == .disconnected, "\(leg): \(events.states(of: leg))")
            }
        }
    }
}

/// Threads, open descriptors and resident memory of this process (Linux /proc).
struct ProcessFigures {
    let threads: Int
    let descriptors: Int
    let residentKB: Int

    /// Whether AddressSanitizer's or ThreadSanitizer's runtime is loaded (`make asan`, `make tsan`).
    static let underSanitizer: Bool = {
        guard let process = dlopen(nil, RTLD_NOW) else { return false }
        defer { dlclose(process) }
        return dlsym(process, "__asan_init") != nil || dlsym(process, "__tsan_init") != nil
    }()

    static func now() -> ProcessFigures {
        releaseFreedHeap()
        let status = readText("/proc/self/status") ?? ""
        func field(_ name: String) -> Int {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return -1 }
            return Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") ?? -1
        }
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
        return ProcessFigures(threads: field("Threads"), descriptors: descriptors, residentKB: field("VmRSS"))
    }
}

/// Memory over the same 200 start/shutdown cycles, unsanitized (make test's main-own run):
/// sanitizers keep freed memory in quarantine and grow shadow memory, so RSS says nothing under
/// them, and the engine suites run sanitized.
@Suite("Engine lifecycle: memory per cycle, unsanitized")
struct LifecycleMemoryTests {
    /// Memory does not keep growing: not in both halves of 200 cycles, and by less than 8 MB in
    /// all. Each thread that ends may leave a malloc arena behind (glibc keeps up to 8 per core),
    /// so memory may grow while threads come and go, then stops: a leak grows in both halves.
    @Test func twoHundredStartShutdownCyclesLeaveNoMemoryBehind() async throws {
        try #require(!ProcessFigures.underSanitizer, "RSS means nothing under a sanitizer: this suite runs in the unsanitized pass")
        let (before, halfway, after) = try await LifecycleStressTests.cycles()
        print("lifecycle memory: RSS \(before.residentKB) -> \(halfway.residentKB) -> \(after.residentKB) kB")
        #expect(after.residentKB - halfway.residentKB < 1_024 || halfway.residentKB - before.residentKB < 1_024,
                "RSS grew in both halves of 200 cycles: \(before.residentKB) -> \(halfway.residentKB) -> \(after.residentKB) kB")
        #expect(after.residentKB - before.residentKB < 8_192, "RSS \(before.residentKB) kB -> \(after.residentKB) kB")
    }
}
