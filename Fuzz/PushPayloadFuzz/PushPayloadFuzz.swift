import Foundation

/// libFuzzer entry point: feeds arbitrary bytes to the VoIP push payload parser, which must
/// either parse them or throw a typed error, never trap or touch memory it does not own.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    do {
        let payload = try VoIPPushPayload(jsonData: bytes)
        // Invariants the parser promises for anything it accepts.
        if payload.sipCallID.isEmpty || payload.sipCallID.utf8.count > VoIPPushPayload.maximumCallIDBytes {
            abort()
        }
        if let caller = payload.caller, caller.utf8.count > VoIPPushPayload.maximumTextBytes { abort() }
        if let name = payload.displayName, name.utf8.count > VoIPPushPayload.maximumTextBytes { abort() }
    } catch {
        _ = error.description
    }
    return 0
}
