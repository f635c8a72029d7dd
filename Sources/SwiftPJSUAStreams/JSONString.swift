@_spi(MediaHooks) @_spi(Locking) import SwiftPJSUA
import Foundation

/// JSON string literals for the messages the stream protocols build by hand (Twilio Media
/// Streams, OpenAI Realtime): one escaper for every protocol.
enum JSONString {
    /// A JSON string literal for `text` (RFC 8259 7: quotation mark, reverse solidus and the
    /// control characters escaped; everything else as it is).
    static func literal(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
