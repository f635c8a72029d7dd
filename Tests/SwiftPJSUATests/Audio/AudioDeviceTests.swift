import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

@Suite("The sound device")
struct AudioDeviceTests {
    /// The null device's clock drives the bridge at normal priority: pjsua's own would switch to a
    /// real-time policy and, with media past one core, starve SIP (KL-26). Read from /proc: no
    /// thread of this process, while the null device runs, has a real-time policy.
    ///
    /// pjmedia's clock thread names itself and sets its own priority in its first instructions, so
    /// on a busy machine it can still be unnamed when the device reports active (the device is
    /// active: the thread exists and ticks as soon as it is scheduled). The test waits for the
    /// thread by name, then samples the policies over a few ticks.
    ///
    /// Root only: another user cannot raise a thread to a real-time policy, so the test would pass
    /// whatever pjmedia asked for. make test runs as root in CI (and CI runs as root).
    @Test(.enabled(if: geteuid() == 0, "root only: as another user no thread can be raised, so nothing is proved"))
    func theNullDevicesClockThreadKeepsNormalPriorityAsRoot() async throws {
        try await withEngine { phone, _, _ in
            #expect(await phone.isAudioDeviceActive)
            let seen = try await waitForThread(named: "clock", within: .seconds(10))
            let threads = try threadSchedulingPolicies()
            #expect(seen, "no bridge clock thread: \(threads)")
            for _ in 0..<10 {
                // SCHED_FIFO 1, SCHED_RR 2, SCHED_DEADLINE 6; not SCHED_BATCH 3, which Dispatch
                // gives some of this process's background threads (seen: "swift-p:disk$0").
                let realTime = try threadSchedulingPolicies().filter { [1, 2, 6].contains($0.policy) }
                #expect(realTime.isEmpty, "threads with a real-time policy: \(realTime)")
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    @Test func theEngineStartsWithNoDeviceOpenAndNullAudioFlowsOnlyWhenAsked() async throws {
        try await withEngine(.init(port: 0, bindAddress: "127.0.0.1")) { phone, _, _ in
            #expect(await !phone.isAudioDeviceActive, "the engine must not open a device on its own")
            try await phone.useNullAudioDevice()
            #expect(await phone.isAudioDeviceActive)
            await phone.deactivateAudioDevice()
            #expect(await !phone.isAudioDeviceActive)
        }
    }

    @Test func activatingWithoutASoundCardFailsWithATypedErrorAndLeavesNoDeviceOpen() async throws {
        try await withEngine(.init(port: 0, bindAddress: "127.0.0.1")) { phone, _, _ in
            let devices = try await phone.audioDevices()
            let hasCapture = devices.contains { $0.inputChannels > 0 }
            let hasPlayback = devices.contains { $0.outputChannels > 0 }
            do {
                try await phone.activateAudioDevice()
                // A machine with a sound card: activation works and the device is open.
                #expect(hasCapture || hasPlayback, "activated with no device listed: \(devices)")
                #expect(await phone.isAudioDeviceActive)
                await phone.deactivateAudioDevice()
            } catch let error as PJSUAError {
                #expect(error.code == .noSoundDevice, "\(error)")
                #expect(error.status != nil)
                #expect(await !phone.isAudioDeviceActive)
            }
        }
    }
}

/// Every thread of this process: its name and scheduling policy (0 SCHED_OTHER, 1 FIFO, 2 RR),
/// field 41 of /proc/self/task/TID/stat.
func threadSchedulingPolicies() throws -> [(name: String, policy: Int)] {
    try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").compactMap { tid in
        guard let stat = try? String(contentsOfFile: "/proc/self/task/\(tid)/stat", encoding: .utf8),
              let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { return nil }
        let name = String(stat[stat.index(after: open)..<close])
        // After "comm)" come fields 3, 4, ...: the policy (field 41) is the 39th of them.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 38, let policy = Int(fields[38]) else { return nil }
        return (name, policy)
    }
}

/// Waits until a thread of this process carries `name` (threads name themselves once scheduled).
func waitForThread(named name: String, within limit: Duration) async throws -> Bool {
    let deadline = ContinuousClock.now.advanced(by: limit)
    while ContinuousClock.now < deadline {
        if try threadSchedulingPolicies().contains(where: { $0.name == name }) { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    return false
}
