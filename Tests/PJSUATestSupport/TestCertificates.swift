import Foundation

/// A throw-away certificate authority and certificates made with openssl at run time in a
/// temporary directory (keys are never committed), for TLS tests on loopback. EC P-256 keys:
/// fast to generate.
///
/// - `server`: signed by the CA for `127.0.0.1` and `localhost` (subjectAltName), valid today.
/// - `selfSigned`: the same names, signed by itself.
/// - `wrongName`: signed by the CA, for `wrong.example.invalid` only.
/// - `expired`: signed by the CA for the right names, valid only in January 2020.
/// - `nulName`: signed by the CA, whose one name is `localhost\0.attacker.example` (a NUL inside).
/// - `encryptedKey`: `server`'s key encrypted with ``keyPassword``.
public final class TestCertificates: @unchecked Sendable {
    // @unchecked Sendable: immutable after init.
    /// The directory holding every file; removed by ``remove()`` and deinit.
    public let directory: String
    /// The password of ``encryptedKey``.
    public let keyPassword = "tls-key-secret-\(UUID().uuidString.prefix(6))"

    /// A certificate and its key.
    public struct Pair: Sendable {
        public let certificate: String
        public let key: String
    }

    /// Creates the CA and every certificate in a new temporary directory; throws with openssl's
    /// output when a step fails. Async: openssl runs ~11 times, and a test waiting for it must not
    /// block a thread of Swift's cooperative pool, which every test of the process shares (two
    /// threads on a 2-core machine: two blocked waits stall the whole suite).
    public static func make() async throws -> TestCertificates {
        let certificates = try TestCertificates(directory: NSTemporaryDirectory() + "swift-pjsua-certs-\(UUID().uuidString.prefix(8))")
        try await certificates.generate()
        return certificates
    }

    private init(directory: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    private func generate() async throws {
        let goodNames = "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth,clientAuth\n"
        try write("good.ext", goodNames)
        try write("wrong.ext", "subjectAltName=DNS:wrong.example.invalid\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth,clientAuth\n")
        // A dNSName with a NUL cannot be written as text: the extension is given as its DER.
        try write("nul.ext", "subjectAltName=DER:\(Self.generalNamesDER(dnsName: Array("localhost".utf8) + [0] + Array(".attacker.example".utf8)))\n"
                  + "basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth,clientAuth\n")
        // `openssl ca` is the one OpenSSL 3.0 tool that signs with chosen dates (the expired one).
        try write("ca.cnf", """
            [ca]
            default_ca = test
            [test]
            database = \(directory)/index.txt
            new_certs_dir = \(directory)
            serial = \(directory)/serial
            default_md = sha256
            policy = any
            unique_subject = no
            [any]
            commonName = supplied

            """)
        try write("index.txt", "")
        try write("serial", "1000\n")
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try await openssl(["req", "-x509"] + curve + ["-keyout", path("ca.key"), "-out", path("ca.pem"), "-days", "3",
                     "-subj", "/CN=swift-pjsua test CA", "-addext", "basicConstraints=critical,CA:TRUE",
                     "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        for name in ["server", "wrongname", "expired", "nulname"] {
            try await openssl(["req"] + curve + ["-keyout", path("\(name).key"), "-out", path("\(name).csr"), "-subj", "/CN=\(name)"])
        }
        try await sign("server", extensions: "good.ext", dates: nil)
        try await sign("wrongname", extensions: "wrong.ext", dates: nil)
        try await sign("expired", extensions: "good.ext", dates: ("20200101000000Z", "20200201000000Z"))
        try await sign("nulname", extensions: "nul.ext", dates: nil)
        try await openssl(["req", "-x509"] + curve + ["-keyout", path("selfsigned.key"), "-out", path("selfsigned.pem"), "-days", "3",
                     "-subj", "/CN=selfsigned", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"])
        try await openssl(["pkey", "-in", path("server.key"), "-aes256", "-passout", "pass:\(keyPassword)", "-out", path("server-encrypted.key")])
    }

    deinit { remove() }

    /// The CA certificate (PEM) to trust.
    public var caFile: String { path("ca.pem") }
    /// A valid certificate for 127.0.0.1 and localhost.
    public var server: Pair { Pair(certificate: path("server.pem"), key: path("server.key")) }
    /// A self-signed certificate for 127.0.0.1 and localhost.
    public var selfSigned: Pair { Pair(certificate: path("selfsigned.pem"), key: path("selfsigned.key")) }
    /// A certificate from the CA for another host name.
    public var wrongName: Pair { Pair(certificate: path("wrongname.pem"), key: path("wrongname.key")) }
    /// A certificate from the CA that expired in 2020.
    public var expired: Pair { Pair(certificate: path("expired.pem"), key: path("expired.key")) }
    /// A certificate from the CA whose only name is `localhost`, a NUL, then `.attacker.example`:
    /// a name that must match nothing (PJSIP 2.17 read it as `localhost`, SEC-7).
    public var nulName: Pair { Pair(certificate: path("nulname.pem"), key: path("nulname.key")) }
    /// ``server``'s certificate with its key encrypted by ``keyPassword``.
    public var encryptedKey: Pair { Pair(certificate: path("server.pem"), key: path("server-encrypted.key")) }

    /// Deletes the directory (keys included).
    public func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func path(_ name: String) -> String { directory + "/" + name }

    /// The hex DER of a GeneralNames holding one dNSName (`[2] IMPLICIT IA5String`) of `bytes`
    /// (under 128 bytes: short-form lengths).
    private static func generalNamesDER(dnsName bytes: [UInt8]) -> String {
        let name = [0x82, UInt8(bytes.count)] + bytes
        return ([0x30, UInt8(name.count)] + name).map { String(format: "%02x", $0) }.joined()
    }

    private func write(_ name: String, _ text: String) throws {
        guard FileManager.default.createFile(atPath: path(name), contents: Data(text.utf8)) else {
            throw ChildProcessError("cannot write \(path(name))")
        }
    }

    private func sign(_ name: String, extensions: String, dates: (start: String, end: String)?) async throws {
        if let dates {
            try await openssl(["ca", "-batch", "-notext", "-config", path("ca.cnf"), "-cert", path("ca.pem"), "-keyfile", path("ca.key"),
                         "-in", path("\(name).csr"), "-out", path("\(name).pem"), "-startdate", dates.start, "-enddate", dates.end,
                         "-extfile", path(extensions)])
        } else {
            try await openssl(["x509", "-req", "-in", path("\(name).csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
                         "-set_serial", "\(Int.random(in: 1...1_000_000_000))", "-out", path("\(name).pem"), "-days", "3",
                         "-extfile", path(extensions)])
        }
    }

    private func openssl(_ arguments: [String]) async throws {
        let process = try ChildProcess("openssl", arguments, name: "openssl")
        let status = try await process.waitForExit(timeout: .seconds(30))
        guard status == 0 else {
            throw ChildProcessError(process.explain("\(arguments.prefix(2).joined(separator: " ")) failed"))
        }
    }
}
