import Foundation
@testable import softphone
import SwiftPJSUA
import Testing

@Suite("softphone --json: every record prints")
struct OutputTests {
    /// A field of one of our own types (a SIPURI, a call handle) becomes its description, so the
    /// record it is in still prints (JSONSerialization refuses such a value, and the record was
    /// dropped without a word); JSON values pass as they are.
    @Test func fieldsOfOurOwnTypesPrintAsTheirDescriptionAndJSONValuesAsThemselves() throws {
        let uri: PJSUA.SIPURI = "sip:bob@example.com"
        #expect(Output.jsonValue(uri) as? String == "sip:bob@example.com")
        #expect(Output.jsonValue(42) as? Int == 42)
        #expect(Output.jsonValue(true) as? Bool == true)
        #expect(Output.jsonValue("text") as? String == "text")
        #expect(Output.jsonValue(["a", "b"]) as? [String] == ["a", "b"])

        let fields: [(String, any Sendable)] = [("uri", uri), ("port", 5060), ("headers", ["X-A: 1"])]
        var object: [String: Any] = ["event": "listening"]
        for (key, value) in fields { object[key] = Output.jsonValue(value) }
        let line = String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
        #expect(line == #"{"event":"listening","headers":["X-A: 1"],"port":5060,"uri":"sip:bob@example.com"}"#)
    }
}
