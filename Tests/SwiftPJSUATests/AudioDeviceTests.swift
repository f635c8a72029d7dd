import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

@Suite("The sound device")
struct AudioDeviceTests {
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
