import PJSIP

/// PJSIP's own text for a `pj_status_t` (`pj_strerror`).
func pjErrorText(_ status: pj_status_t) -> String {
    var buffer = [CChar](repeating: 0, count: Int(PJ_ERR_MSG_SIZE))
    let text = buffer.withUnsafeMutableBufferPointer { buf in
        pj_strerror(status, buf.baseAddress, pj_size_t(buf.count))
    }
    return String(pj: text)
}

/// Turns a `pj_status_t` from `operation` into a thrown ``PJSUAError``.
@inline(__always)
func check(_ status: pj_status_t, _ operation: @autoclosure () -> String) throws(PJSUAError) {
    guard status == pjSuccess else {
        throw PJSUAError(status: status, operation: operation())
    }
}

/// `PJ_SUCCESS`, typed as `pj_status_t` (the C enum constant imports with another type).
@_spi(MediaHooks) public let pjSuccess: pj_status_t = 0
