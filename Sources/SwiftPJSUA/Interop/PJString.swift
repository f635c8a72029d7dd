import Foundation
import PJSIP

extension String {
    /// Copies a `pj_str_t` (pointer plus length, not NUL-terminated) into a Swift string.
    init(pj value: pj_str_t) {
        guard let pointer = value.ptr, value.slen > 0 else {
            self = ""
            return
        }
        let bytes = UnsafeRawBufferPointer(start: pointer, count: Int(value.slen))
        self = String(decoding: bytes, as: UTF8.self)
    }
}

extension String {
    /// Decodes a fixed-size C `char` array up to its first NUL (or its end, if it has none).
    init(fixedCString bytes: UnsafeRawBufferPointer) {
        let length = bytes.firstIndex(of: 0) ?? bytes.count
        self = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[0..<length]), as: UTF8.self)
    }
}

/// C strings that must stay alive for the length of one pjsua call.
///
/// pjsua copies every string it keeps (configs are duplicated into its pools), so an arena
/// that lives for the scope of the call that hands strings over is enough.
final class CStringArena {
    private var allocations: [UnsafeMutablePointer<CChar>] = []

    /// A NUL-terminated copy of `string`, valid until the arena is released.
    func cString(_ string: String) -> UnsafeMutablePointer<CChar> {
        let copy = strdup(string)!
        allocations.append(copy)
        return copy
    }

    /// A `pj_str_t` pointing at a copy of `string`, valid until the arena is released.
    func pj(_ string: String) -> pj_str_t {
        let copy = cString(string)
        return pj_str_t(ptr: copy, slen: pj_ssize_t(strlen(copy)))
    }

    deinit {
        for pointer in allocations { free(pointer) }
    }
}

/// Runs `body` with an arena whose strings stay valid until `body` returns.
func withCStringArena<Result, Failure: Error>(_ body: (CStringArena) throws(Failure) -> Result) throws(Failure) -> Result {
    let arena = CStringArena()
    defer { withExtendedLifetime(arena) {} }
    return try body(arena)
}
