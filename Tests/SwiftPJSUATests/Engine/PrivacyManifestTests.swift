import Foundation
import PJSUATestSupport
@testable import SwiftPJSUA
import Testing

/// The privacy manifest an iOS app gets with SwiftPJSUA: a valid property list, shipped in the
/// module's resource bundle, declaring the required-reason APIs PJSIP calls.
@Suite("Privacy manifest")
struct PrivacyManifestTests {
    /// The manifest as built into the module's resources (what Xcode merges into the app).
    private func shippedManifest() throws -> [String: Any] {
        let url = try #require(Bundle.module.url(forResource: "PrivacyInfo", withExtension: "xcprivacy"),
                               "PrivacyInfo.xcprivacy is not in SwiftPJSUA's resource bundle")
        var format = PropertyListSerialization.PropertyListFormat.binary
        let data = try #require(readFile(url.path), "cannot read \(url.path)")
        let plist = try PropertyListSerialization.propertyList(from: data, options: [], format: &format)
        #expect(format == .xml)
        return try #require(plist as? [String: Any], "the top level is not a dictionary")
    }

    @Test func isAValidPropertyListThatTracksNothing() throws {
        let manifest = try shippedManifest()
        #expect(manifest["NSPrivacyTracking"] as? Bool == false)
        #expect((manifest["NSPrivacyTrackingDomains"] as? [Any])?.isEmpty == true)
        #expect((manifest["NSPrivacyCollectedDataTypes"] as? [Any])?.isEmpty == true)
    }

    @Test func declaresPJSIPsRequiredReasonAPIs() throws {
        let entries = try #require(try shippedManifest()["NSPrivacyAccessedAPITypes"] as? [[String: Any]])
        var reasons: [String: [String]] = [:]
        for entry in entries {
            let type = try #require(entry["NSPrivacyAccessedAPIType"] as? String)
            reasons[type] = try #require(entry["NSPrivacyAccessedAPITypeReasons"] as? [String])
        }
        // PJLIB's timestamps read the system boot time; 35F9.1 is "time elapsed between events".
        #expect(reasons["NSPrivacyAccessedAPICategorySystemBootTime"] == ["35F9.1"])
        // PJLIB's file access stats files (WAV players and recorders) inside the app container.
        #expect(reasons["NSPrivacyAccessedAPICategoryFileTimestamp"] == ["C617.1"])
    }
}
