@testable import SwiftPJSUA

/// pjmedia's colour-bar test pattern (colorbar_dev.c): eight vertical bars of equal width, left
/// to right, and a check of a picture against it, wherever the picture comes from (a decoded
/// ``PJSUA/VideoFrame``, a screenshot of pjsua's window).
enum ColourBars {
    static let bars: [(name: String, red: Int, green: Int, blue: Int)] = [
        ("white", 255, 255, 255), ("yellow", 255, 255, 0), ("cyan", 0, 255, 255), ("green", 0, 255, 0),
        ("magenta", 255, 0, 255), ("red", 255, 0, 0), ("blue", 0, 0, 255), ("black", 0, 0, 0),
    ]

    /// Samples the centre of each bar halfway down a `width`-wide, `height`-high picture through
    /// `pixel` (coordinates within the picture) and says whether each is within `tolerance` of
    /// its bar's colour, in order; `seen` names what was found, for the failure message.
    static func match(width: Int, height: Int, tolerance: Int = 60,
                      pixel: (_ x: Int, _ y: Int) -> (red: UInt8, green: UInt8, blue: UInt8)?) -> (matches: Bool, seen: [String]) {
        var matches = true
        var seen: [String] = []
        for (index, bar) in bars.enumerated() {
            let x = (2 * index + 1) * width / 16
            guard let sample = pixel(x, height / 2) else { return (false, ["no pixel at x \(x)"]) }
            seen.append("\(bar.name)=(\(sample.red),\(sample.green),\(sample.blue))")
            if abs(Int(sample.red) - bar.red) > tolerance || abs(Int(sample.green) - bar.green) > tolerance
                || abs(Int(sample.blue) - bar.blue) > tolerance {
                matches = false
            }
        }
        return (matches, seen)
    }

    /// ``match(width:height:tolerance:pixel:)`` for a decoded picture.
    static func match(_ frame: PJSUA.VideoFrame, tolerance: Int = 60) -> (matches: Bool, seen: [String]) {
        match(width: frame.size.width, height: frame.size.height, tolerance: tolerance) { frame.rgb(x: $0, y: $1) }
    }
}
