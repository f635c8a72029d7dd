import Foundation
import PJSUATestSupport
import Testing

/// The .pc file install-pjproject.sh writes for the Swift module links pjproject's C libraries
/// only: libpjsua2 (the C++ API) was linked into every binary although nothing calls it, and its
/// static destructors ran at exit.
@Suite("The libraries our binaries link")
struct LinkedLibrariesTests {
    @Test func neitherSoftphoneNorAProcessRunningTheEngineLoadsPJSUA2() async throws {
        let pkgConfig = try ChildProcess("pkg-config", ["--libs", "swift-pjsua-pjproject"], name: "pkg-config")
        #expect(try await pkgConfig.waitForExit(timeout: .seconds(10)) == 0)
        #expect(pkgConfig.output.contains("-lpjsua "), "\(pkgConfig.output)")
        #expect(!pkgConfig.output.contains("-lpjsua2"), "\(pkgConfig.output)")

        let ldd = try ChildProcess("ldd", [try softphone()], name: "ldd-softphone")
        #expect(try await ldd.waitForExit(timeout: .seconds(10)) == 0)
        #expect(ldd.output.contains("libpjsua.so"), "\(ldd.output)")
        #expect(!ldd.output.contains("libpjsua2"), "\(ldd.output)")

        // This test process links the engine the same way.
        let maps = readText("/proc/self/maps") ?? ""
        #expect(maps.contains("libpjsua.so"))
        #expect(!maps.contains("libpjsua2"))
    }
}
