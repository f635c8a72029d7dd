import Foundation
import PJSUATestSupport
import Testing

/// SEC-11 (scripts/pjproject-patches/sec-11-dns-forgery.sh, upstream d9514ce3e): pjlib-util's DNS
/// resolver took an answer for a query when its transaction ID matched, IDs counted from 1, from
/// any sender, whatever its question. The engine never creates that resolver (it sets no
/// nameserver; names go to getaddrinfo): these tests run the pjsua app of the build under test
/// with `--nameserver`, calling sip:bob@sip.test:PORT. A nameserver of ours says sip.test is
/// 127.0.0.1, where the callee listens, 300 ms after each query; a forger answers first that it
/// is 127.0.0.2, where it listens on the same port. Each test leaves the forger one thing to get
/// wrong; the INVITE must reach the callee.
@Suite("Security: forged DNS answers (the pjsua app's resolver)")
struct DNSForgeryTests {
    @Test func anAnswerFromAnAddressThatIsNotTheNameserverIsDropped() async throws {
        // The forger knows the ID and the resolver's port (an on-path view, the most it could
        // guess), but sends from its own address.
        let forger = try DatagramSocket()
        try await expectCallReachesTheCallee { _, query in
            forger.send(FakeDNSServer.response(id: query.id, question: query.name, address: "127.0.0.2"), port: query.port)
        }
    }

    @Test func answersWithTheTransactionIDsACounterFromOneWouldGiveAreNotMatched() async throws {
        // The forger spoofs the nameserver's address and asks the right question, but must guess
        // the ID: 2.17 counted from 1, and this query is the app's first.
        try await expectCallReachesTheCallee { nameserver, query in
            for id: UInt16 in [1, 2] {
                nameserver.sendAsNameserver(FakeDNSServer.response(id: id, question: query.name, address: "127.0.0.2"), toPort: query.port)
            }
        }
    }

    @Test func anAnswerToAnotherQuestionIsNotTakenForThisQuery() async throws {
        // From the nameserver's address with the query's ID: an answer about elsewhere.test,
        // which 2.17's A-record parser read against the answer's own question.
        try await expectCallReachesTheCallee { nameserver, query in
            let forged = FakeDNSServer.response(id: query.id, question: "elsewhere.test", address: "127.0.0.2")
            nameserver.sendAsNameserver(forged, toPort: query.port)
        }
    }

    /// Starts the callee (127.0.0.1:PORT), the forger's listener (127.0.0.2:PORT), the nameserver
    /// (`forge` runs at each A query for sip.test, before the real answer) and the pjsua app of
    /// this build calling sip:bob@sip.test:PORT; expects the INVITE at the callee, none at the
    /// forger's address.
    private func expectCallReachesTheCallee(
        forge: @escaping @Sendable (FakeDNSServer, FakeDNSServer.Query) -> Void
    ) async throws {
        let (callee, impostor) = try listenersOnOnePort()
        let nameserver = try FakeDNSServer(records: ["sip.test": "127.0.0.1"]) { server, query in
            if query.type == 1 && query.name == "sip.test" { forge(server, query) }
        }
        defer { nameserver.stop() }
        let app = try await PjsuaApp(name: "pjsua-dns", arguments: ["--nameserver=\(nameserver.host)", "sip:bob@sip.test:\(callee.port)"],
                               ofThisBuild: true)
        defer { app.stop() }
        let deadline = ContinuousClock.now.advanced(by: .seconds(15))
        var reached: (callee: String?, impostor: String?) = (nil, nil)
        while true {  // read once more after the deadline: this task may have been kept waiting
            reached = (callee.receiveNow().map { String(decoding: $0.bytes, as: UTF8.self) },
                       impostor.receiveNow().map { String(decoding: $0.bytes, as: UTF8.self) })
            if reached.callee != nil || reached.impostor != nil || ContinuousClock.now >= deadline { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(!nameserver.queries.isEmpty, "the app asked our nameserver nothing:\n\(app.process.output.suffix(2000))")
        #expect(reached.impostor == nil, "the forged answer was taken: the INVITE went to 127.0.0.2\n\(nameserver.queries)")
        #expect(reached.callee?.hasPrefix("INVITE ") == true, "no INVITE at the callee\n\(app.process.output.suffix(2000))")
    }

    /// Two UDP sockets on the same port, one on 127.0.0.1 (the callee), one on 127.0.0.2.
    private func listenersOnOnePort() throws -> (DatagramSocket, DatagramSocket) {
        for _ in 0..<20 {
            let callee = try DatagramSocket(host: "127.0.0.1")
            if let impostor = try? DatagramSocket(host: "127.0.0.2", port: callee.port) { return (callee, impostor) }
        }
        throw ChildProcessError("no port free on both 127.0.0.1 and 127.0.0.2")
    }
}
