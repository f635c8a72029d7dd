import Foundation
import SwiftPJSUA

/// `softphone message <sip-uri> <text>`: sends one instant message and reports the far end's answer.
enum MessageCommand {
    static let usage = """
    usage: softphone message <sip-uri> <text> [--content-type TYPE] [--header 'Name: value']...
                             [--listen <udp|tcp|tls>:<host>:<port>]
                             [--account <sip-uri> --registrar <sip-uri> --username U --password-env VAR]
                             [--timeout N] [--json]
      Sends <text> as a SIP MESSAGE (content type text/plain unless --content-type) and waits up to
      N seconds (default 35: a UDP transaction times out after 32) for the answer. Exits 0 when the far
      end answered 2xx, 1 with one line naming the status otherwise, 2 on bad input, 130/143 on
      SIGINT/SIGTERM.
    \(SecurityOptions.tlsUsage)
    """

    static let spec = OptionSpec(
        valued: Set(["listen", "content-type", "timeout"]).union(AccountOptions.valued).union(SecurityOptions.tlsValued),
        flags: Set(["json"]).union(AccountOptions.flags), positionals: 2...2,
        positionalNames: ["<sip-uri> (the recipient)", "<text> (the message body)"], repeatable: ["header"])

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let output = Output(json: arguments.has("json"))
        let destination = arguments.positionals[0]
        let text = arguments.positionals[1]
        let listen = try ListenAddress(arguments, reaching: [destination, arguments.string("registrar")])
        let destinationURI = try Arguments.sipURI(destination, for: "message destination URI")
        let timeout = try arguments.seconds("timeout", in: 1...3600, default: 35) ?? 35
        let contentType = arguments.string("content-type") ?? "text/plain"
        let headers = try arguments.strings("header").map(PJSUA.SIPHeader.init(parsing:))
        let account = try AccountOptions(arguments, required: false)
        let security = try SecurityOptions(arguments, listen: listen)
        var configuration = listen.configuration()
        security.apply(to: &configuration)
        security.printWarnings()

        let signals = Signals.shared
        return try await withPhone(configuration, output: output) { phone, _, watcher in
            let (from, failure) = try await account.add(to: phone, watcher: watcher, timeout: timeout, signals: signals, output: output)
            if let failure { return failure }
            let id = try await phone.sendMessage(text, to: destinationURI, from: from, contentType: contentType, headers: headers)
            let outcome = await watcher.first(within: timeout, signals: signals) { event -> PJSUA.MessageStatus? in
                if case let .messageStatus(status) = event, status.id == id { return status }
                return nil
            }
            guard let outcome else {
                if signals.pending != nil { return signals.interrupted(output) }
                return CallCommand.fail(output, "message not answered within \(Int(timeout)) s")
            }
            guard outcome.isDelivered else {
                return CallCommand.fail(output, "message failed: \(outcome.status.certificateError?.message ?? outcome.status.description)")
            }
            if !output.json { Output.write("message delivered: \(outcome.status)") }
            return 0
        }
    }
}

extension Output {
    /// Prints a received instant message: its body as text, or base64 when it is not UTF-8.
    func emit(message: PJSUA.Message) {
        let body: (key: String, value: String) = message.text.map { ("body", $0) } ?? ("bodyBase64", message.body.base64EncodedString())
        emit("message", ["call": message.call?.description ?? "", "from": message.from, "to": message.to,
                         "contentType": message.contentType, body.key: body.value, "headers": message.headers.map(\.description)],
             human: "message from \(message.from) (\(message.contentType)): \(body.value)")
    }
}
