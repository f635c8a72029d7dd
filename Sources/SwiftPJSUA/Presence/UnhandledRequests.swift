import CPJSUASupport
import Foundation
import PJSIP

// The Swift half of the module that answers requests nothing else answers
// (CPJSUASupport/UnhandledRequests.c, which says what each request gets and why it is C).
// Only an accepted out-of-dialog NOTIFY reaches Swift: `onUnsolicitedNotify` below reads it,
// publishes an event and returns, on pjsua's worker thread.

extension PJSUA {
    /// Installs the module (once per pjsua instance) with the event packages whose out-of-dialog
    /// NOTIFYs the app takes. pjsua_destroy removes it.
    func installUnhandledRequests(accepting packages: Set<String>) throws(PJSUAError) {
        let list = packages.sorted().joined(separator: ",")
        try check(cpjsua_unhandled_requests_install(list, onUnsolicitedNotify), "cannot install the responder for unhandled requests")
    }

    /// Throws ``PJSUAError/Code/invalidArgument`` unless every entry is an event package name
    /// (`event-type` of RFC 6665: token characters, dot-separated).
    static func validateEventPackages(_ packages: Set<String>) throws(PJSUAError) {
        let tokenPunctuation = Set("-!%*_+`'~.")
        for package in packages {
            let valid = !package.isEmpty && package.allSatisfy { character in
                character.isASCII && (character.isLetter || character.isNumber || tokenPunctuation.contains(character))
            } && !package.hasPrefix(".") && !package.hasSuffix(".") && !package.contains("..")
            guard valid else {
                throw PJSUAError(.invalidArgument, "unsolicitedNotifyEvents: '\(package)' is not an event package name")
            }
        }
    }
}

/// An out-of-dialog NOTIFY of an accepted event package, already answered 200.
private func onUnsolicitedNotify(_ raw: UnsafeRawPointer, _ accountSlot: Int32) {
    let rdata = raw.assumingMemoryBound(to: pjsip_rx_data.self)
    guard let message = rdata.pointee.msg_info.msg else { return }
    let headers = receivedHeaders(message)
    var body = Data()
    if let content = message.pointee.body, let data = content.pointee.data, content.pointee.len > 0 {
        body = Data(bytes: data, count: Int(content.pointee.len))
    }
    // The Event header prints as "package;parameters"; the C side matched the package already.
    let event = headers.value(named: "Event") ?? ""
    let package = event.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces)
    let notify = PJSUA.UnsolicitedNotify(
        eventPackage: package,
        account: accountSlot == PJSUA_INVALID_ID.rawValue ? nil : accountHandle(accountSlot),
        from: printedURI(rdata.pointee.msg_info.from.map { UnsafeRawPointer($0.pointee.uri) }),
        to: printedURI(rdata.pointee.msg_info.to.map { UnsafeRawPointer($0.pointee.uri) }),
        contentType: headers.value(named: "Content-Type") ?? "",
        body: body, headers: headers)
    let run = EngineRun.current
    let listed = run?.withState { $0.presence.configuredNotifyEvents.contains { $0.lowercased() == package.lowercased() } } ?? false
    if listed { run?.publish(.unsolicitedNotify(notify)) }
    // An unsolicited voicemail summary is a message-waiting indication too (pjsua's own
    // enable_unsolicited_mwi is off: this module answers them).
    if package.lowercased() == "message-summary" {
        run?.publish(.messageWaiting(PJSUA.MessageWaiting(account: notify.account, isSolicited: false, body: notify.text ?? "")))
    }
}

/// A From or To URI as it appears in the header (display name included), or "".
private func printedURI(_ uri: UnsafeRawPointer?) -> String {
    guard let uri else { return "" }
    // A URI that fit a received packet prints within the packet's size.
    var buffer = [CChar](repeating: 0, count: Int(PJSIP_MAX_PKT_LEN) + 1)
    let length = buffer.withUnsafeMutableBufferPointer { out in
        pjsip_uri_print(PJSIP_URI_IN_FROMTO_HDR, uri, out.baseAddress, out.count - 1)
    }
    guard length > 0 else { return "" }
    return buffer.withUnsafeBufferPointer { raw in
        String(decoding: UnsafeRawBufferPointer(raw).prefix(Int(length)), as: UTF8.self)
    }
}
