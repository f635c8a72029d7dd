import CPJSUASupport
import Foundation
import PJSUATestSupport
@testable import SwiftPJSUA
import Testing

/// The guard against running on a PJSIP library other than the one the engine was compiled
/// against (issue 19): what it measures on this build, and a real mismatch, the softphone of
/// one build run against the other build's libraries.
@Suite("Header/binary agreement")
struct LibraryCheckTests {
    /// On a matching build the measured sizes are the headers' (so the measurement works: a
    /// probe that saw nothing would report 0) and the versions agree. Measured on the engine's
    /// thread (PJLIB asserts on calls from threads it does not know).
    @Test func theLoadedLibraryMatchesTheHeadersItWasCompiledAgainst() async throws {
        try await withEngine { phone, _, _ in
            let report = await phone.libraryReport()
            #expect(report.libraryVersion == report.headerVersion)
            #expect(report.sizes.count == 4)
            for (id, size) in report.sizes {
                #expect(size.header > 0 && size.library == size.header, "\(id): \(size)")
            }
            #expect(report.problems.isEmpty, "\(report.problems)")
        }
    }

    /// This build's softphone, its PJSIP libraries replaced by the other build's (the iOS
    /// profile's, or the Linux build's when this is the profile) through LD_PRELOAD: the same
    /// version, other struct sizes (`pjsua_conf_port_info` holds PJSUA_MAX_CONF_PORTS
    /// listeners). It refuses to start with the typed error instead of corrupting memory.
    @Test func anEngineRunOnAnotherBuildsLibraryRefusesToStart() async throws {
        // /proc files report size 0: read to the end rather than by size.
        let maps = String(decoding: FileHandle(forReadingAtPath: "/proc/self/maps")?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        let ours = try #require(maps.split(separator: "\n").compactMap { line in
            line.split(separator: " ").last.map(String.init)
        }.first { $0.hasSuffix("/libpjsua.so.2") || $0.contains("/libpjsua.so.2.") }, "libpjsua is not loaded")
        let iosProfile = "/opt/pjproject-ios/lib", linux = "/usr/local/lib"
        let other = ours.hasPrefix(iosProfile) ? linux : iosProfile
        let libraries = try FileManager.default.contentsOfDirectory(atPath: other)
            .filter { $0.hasPrefix("lib") && $0.hasSuffix(".so.2") }.sorted().map { "\(other)/\($0)" }
        try #require(libraries.contains("\(other)/libpjsua.so.2"),
                     "no PJSIP build in \(other): make deps-ios-profile builds the iOS profile")
        let child = try ChildProcess(try softphone(), ["answer", "--listen", "udp:127.0.0.1:0"], name: "softphone-other-library",
                                     environment: ["LD_PRELOAD": libraries.joined(separator: ":")])
        defer { child.stop() }
        let status = try await child.waitForExit(timeout: .seconds(20))
        #expect(status != 0, "\(child.output)")
        #expect(child.output.contains("does not match the headers the engine was compiled against"), "\(child.output)")
        #expect(child.output.contains("pjsua_conf_port_info"), "\(child.output)")
    }
}

extension PJSUA {
    /// What `LibraryCheck` sees, read on the engine's thread.
    fileprivate func libraryReport() -> (headerVersion: String, libraryVersion: String,
                                         sizes: [(cpjsua_struct, cpjsua_struct_size)], problems: [PJSUAError]) {
        let ids = [CPJSUA_STRUCT_CONFIG, CPJSUA_STRUCT_ACC_CONFIG, CPJSUA_STRUCT_MEDIA_CONFIG, CPJSUA_STRUCT_CONF_PORT_INFO]
        return (String(cString: cpjsua_header_version()), String(cString: cpjsua_library_version()),
                ids.map { ($0, cpjsua_struct_size_of($0)) }, [LibraryCheck.beforeCreate, LibraryCheck.afterInit()].compactMap { $0 })
    }
}
