import Foundation

extension PJSUA {
    /// RFC 8599 push-notification parameters, carried in the REGISTER Contact so that a push
    /// proxy can wake the app (`pjsua_acc_config.reg_contact_uri_params`).
    public enum PushParameters: Sendable, Hashable, CustomStringConvertible {
        /// Apple VoIP push: `;pn-provider=apns;pn-param=<teamID>.<bundleID>.voip;pn-prid=<hex token>`.
        case apns(teamID: String, bundleID: String, token: Data)
        /// Any Contact URI parameters, verbatim, e.g. `;pn-provider=fcm;pn-prid=...`.
        case custom(String)

        /// The Contact URI parameters, starting with `;`.
        public func contactParameters() throws -> String {
            switch self {
            case let .apns(teamID, bundleID, token):
                try Self.checkToken(teamID, what: "APNs team ID")
                try Self.checkToken(bundleID, what: "APNs bundle ID")
                guard !token.isEmpty, token.count <= 256 else {
                    throw PJSUAError(.invalidArgument, "APNs device token must be 1...256 bytes, got \(token.count)")
                }
                let hex = token.map { String(format: "%02x", $0) }.joined()
                return ";pn-provider=apns;pn-param=\(teamID).\(bundleID).voip;pn-prid=\(hex)"
            case let .custom(parameters):
                try Validation.headerValue(parameters, what: "push parameters", maxLength: 1024)
                guard !parameters.contains(where: { $0 == "<" || $0 == ">" || $0 == "," || $0 == " " }) else {
                    throw PJSUAError(.invalidArgument, "push parameters \(Validation.quoted(parameters)) contain <, >, comma or space")
                }
                return parameters.isEmpty || parameters.hasPrefix(";") ? parameters : ";" + parameters
            }
        }

        private static func checkToken(_ value: String, what: String) throws(PJSUAError) {
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: ".-_"))
            guard !value.isEmpty, value.utf8.count <= 255,
                  value.unicodeScalars.allSatisfy({ $0.isASCII && allowed.contains($0) })
            else {
                throw PJSUAError(.invalidArgument, "\(what) \(Validation.quoted(value)) must be 1...255 ASCII letters, digits, '.', '-' or '_'")
            }
        }

        public var description: String {
            switch self {
            case let .apns(teamID, bundleID, token): "apns(\(teamID).\(bundleID), token \(token.count) bytes)"
            case let .custom(parameters): "custom(\(parameters))"
            }
        }
    }
}
