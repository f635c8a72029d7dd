import Foundation
import Testing
@testable import SwiftPJSUAKit

@Suite("Call identity (UUIDv5 of the Call-ID, or the server's UUID)")
struct CallIdentityTests {
    @Test func version5UUIDMatchesRFC4122DNSVector() throws {
        let dns = try #require(UUID(uuidString: "6ba7b810-9dad-11d1-80b4-00c04fd430c8"))
        let uuid = UUID(version5Namespace: dns, name: "www.example.com")
        #expect(uuid.uuidString.lowercased() == "2ed6657d-e927-568b-95e1-2665a8aea6a2")
    }

    @Test func namespaceIsTheDocumentedFixedValue() {
        #expect(CallIdentity.namespace.uuidString.lowercased() == "9b7a3f4e-2c1d-4e8b-a6f0-5d3c2b1a0e9f")
    }

    @Test func callIDUUIDIsDeterministicVersion5AndDistinctPerCallID() {
        let a = CallIdentity.uuid(forSIPCallID: "a84b4c76e66710@pc33.example.com")
        let again = CallIdentity.uuid(forSIPCallID: "a84b4c76e66710@pc33.example.com")
        let b = CallIdentity.uuid(forSIPCallID: "a84b4c76e66711@pc33.example.com")
        #expect(a == again)
        #expect(a != b)
        #expect(a.uuid.6 >> 4 == 5)
        #expect(a.uuid.8 & 0xC0 == 0x80)
        #expect(a == UUID(version5Namespace: CallIdentity.namespace, name: "a84b4c76e66710@pc33.example.com"))
    }

    @Test func serverSuppliedUUIDWinsOverTheCallIDUUID() {
        let server = UUID()
        #expect(CallIdentity.uuid(forSIPCallID: "x@y", serverUUID: server) == server)
        #expect(CallIdentity.uuid(forSIPCallID: "x@y", serverUUID: nil) == CallIdentity.uuid(forSIPCallID: "x@y"))
    }
}
