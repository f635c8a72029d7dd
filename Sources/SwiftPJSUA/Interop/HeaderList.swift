import PJSIP

/// Extra headers for one pjsua call, shaped as pjsua wants them: `pjsip_generic_string_hdr`s
/// whose strings live in an arena, linked into a pjsip header list (`pjsua_msg_data.hdr_list`,
/// `pjsua_acc_config.reg_hdr_list`).
///
/// pjsua copies the headers it is given (`pjsip_hdr_clone` into the request or response it
/// builds, `pjsua_msg_data_clone` for a call's deferred INVITE, `pjsua_acc_config_dup` for an
/// account), so the list only has to outlive the pjsua call it is passed to.
final class HeaderList {
    private let arena = CStringArena()
    private var nodes: [UnsafeMutablePointer<pjsip_generic_string_hdr>] = []

    /// Validates every header (nothing is built when one is bad), then builds them.
    init(_ headers: [PJSUA.SIPHeader]) throws(PJSUAError) {
        for header in headers { try header.validate() }
        for header in headers {
            let node = UnsafeMutablePointer<pjsip_generic_string_hdr>.allocate(capacity: 1)
            node.initialize(to: pjsip_generic_string_hdr())
            var name = arena.pj(header.name)
            var value = arena.pj(header.value)
            // init2 points at the strings without copying them: the arena keeps them alive.
            pjsip_generic_string_hdr_init2(node, &name, &value)
            nodes.append(node)
        }
    }

    var isEmpty: Bool { nodes.isEmpty }

    /// Links the headers at the end of the list whose head is `list`. The head must stay where it
    /// is (a pjsip list head points at itself) until pjsua has copied the list.
    func append(to list: UnsafeMutablePointer<pjsip_hdr>) {
        for node in nodes { pj_list_push_back(list, node) }
    }

    deinit {
        for node in nodes { node.deallocate() }
    }
}

/// The address of a field of a C struct that is reached through a pointer: for list heads, which
/// must be passed where they live (a `&` on a copy would link the list into the copy).
func field<Base, Field>(_ base: UnsafeMutablePointer<Base>, _ path: KeyPath<Base, Field>) -> UnsafeMutablePointer<Field> {
    // Every key path used here names a stored field of an imported C struct, which has an offset.
    let offset = MemoryLayout<Base>.offset(of: path) ?? 0
    return UnsafeMutableRawPointer(base).advanced(by: offset).assumingMemoryBound(to: Field.self)
}

/// Runs `body` with a `pjsua_msg_data` carrying `headers`, or with nil when there are none (so a
/// call without extra headers goes through pjsua exactly as before). Throws
/// ``PJSUAError/Code/invalidHeader`` before anything is built when a header is bad.
func withMessageData<T>(_ headers: [PJSUA.SIPHeader], _ body: (UnsafeMutablePointer<pjsua_msg_data>?) throws(PJSUAError) -> T) throws(PJSUAError) -> T {
    guard !headers.isEmpty else { return try body(nil) }
    let list = try HeaderList(headers)
    // On the heap, not in a Swift variable: the list head inside must not move.
    let data = UnsafeMutablePointer<pjsua_msg_data>.allocate(capacity: 1)
    data.initialize(to: pjsua_msg_data())
    defer {
        data.deallocate()
        withExtendedLifetime(list) {}
    }
    pjsua_msg_data_init(data)
    list.append(to: field(data, \.hdr_list))
    return try body(data)
}

/// Every header of a received SIP message, in order, as PJSIP parsed it (a header PJSIP splits,
/// such as a comma-separated Via, comes out as one entry per value).
func receivedHeaders(_ message: UnsafeMutablePointer<pjsip_msg>) -> [PJSUA.SIPHeader] {
    let head = field(message, \.hdr)
    var headers: [PJSUA.SIPHeader] = []
    // A header that fit a received packet prints within the packet's size.
    var buffer = [CChar](repeating: 0, count: Int(PJSIP_MAX_PKT_LEN) + 1)
    var node = head.pointee.next
    while let current = node, current != head {
        let length = buffer.withUnsafeMutableBufferPointer { out in
            pjsip_hdr_print_on(UnsafeMutableRawPointer(current), out.baseAddress, out.count - 1)
        }
        if length > 0 {
            let line = buffer.withUnsafeBufferPointer { raw in
                String(decoding: UnsafeRawBufferPointer(raw).prefix(Int(length)), as: UTF8.self)
            }
            // Printed as "Name: value"; the name is PJSIP's (full form for the headers it knows).
            if let colon = line.firstIndex(of: ":") {
                let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
                headers.append(PJSUA.SIPHeader(String(pj: current.pointee.name), String(value)))
            }
        }
        node = current.pointee.next
    }
    return headers
}
