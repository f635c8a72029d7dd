import Foundation
import SwiftPJSUA
import Testing
@testable import SwiftPJSUAKit

/// An error type that is not `Equatable`, to check the fallback comparison.
private struct OpaqueFailure: Error, CustomStringConvertible {
    let text: String
    var description: String { text }
}

@Suite("CallOrchestratorError: the wrapped engine error")
struct CallOrchestratorErrorTests {
    @Test func anEngineFailureKeepsTheEnginesTypedError() {
        let refused = PJSUAError(.invalidArgument, "bad digits")
        let error = CallOrchestratorError.engine(refused)
        guard case let .engine(wrapped as PJSUAError) = error else {
            Issue.record("the payload is not the PJSUAError thrown")
            return
        }
        #expect(wrapped == refused)
        #expect(error.description == "engine: \(refused)")
    }

    @Test func wrappedEquatableErrorsCompareByTheirOwnEquality() {
        let a = PJSUAError(.invalidArgument, "a")
        #expect(CallOrchestratorError.engine(a) == .engine(PJSUAError(.invalidArgument, "a")))
        #expect(CallOrchestratorError.engine(a) != .engine(PJSUAError(.invalidArgument, "b")))
        #expect(CallOrchestratorError.engine(a) != .audioSession(a), "the case matters, not only the payload")
    }

    @Test func wrappedErrorsOfOtherTypesCompareByTypeAndDescription() {
        #expect(CallOrchestratorError.engine(OpaqueFailure(text: "x")) == .engine(OpaqueFailure(text: "x")))
        #expect(CallOrchestratorError.engine(OpaqueFailure(text: "x")) != .engine(OpaqueFailure(text: "y")))
        #expect(CallOrchestratorError.engine(OpaqueFailure(text: "x")) != .engine(FakeFailure(operation: "x")),
                "same description, different type")
    }
}
