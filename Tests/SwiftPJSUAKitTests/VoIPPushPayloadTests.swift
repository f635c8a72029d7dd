import Foundation
import Testing
@testable import SwiftPJSUAKit

@Suite("VoIP push payload parsing")
struct VoIPPushPayloadTests {
    private func parse(_ json: String) -> Result<VoIPPushPayload, PushPayloadError> {
        Result { () throws(PushPayloadError) in try VoIPPushPayload(jsonData: Data(json.utf8)) }
    }

    @Test func fullVersion1PayloadParsesEveryField() throws {
        let payload = try VoIPPushPayload(jsonData: Data("""
        {"v":1,"call-id":"abc@host","uuid":"2ED6657D-E927-568B-95E1-2665A8AEA6A2","caller":"sip:alice@example.com",
         "display-name":"Alice","video":true,"cancelled":false,"future-field":[1,2]}
        """.utf8))
        #expect(payload.sipCallID == "abc@host")
        #expect(payload.uuid == UUID(uuidString: "2ed6657d-e927-568b-95e1-2665a8aea6a2"))
        #expect(payload.caller == "sip:alice@example.com")
        #expect(payload.displayName == "Alice")
        #expect(payload.hasVideo)
        #expect(!payload.isCancelled)
    }

    @Test func minimalPayloadDefaultsOptionalFields() throws {
        let payload = try VoIPPushPayload(jsonData: Data(#"{"v":1,"call-id":"x"}"#.utf8))
        #expect(payload == VoIPPushPayload(sipCallID: "x"))
    }

    @Test func dictionaryPayloadFromPushKitParsesAndIgnoresNonStringKeys() throws {
        let dictionary: [AnyHashable: Any] = ["v": 1, "call-id": "id-1", "cancelled": true, 42: "ignored",
                                              "aps": ["alert": "x"]]
        let payload = try VoIPPushPayload(dictionaryPayload: dictionary)
        #expect(payload.sipCallID == "id-1")
        #expect(payload.isCancelled)
    }

    @Test(arguments: [
        (#"{"call-id":"x"}"#, PushPayloadError.missingField("v")),
        (#"{"v":1}"#, .missingField("call-id")),
        (#"{"v":"1","call-id":"x"}"#, .wrongType(field: "v", expected: "an integer")),
        (#"{"v":1.5,"call-id":"x"}"#, .wrongType(field: "v", expected: "an integer")),
        (#"{"v":2,"call-id":"x"}"#, .unsupportedVersion(2)),
        (#"{"v":1,"call-id":7}"#, .wrongType(field: "call-id", expected: "a string")),
        (#"{"v":1,"call-id":""}"#, .invalidValue(field: "call-id", reason: "it is empty")),
        (#"{"v":1,"call-id":"a b"}"#, .invalidValue(field: "call-id", reason: "it must be visible ASCII with no spaces")),
        (#"{"v":1,"call-id":"x","uuid":"nope"}"#, .invalidValue(field: "uuid", reason: "it is not a UUID")),
        (#"{"v":1,"call-id":"x","uuid":5}"#, .wrongType(field: "uuid", expected: "a string")),
        (#"{"v":1,"call-id":"x","caller":["a"]}"#, .wrongType(field: "caller", expected: "a string")),
        (#"{"v":1,"call-id":"x","display-name":"a\u0007b"}"#, .invalidValue(field: "display-name", reason: "it contains control characters")),
        (#"{"v":1,"call-id":"x","video":"yes"}"#, .wrongType(field: "video", expected: "a boolean")),
        (#"{"v":1,"call-id":"x","cancelled":null}"#, .wrongType(field: "cancelled", expected: "a boolean")),
        (#"[1,2,3]"#, .notAnObject),
        (#""just a string""#, .notAnObject),
        (#"{"v":1,"call-id":"x""#, .malformedJSON),
        ("", .malformedJSON),
        ("\u{FF}\u{FE}garbage", .malformedJSON),
    ])
    func malformedPayloadsGiveTheNamedTypedError(json: String, expected: PushPayloadError) {
        #expect(parse(json) == .failure(expected))
    }

    @Test func oversizedStringsAreRefusedByTheirCaps() {
        let longID = String(repeating: "a", count: VoIPPushPayload.maximumCallIDBytes + 1)
        #expect(parse(#"{"v":1,"call-id":"\#(longID)"}"#)
            == .failure(.fieldTooLong(field: "call-id", limit: VoIPPushPayload.maximumCallIDBytes)))
        let longName = String(repeating: "é", count: VoIPPushPayload.maximumTextBytes / 2 + 1)
        #expect(parse(#"{"v":1,"call-id":"x","display-name":"\#(longName)"}"#)
            == .failure(.fieldTooLong(field: "display-name", limit: VoIPPushPayload.maximumTextBytes)))
        let exact = String(repeating: "a", count: VoIPPushPayload.maximumCallIDBytes)
        #expect((try? parse(#"{"v":1,"call-id":"\#(exact)"}"#).get())?.sipCallID == exact)
    }

    @Test func payloadsLargerThanTheLimitAreRefusedBeforeParsing() {
        let filler = String(repeating: " ", count: VoIPPushPayload.maximumPayloadBytes)
        let json = #"{"v":1,"call-id":"x"}"# + filler
        #expect(parse(json) == .failure(.payloadTooLarge(bytes: json.utf8.count,
                                                    limit: VoIPPushPayload.maximumPayloadBytes)))
    }

    @Test func deeplyNestedJSONIsRefusedWithoutRecursing() {
        let depth = 4000
        let json = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(parse(json) == .failure(.malformedJSON))
        let nestedInObject = #"{"v":1,"call-id":"x","extra":"# + String(repeating: "[", count: 9) + String(repeating: "]", count: 9) + "}"
        #expect(parse(nestedInObject) == .failure(.malformedJSON))
    }

    @Test func bracketsInsideStringsDoNotCountAsNesting() throws {
        let payload = try VoIPPushPayload(jsonData: Data(#"{"v":1,"call-id":"x","display-name":"[[[[[[[[[[[\"{{{{{{{{{{"}"#.utf8))
        #expect(payload.displayName == #"[[[[[[[[[[["{{{{{{{{{{"#)
    }

    @Test func randomBytesNeverTrapAndAlwaysGiveATypedError() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let count = Int.random(in: 0..<64, using: &generator)
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if case .success = Result(catching: { () throws(PushPayloadError) in try VoIPPushPayload(jsonData: Data(bytes)) }) {
                Issue.record("random bytes \(bytes) parsed as a payload")
            }
        }
    }
}
