import Foundation

/// A picture in X Window Dump format (what `xwd` writes), read for its pixels: a big-endian
/// header of 25 32-bit fields (XWDFileHeader, version 7) and the window's name, then the colour
/// map, then the rows of a ZPixmap. TrueColor pixels of 24 or 32 bits, as a 24-bit Xvfb screen
/// gives, are read; anything else is refused with a reason.
public struct XWDImage: Sendable {
    public let width: Int
    public let height: Int
    private let bytes: [UInt8]
    private let pixelStart: Int
    private let bytesPerLine: Int
    private let bytesPerPixel: Int
    private let littleEndian: Bool
    private let masks: (red: UInt32, green: UInt32, blue: UInt32)

    public init(_ data: Data) throws {
        let raw = [UInt8](data)
        guard raw.count >= 100 else { throw ChildProcessError("XWD: \(raw.count) bytes is shorter than the header") }
        let fields = (0..<25).map { index -> Int in
            raw[(4 * index)..<(4 * index + 4)].reduce(0) { $0 << 8 | Int($1) }
        }
        bytes = raw
        let (headerSize, version, format, bitsPerPixel) = (fields[0], fields[1], fields[2], fields[11])
        guard version == 7, format == 2 else { throw ChildProcessError("XWD: version \(version), format \(format); expected 7 and ZPixmap (2)") }
        guard bitsPerPixel == 24 || bitsPerPixel == 32 else { throw ChildProcessError("XWD: \(bitsPerPixel) bits per pixel; expected 24 or 32") }
        width = fields[4]
        height = fields[5]
        littleEndian = fields[7] == 0  // byte_order: 0 is LSBFirst
        bytesPerLine = fields[12]
        bytesPerPixel = bitsPerPixel / 8
        masks = (UInt32(fields[14]), UInt32(fields[15]), UInt32(fields[16]))
        let colourMapEntries = fields[19]  // ncolors: XWDColor records of 12 bytes each
        pixelStart = headerSize + colourMapEntries * 12
        guard width > 0, height > 0, bytesPerLine >= width * bytesPerPixel, pixelStart + height * bytesPerLine <= bytes.count,
              masks.red != 0, masks.green != 0, masks.blue != 0 else {
            throw ChildProcessError("XWD: \(width)x\(height), \(bytesPerLine) bytes a row, \(bytes.count) bytes in all: inconsistent")
        }
    }

    /// The colour at a pixel as 8-bit RGB, or nil outside the picture.
    public func rgb(x: Int, y: Int) -> (red: UInt8, green: UInt8, blue: UInt8)? {
        guard x >= 0, y >= 0, x < width, y < height else { return nil }
        let start = pixelStart + y * bytesPerLine + x * bytesPerPixel
        var value: UInt32 = 0
        for index in 0..<bytesPerPixel {
            let byte = UInt32(bytes[start + index])
            value |= littleEndian ? byte << (8 * index) : byte << (8 * (bytesPerPixel - 1 - index))
        }
        return (Self.channel(value, masks.red), Self.channel(value, masks.green), Self.channel(value, masks.blue))
    }

    /// A channel scaled to 8 bits from wherever its mask puts it.
    private static func channel(_ value: UInt32, _ mask: UInt32) -> UInt8 {
        let shifted = (value & mask) >> mask.trailingZeroBitCount
        let bits = (mask >> mask.trailingZeroBitCount).nonzeroBitCount
        return bits >= 8 ? UInt8(truncatingIfNeeded: shifted >> (bits - 8)) : UInt8(truncatingIfNeeded: shifted << (8 - bits))
    }
}
