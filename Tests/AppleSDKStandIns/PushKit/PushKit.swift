// Stand-in for the PushKit slice SwiftPJSUAKit uses; see ../README.md. Pages are under
// developer.apple.com/documentation/pushkit/ (iOS 8.0+ unless noted). PKPushRegistry is not
// Sendable (M); no source shows `@MainActor`.
@_exported import DispatchStandIn
@_exported import Foundation

/// pushkit/pkpushregistry (M: no Sendable)
open class PKPushRegistry: NSObject {
    /// pushkit/pkpushregistry/init(queue:) (nil = main queue)
    public init(queue: dispatch_queue_t?) {}

    /// pushkit/pkpushregistry/delegate
    weak open var delegate: (any PKPushRegistryDelegate)?

    /// pushkit/pkpushregistry/desiredpushtypes
    open var desiredPushTypes: Set<PKPushType>?

    /// pushkit/pkpushregistry/pushtoken(for:)
    open func pushToken(for type: PKPushType) -> Data? { nil }
}

/// pushkit/pkpushtype (`struct PKPushType: RawRepresentable, Sendable`)
public struct PKPushType: Hashable, RawRepresentable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// pushkit/pkpushtype/voip (iOS 9.0+)
    public static let voIP = PKPushType(rawValue: "PKPushTypeVoIP")
}

/// pushkit/pkpushcredentials
open class PKPushCredentials: NSObject {
    /// pushkit/pkpushcredentials/token
    open var token: Data { Data() }
}

/// pushkit/pkpushpayload
open class PKPushPayload: NSObject {
    /// pushkit/pkpushpayload/dictionarypayload
    open var dictionaryPayload: [AnyHashable: Any] { [:] }
}

/// pushkit/pkpushregistrydelegate
public protocol PKPushRegistryDelegate: NSObjectProtocol {
    /// pushkit/pkpushregistrydelegate/pushregistry(_:didupdate:for:) (required)
    func pushRegistry(_ registry: PKPushRegistry, didUpdate pushCredentials: PKPushCredentials, for type: PKPushType)
    /// pushkit/pkpushregistrydelegate/pushregistry(_:didinvalidatepushtokenfor:) (optional)
    func pushRegistry(_ registry: PKPushRegistry, didInvalidatePushTokenFor type: PKPushType)
    /// pushkit/pkpushregistrydelegate/pushregistry(_:didreceiveincomingpushwith:for:completion:)
    /// (optional, iOS 11.0+; A: completion `@escaping @Sendable () -> Void`)
    func pushRegistry(_ registry: PKPushRegistry, didReceiveIncomingPushWith payload: PKPushPayload,
                      for type: PKPushType, completion: @escaping @Sendable () -> Void)
}

// The optional requirements above are all implemented by PushKitRegistry, so they stay required
// here: a witness drifting from Apple's signature then fails to conform (see ../README.md).
