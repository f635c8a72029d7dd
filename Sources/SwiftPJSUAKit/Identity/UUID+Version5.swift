import Foundation

extension UUID {
    /// Creates a name-based UUID, version 5 (RFC 4122 section 4.3: SHA-1 of the namespace's 16
    /// bytes followed by the name's UTF-8 bytes, with the version and variant bits set).
    init(version5Namespace namespace: UUID, name: String) {
        let namespaceBytes = withUnsafeBytes(of: namespace.uuid) { Array($0) }
        var hasher = SHA1()
        hasher.update(namespaceBytes)
        hasher.update(Array(name.utf8))
        var bytes = hasher.finalize()
        bytes[6] = (bytes[6] & 0x0F) | 0x50
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        self.init(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                         bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
