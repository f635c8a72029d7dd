import Foundation

/// A virtual X display (Xvfb) as a peer: the screen a test's windows appear on, screenshots of
/// it (`xwd`), and where a window is (`xwininfo`). Xvfb picks a free display number itself
/// (`-displayfd`), so parallel runs never collide; `stop()` (or deinit) ends it by its PID.
public final class Xvfb: @unchecked Sendable {
    // @unchecked Sendable: immutable after init; ChildProcess is Sendable.
    public let process: ChildProcess
    /// The display's name for `DISPLAY`, e.g. `:3`.
    public let display: String
    public let width: Int
    public let height: Int

    /// Starts Xvfb with one `width`x`height` 24-bit screen (black root window, no TCP listener)
    /// and waits until it accepts clients.
    public init(width: Int = 640, height: Int = 480, timeout: Duration = .seconds(15)) async throws {
        self.width = width
        self.height = height
        // -displayfd 1: Xvfb chooses an unused display and prints its number on stdout once it
        // is ready for clients.
        process = try ChildProcess("Xvfb", ["-displayfd", "1", "-screen", "0", "\(width)x\(height)x24", "-nolisten", "tcp"],
                                   name: "xvfb")
        func number(in output: String) -> Int? {
            output.split(whereSeparator: \.isNewline).lazy.compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.first
        }
        do {
            try await process.waitForOutput("choose a display", timeout: timeout) { number(in: $0) != nil }
        } catch {
            process.stop()
            throw error
        }
        display = ":\(number(in: process.output) ?? 0)"
    }

    deinit { stop() }

    public func stop() { process.stop() }

    /// Runs an X client against this display to completion; its output.
    func run(_ tool: String, _ arguments: [String], timeout: Duration = .seconds(15)) async throws -> String {
        let client = try ChildProcess(tool, arguments + ["-display", display], name: tool)
        defer { client.stop() }
        let status = try await client.waitForExit(timeout: timeout)
        guard status == 0 else { throw ChildProcessError(client.explain("\(arguments) failed")) }
        return client.output
    }

    /// A screenshot of the whole screen (`xwd -root`).
    public func screenshot() async throws -> XWDImage {
        let path = NSTemporaryDirectory() + "swift-pjsua-screen-\(UUID().uuidString.prefix(8)).xwd"
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = try await run("xwd", ["-root", "-silent", "-out", path])
        return try XWDImage(Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Where a window titled `title` is on the screen (its inside, without borders), from
    /// `xwininfo -root -tree`; nil when there is no such window.
    public func windowFrame(titled title: String) async throws -> (x: Int, y: Int, width: Int, height: Int)? {
        let tree = try await run("xwininfo", ["-root", "-tree"])
        // A line reads: `0x200008 "title": ("res" "class")  480x360+40+30  +40+30`; the last field
        // is the position on the screen.
        guard let line = tree.split(whereSeparator: \.isNewline).first(where: { $0.contains("\"\(title)\"") }) else { return nil }
        let fields = line.split(separator: " ")
        guard fields.count >= 2, let size = fields.dropLast().last, let position = fields.last else { return nil }
        let dimensions = size.split(separator: "+", maxSplits: 1).first?.split(separator: "x").compactMap { Int($0) } ?? []
        let coordinates = position.split(separator: "+", omittingEmptySubsequences: true).compactMap { Int($0) }
        guard dimensions.count == 2, coordinates.count == 2 else { return nil }
        return (coordinates[0], coordinates[1], dimensions[0], dimensions[1])
    }
}
