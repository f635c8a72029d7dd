// iOS only (CallKit, PushKit and AVAudioSession are iOS APIs here). SWIFTPJSUA_APPLE_STANDINS is
// set only by scripts/check-apple-code.sh, which compiles this file on Linux against stand-ins of
// Apple's declarations (Tests/AppleSDKStandIns): SwiftPM itself never sees it.
#if canImport(PushKit) && (os(iOS) || SWIFTPJSUA_APPLE_STANDINS)
import Foundation
import PushKit
@_spi(Locking) import SwiftPJSUA

/// The PushKit adapter: registers for VoIP pushes, hands every push to a ``CallActionHandling``
/// (a ``CallOrchestrator``, which reports it to CallKit), and passes token changes to the app.
///
/// It decides nothing: the payload is parsed by ``VoIPPushPayload`` and everything else is the core's.
public final class PushKitRegistry: NSObject, PKPushRegistryDelegate, @unchecked Sendable {
    // @unchecked Sendable: `registry` is an immutable reference only configured in `init`.
    /// Where pushes and token changes go, once ``start(handler:onToken:)`` set them.
    private let handlers = LockedValueBox<(push: (any CallActionHandling)?, token: (@Sendable (Data?) -> Void)?)>((nil, nil))
    private let registry: PKPushRegistry

    /// Creates the registry; delegate callbacks arrive on `queue` (the main queue when nil).
    public init(queue: DispatchQueue? = nil) {
        registry = PKPushRegistry(queue: queue)
        super.init()
        registry.delegate = self
    }

    /// Starts receiving VoIP pushes into `handler`; `onToken` gets each new device token (send it
    /// to the SIP server with ``SwiftPJSUA/PJSUA/PushParameters/apns(teamID:bundleID:token:)``),
    /// and nil when the token is invalidated.
    public func start(handler: any CallActionHandling, onToken: @escaping @Sendable (Data?) -> Void) {
        handlers.withLockedValue { $0 = (handler, onToken) }
        registry.desiredPushTypes = [.voIP]
    }

    /// The current VoIP device token, if PushKit has one.
    public var voIPToken: Data? { registry.pushToken(for: .voIP) }

    /// Passes a new device token to the app.
    public func pushRegistry(_ registry: PKPushRegistry, didUpdate pushCredentials: PKPushCredentials, for type: PKPushType) {
        guard type == .voIP else { return }
        let token = pushCredentials.token
        handlers.withLockedValue { $0.token }?(token)
    }

    /// Tells the app its token is no longer valid.
    public func pushRegistry(_ registry: PKPushRegistry, didInvalidatePushTokenFor type: PKPushType) {
        guard type == .voIP else { return }
        handlers.withLockedValue { $0.token }?(nil)
    }

    /// Parses the push and hands it to the core, which reports it to CallKit; PushKit's completion
    /// runs once the core has reported it, even if this registry is released meanwhile (the work
    /// holds the handler and the completion, never this object).
    ///
    /// A push that arrives before ``start(handler:onToken:)`` cannot be reported: call it at launch.
    public func pushRegistry(_ registry: PKPushRegistry, didReceiveIncomingPushWith payload: PKPushPayload,
                             for type: PKPushType, completion: @escaping @Sendable () -> Void) {
        guard type == .voIP, let handler = handlers.withLockedValue({ $0.push }) else {
            completion()
            return
        }
        let parsed = Result { () throws(PushPayloadError) in
            try VoIPPushPayload(dictionaryPayload: payload.dictionaryPayload)
        }
        handler.handleIncomingPush(parsed, completion: completion)
    }
}
#endif
