import CPJSUASupport
import PJSIP

// `pjsua_call_info` (like `pjsua_acc_info` and `pjsua_transport_info`) keeps its strings in a
// buffer inside the struct (`buf_`) and its `pj_str_t` fields point into that buffer, so a copy
// of the struct still points into the original. Returning the struct from the function that
// filled it left every string dangling into a dead stack frame (AddressSanitizer:
// stack-use-after-return in `info(_:)`). The rule here: the struct is filled and read in one
// scope, through a pointer, and never returned, stored or passed by value; strings are copied
// out before that scope ends. The struct is ~2.6 kB, so reading it in place also saves copies.

/// Runs `body` with pjsua's info of the call in `slot`, filled in place; nil when pjsua has no
/// such call.
func withCallInfo<T, E: Error>(_ slot: pjsua_call_id, _ body: (UnsafePointer<pjsua_call_info>) throws(E) -> T) throws(E) -> T? {
    var info = pjsua_call_info()
    guard pjsua_call_get_info(slot, &info) == pjSuccess else { return nil }
    return try withUnsafePointer(to: &info) { (pointer) throws(E) -> T in try body(pointer) }
}

/// A call's media of one type (`pjsua_call_info.media`, a fixed C array read in place), with
/// their indices.
func media(_ type: pjmedia_type, of info: UnsafePointer<pjsua_call_info>) -> [(index: Int, media: pjsua_call_media_info)] {
    guard let offset = MemoryLayout<pjsua_call_info>.offset(of: \.media) else { return [] }
    let count = min(Int(info.pointee.media_cnt), Int(cpjsua_max_call_media))
    let all = UnsafeRawPointer(info).advanced(by: offset).assumingMemoryBound(to: pjsua_call_media_info.self)
    return (0..<count).filter { all[$0].type == type }.map { ($0, all[$0]) }
}

/// A call's audio media, with their indices.
func audioMedia(_ info: UnsafePointer<pjsua_call_info>) -> [(index: Int, media: pjsua_call_media_info)] {
    media(PJMEDIA_TYPE_AUDIO, of: info)
}

/// Whether a call has a video stream carrying pictures (``videoFlows(_:)``).
func hasActiveVideo(_ info: UnsafePointer<pjsua_call_info>) -> Bool {
    media(PJMEDIA_TYPE_VIDEO, of: info).contains { videoFlows($0.media) && $0.media.dir != PJMEDIA_DIR_NONE }
}

/// Whether a video stream carries pictures: active, or held by the peer, which is how pjsua marks
/// a stream the peer answered `sendonly` (our `recvonly` offer, a viewer's): its pictures still
/// arrive and are decoded.
func videoFlows(_ media: pjsua_call_media_info) -> Bool {
    media.status == PJSUA_CALL_MEDIA_ACTIVE || (media.status == PJSUA_CALL_MEDIA_REMOTE_HOLD && media.dir == PJMEDIA_DIR_DECODING)
}

/// The audio conference slots of a call whose audio is flowing (active or held by the peer).
func activeAudioSlots(_ info: UnsafePointer<pjsua_call_info>) -> [pjsua_conf_port_id] {
    audioMedia(info).compactMap { item in
        let flowing = item.media.status == PJSUA_CALL_MEDIA_ACTIVE || item.media.status == PJSUA_CALL_MEDIA_REMOTE_HOLD
        let slot = item.media.stream.aud.conf_slot
        return flowing && slot != PJSUA_INVALID_ID.rawValue ? slot : nil
    }
}
