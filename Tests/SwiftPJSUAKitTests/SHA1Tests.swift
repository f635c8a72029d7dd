import Testing
@testable import SwiftPJSUAKit

@Suite("SHA-1 (FIPS 180 test vectors)")
struct SHA1Tests {
    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    @Test func digestOfAbcMatchesFIPS180() {
        #expect(hex(SHA1.digest(of: Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
    }

    @Test func digestOfEmptyMessageMatchesFIPS180() {
        #expect(hex(SHA1.digest(of: [UInt8]())) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
    }

    @Test func digestOf448BitMessageMatchesFIPS180() {
        let message = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
        #expect(hex(SHA1.digest(of: Array(message.utf8))) == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
    }

    @Test func digestOfOneMillionLetterAMatchesFIPS180() {
        var hasher = SHA1()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { hasher.update(chunk) }
        #expect(hex(hasher.finalize()) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    @Test(arguments: [1, 55, 56, 63, 64, 65, 119, 120, 200])
    func incrementalUpdatesAcrossBlockBoundariesEqualOneShotDigest(split: Int) {
        let message = [UInt8]((0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        var hasher = SHA1()
        hasher.update(message[..<split])
        hasher.update(message[split...])
        #expect(hasher.finalize() == SHA1.digest(of: message))
    }
}
