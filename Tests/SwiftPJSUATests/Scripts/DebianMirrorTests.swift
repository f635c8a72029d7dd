import Foundation
import PJSUATestSupport
import Testing

/// scripts/debian-mirror.sh: install-pjproject.sh fetches pjproject's source through the Debian
/// mirror the machine's apt already uses (a local mirror or a proxy), not a fixed host.
@Suite("The install script's Debian mirror")
struct DebianMirrorTests {
    private func mirror(files: [String: String], environment: [String: String] = [:]) async throws -> String {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var paths: [String] = []
        for (name, text) in files.sorted(by: { $0.key < $1.key }) {
            try text.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
            paths.append(directory + "/" + name)
        }
        let child = try ChildProcess("bash", [packageRoot + "/scripts/debian-mirror.sh"], name: "debian-mirror",
                                     environment: ["APT_SOURCE_FILES": (paths + [directory + "/missing.list"]).joined(separator: " ")]
                                        .merging(environment) { $1 })
        #expect(try await child.waitForExit(timeout: .seconds(10)) == 0)
        return child.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aDeb822EntryForTheReleaseWinsOverTheSecurityArchive() async throws {
        let found = try await mirror(files: ["a.sources": """
            Types: deb
            URIs: http://security.mirror.local/debian-security
            Suites: bookworm-security

            Types: deb
            # a comment
            URIs: http://mirror.local/debian
            Suites: bookworm bookworm-updates
            Components: main
            """])
        #expect(found == "http://mirror.local/debian")
    }

    @Test func aOneLineEntryWithOptionsBehindAProxy() async throws {
        let found = try await mirror(files: ["b.list": """
            # deb http://commented.example/debian bookworm main
            deb http://proxy.local:3142/debian-security bookworm-security main
            deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://proxy.local:3142/debian bookworm main
            """])
        #expect(found == "http://proxy.local:3142/debian")
    }

    @Test func noDebianEntryFallsBackToDebDebianOrgAndTheVariableOverrides() async throws {
        let none = try await mirror(files: ["c.list": "deb https://packages.example.com/apt stable main\n"])
        #expect(none == "http://deb.debian.org/debian")
        let chosen = try await mirror(files: [:], environment: ["DEBIAN_MIRROR": "http://chosen.local/debian"])
        #expect(chosen == "http://chosen.local/debian")
    }
}
