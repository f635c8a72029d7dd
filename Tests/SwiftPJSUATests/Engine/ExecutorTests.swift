import Foundation
@testable import SwiftPJSUA
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("The engine's executor")
struct ExecutorTests {
    @Test func engineMethodsRunOnTheRegisteredExecutorThread() async throws {
        let phone = PJSUA()
        let report = await phone.threadReport()
        #expect(report.onExecutor)
        #expect(report.registeredWithPJLIB)
        #expect(!phone.executor.isCurrent)
        #expect(phone.executor.isIsolatingCurrentContext() == false)
    }

    @Test func workRunsInFIFOOrder() async throws {
        let executor = PJSUAExecutor(name: "fifo-test")
        defer { executor.shutdown() }
        let order = OrderLog()
        let count = 2_000
        for index in 0..<count {
            executor.execute { order.append(index) }
        }
        try await waitUntil("all blocks ran") { order.count == count }
        #expect(order.values == Array(0..<count))
    }

    @Test func shutdownRunsPendingWorkAndJoinsTheThread() {
        let executor = PJSUAExecutor(name: "join-test")
        let order = OrderLog()
        for index in 0..<100 { executor.execute { usleep(100); order.append(index) } }
        executor.shutdown()
        #expect(order.count == 100)
        executor.shutdown()  // idempotent
    }

    @Test func anIdleExecutorThreadUsesNoCPU() async throws {
        let executor = PJSUAExecutor(name: "idle-test")
        defer { executor.shutdown() }
        let clock = Box<clockid_t>()
        executor.execute {
            var id = clockid_t()
            pthread_getcpuclockid(pthread_self(), &id)
            clock.value = id
        }
        try await waitUntil("clock id") { clock.value != nil }
        let id = try #require(clock.value)
        func cpuNanoseconds() -> Int {
            var time = timespec()
            clock_gettime(id, &time)
            return time.tv_sec * 1_000_000_000 + time.tv_nsec
        }
        let before = cpuNanoseconds()
        try await Task.sleep(for: .seconds(1))
        let used = cpuNanoseconds() - before
        // A polling or spinning loop would use most of a core; a sleeping thread uses nothing.
        #expect(used < 1_000_000, "idle executor thread used \(used) ns of CPU in 1 s")
    }
}
