import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

@Suite("The sound device")
struct AudioDeviceTests {
    /// The null device's clock drives the bridge at normal priority: pjsua's own would switch to a
    /// real-time policy and, with media past one core, starve SIP (KL-26). Read from /proc: every
    /// thread of this process, while the null device runs, uses SCHED_OTHER (policy 0).
    @Test func theNullDevicesClockThreadKeepsNormalPriority() async throws {
        try await withEngine { phone, _, _ in
            #expect(await phone.isAudioDeviceActive)
            let policies = try threadSchedulingPolicies()
            #expect(policies.contains { $0.name == "clock" }, "no bridge clock thread: \(policies)")
            let realTime = policies.filter { $0.policy != 0 }
            #expect(realTime.isEmpty, "threads with a real-time policy: \(realTime)")
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
