import Testing
@testable import SwiftPJSUAKit

@Suite("SIP status to call-ended reason")
struct CallEndReasonTests {
    @Test(arguments: [
        (408, CallEndReason.unanswered), (480, .unanswered), (486, .unanswered), (487, .unanswered),
        (600, .unanswered), (603, .declinedElsewhere), (607, .declinedElsewhere), (200, .answeredElsewhere),
        (0, .failed), (404, .failed), (500, .failed), (503, .failed), (488, .failed),
    ])
    func unestablishedCallsMapByStatusCode(code: Int, expected: CallEndReason) {
        #expect(CallEndReason(sipStatusCode: .init(rawValue: code), wasConnected: false) == expected)
    }

    @Test(arguments: [0, 200, 408, 486, 503])
    func establishedCallsAlwaysEndAsRemoteEnded(code: Int) {
        #expect(CallEndReason(sipStatusCode: .init(rawValue: code), wasConnected: true) == .remoteEnded)
    }
}
