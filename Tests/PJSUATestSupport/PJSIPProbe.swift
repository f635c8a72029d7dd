import Foundation

/// A C program under `Tests/Peers/probes/`, built against the installed PJSIP and run once: the
/// way a test checks a patch of ours in PJSIP whose failure aborts or crashes the process (a probe
/// crashing is a failed test, not a crashed test run).
public enum PJSIPProbe {
    /// Builds `Tests/Peers/probes/NAME.c` into a temporary directory and runs it with `arguments`;
    /// returns its exit status (a signal's number for a probe killed by one) and what it printed.
    public static func run(_ name: String, arguments: [String] = [], timeout: Duration = .seconds(10)) async throws -> (status: Int32, output: String) {
        // A directory of this run's own: the cases of one parameterised test build and run the same
        // probe at once (one's build replaced the program another was starting: ETXTBSY).
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("swift-pjsua-probe-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let probe = directory.appendingPathComponent(name).path
        // pkg-config follows PKG_CONFIG_PATH, so the iOS-profile run builds it against that PJSIP.
        // A probe may include the engine's C files (Sources/CPJSUASupport), which find their
        // header through the -I.
        // A PJSIP instrumented with AddressSanitizer (make deps-asan, the ASan pass's) takes its
        // runtime from the executable: the probe is then built by the Swift toolchain's clang
        // with the same sanitizers.
        let build = """
            libdir="$(pkg-config --variable=libdir swift-pjsua-pjproject)"
            compiler=cc; sanitize=""
            if nm -D "$libdir/libpj.so" 2>/dev/null | grep -q __asan_init; then
                compiler="$(dirname "$(readlink -f "$(command -v swift)")")/clang"; sanitize="-fsanitize=address,bounds,null"
            fi
            "$compiler" -w $sanitize "\(peersDirectory)/probes/\(name).c" -o "\(probe)" \
              -I"\(packageRoot)/Sources/CPJSUASupport/include" \
              $(pkg-config --cflags --libs swift-pjsua-pjproject) -Wl,-rpath,"$libdir"
            """
        let compiler = try ChildProcess("/bin/sh", ["-c", build], name: "probe-build")
        let built = try await compiler.waitForExit(timeout: .seconds(60))
        guard built == 0 else { throw ChildProcessError("probe \(name) did not build (exit \(built)): \(compiler.output)") }
        let run = try ChildProcess(probe, arguments, name: "probe-\(name)")
        let status = try await run.waitForExit(timeout: timeout)
        return (status, run.output)
    }
}
