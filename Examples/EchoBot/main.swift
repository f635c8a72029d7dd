import SwiftPJSUA

// A voice bot on the frames API: answers every call, greets with a tone, echoes the caller back,
// collects DTMF and hangs up on '#'. Usage: echo-bot [PORT] (default 5070; loopback, no sound card).
let port = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 5070
let phone = PJSUA()
let transport = try await phone.start(.init(port: port, transport: .udp, bindAddress: "127.0.0.1", audioDevice: .null))
print("echo bot listening on \(transport.uri())")
let format = PJSUA.AudioFormat(sampleRate: .hz16000, frameDuration: .ms20)
let greeting = try WAVFile.tone(frequency: 440, duration: .milliseconds(400), sampleRate: 16_000).samples
var digits: [PJSUA.Call: String] = [:]
for await event in phone.events {
    do {
        switch event {
        case let .incomingCall(_, call, _, _, _):
            try await phone.answer(call)
        case let .callMedia(call, .active, _) where digits[call] == nil:
            digits[call] = ""
            let writer = try await phone.sendAudio(to: call, format: format, whenFull: .dropOldest)
            for start in stride(from: 0, to: greeting.count - format.samplesPerFrame + 1, by: format.samplesPerFrame) {
                try await writer.write(Array(greeting[start..<start + format.samplesPerFrame]))
            }
            let frames = try await phone.receiveAudio(from: call, format: format)
            Task { for await frame in frames { try? await writer.write(frame) } }
        case let .dtmf(call, key):
            digits[call, default: ""].append(key.digit)
            if key.digit == "#" {
                print("\(call) keyed \(digits[call, default: ""])")
                try await phone.hangUp(call)
            }
        case let .callState(call, .disconnected, _, _):
            digits[call] = nil
        default:
            break
        }
    } catch {
        print("error: \(error)")
    }
}
