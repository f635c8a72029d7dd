import Foundation
import SwiftPJSUA
import Testing

/// The values of presence and voicemail: what a summary body reads as, and the input the
/// presence API refuses with a typed error.
struct PresenceValueTests {
    @Test func aMessageSummaryReadsItsCountsURIAndWaitingFlag() {
        let full = PJSUA.MessageWaiting(account: nil, isSolicited: true,
                                        body: "Messages-Waiting: yes\r\nMessage-Account: sip:*97@pbx\r\nVoice-Message: 4/12 (2/1)\r\nFax-Message: 1/0\r\n")
        #expect(full.isWaiting)
        #expect(full.voicemailURI == "sip:*97@pbx")
        #expect((full.newMessages, full.oldMessages, full.urgentNew, full.urgentOld) == (4, 12, 2, 1))

        let none = PJSUA.MessageWaiting(account: nil, isSolicited: false, body: "messages-waiting: NO\nvoice-message: 0/3\n")
        #expect(!none.isWaiting)
        #expect((none.newMessages, none.oldMessages, none.urgentNew, none.urgentOld) == (0, 3, 0, 0))
        #expect(none.voicemailURI.isEmpty)

        let garbage = PJSUA.MessageWaiting(account: nil, isSolicited: false, body: "Voice-Message: lots\nno colon here")
        #expect((garbage.isWaiting, garbage.newMessages, garbage.oldMessages) == (false, 0, 0))
    }

    @Test func presenceInputOutsideItsRangeIsATypedError() async throws {
        try await withEngine { phone, _, _ in
            for bad in [PJSUA.SubscriptionRetry(firstAfter: .zero, interval: .seconds(60), afterRefusal: nil),
                        PJSUA.SubscriptionRetry(firstAfter: .seconds(1), interval: .seconds(100_000), afterRefusal: nil),
                        PJSUA.SubscriptionRetry(firstAfter: .seconds(1), interval: .seconds(1), afterRefusal: .milliseconds(-5))] {
                await #expect(throws: PJSUAError.self, "\(bad)") { try await phone.setSubscriptionRetry(bad) }
            }
            await #expect(throws: PJSUAError.self) { try await phone.setSubscriptionPolicy(.refuse(.ringing)) }
            await #expect(throws: PJSUAError.self) { try await phone.setPresence(.init(isOnline: true, note: "line\r\nInjected: yes")) }
            await #expect(throws: PJSUAError.self) { try await phone.addBuddy("tel:+15551234") }
        }
        // Not started: a typed error, not a trap.
        let idle = PJSUA()
        await #expect(throws: PJSUAError.self) { try await idle.addBuddy("sip:bob@127.0.0.1") }
        #expect(await idle.buddies.isEmpty)
    }
}
