// Stand-in for the CallKit slice SwiftPJSUAKit uses; see ../README.md. Pages are under
// developer.apple.com/documentation/callkit/ (iOS 10.0+ unless noted). No source shows
// `@MainActor` on any of them; CXProvider and CXCallController are not Sendable (M).
import AVFAudio
@_exported import DispatchStandIn
@_exported import Foundation

// MARK: - Provider

/// callkit/cxprovider (M conformances: no Sendable)
open class CXProvider: NSObject {
    /// callkit/cxprovider/init(configuration:)
    public init(configuration: CXProviderConfiguration) {}

    /// callkit/cxprovider/setdelegate(_:queue:) (A: `dispatch_queue_t?`)
    open func setDelegate(_ delegate: (any CXProviderDelegate)?, queue: dispatch_queue_t?) {}

    /// callkit/cxprovider/reportnewincomingcall(with:update:completion:)
    open func reportNewIncomingCall(with UUID: UUID, update: CXCallUpdate,
                                    completion: @escaping @Sendable ((any Error)?) -> Void) {}

    /// callkit/cxprovider/reportnewincomingcall(with:update:completion:) async form (M, G@0cddfa7)
    open func reportNewIncomingCall(with UUID: UUID, update: CXCallUpdate) async throws {}

    /// callkit/cxprovider/reportcall(with:updated:)
    open func reportCall(with UUID: UUID, updated update: CXCallUpdate) {}

    /// callkit/cxprovider/reportoutgoingcall(with:startedconnectingat:)
    open func reportOutgoingCall(with UUID: UUID, startedConnectingAt dateStartedConnecting: Date?) {}

    /// callkit/cxprovider/reportoutgoingcall(with:connectedat:)
    open func reportOutgoingCall(with UUID: UUID, connectedAt dateConnected: Date?) {}

    /// callkit/cxprovider/reportcall(with:endedat:reason:)
    open func reportCall(with UUID: UUID, endedAt dateEnded: Date?, reason endedReason: CXCallEndedReason) {}
}

/// callkit/cxproviderconfiguration
open class CXProviderConfiguration: NSObject {
    /// callkit/cxproviderconfiguration/init() (iOS 14.0+)
    override public init() {}

    /// callkit/cxproviderconfiguration/supportsvideo (default false)
    open var supportsVideo: Bool = false

    /// callkit/cxproviderconfiguration/maximumcallspercallgroup (default 5)
    open var maximumCallsPerCallGroup: Int = 5

    /// callkit/cxproviderconfiguration/maximumcallgroups (named in the class overview: "the
    /// maximum number of call groups"; APPLE-API.md G; default 2)
    open var maximumCallGroups: Int = 2

    /// callkit/cxproviderconfiguration/supportedhandletypes-kd6i
    @nonobjc final public var supportedHandleTypes: Set<CXHandle.HandleType> = []
}

/// callkit/cxproviderdelegate
public protocol CXProviderDelegate: NSObjectProtocol {
    /// callkit/cxproviderdelegate/providerdidreset(_:) (required)
    func providerDidReset(_ provider: CXProvider)
    /// callkit/cxproviderdelegate/providerdidbegin(_:) (optional)
    func providerDidBegin(_ provider: CXProvider)
    /// callkit/cxproviderdelegate/provider(_:perform:)-2lem5 (optional)
    func provider(_ provider: CXProvider, perform action: CXStartCallAction)
    /// callkit/cxproviderdelegate/provider(_:perform:)-h4in (optional)
    func provider(_ provider: CXProvider, perform action: CXAnswerCallAction)
    /// callkit/cxproviderdelegate/provider(_:perform:)-9a0m (optional)
    func provider(_ provider: CXProvider, perform action: CXEndCallAction)
    /// callkit/cxproviderdelegate/provider(_:perform:)-947b1 (optional)
    func provider(_ provider: CXProvider, perform action: CXSetHeldCallAction)
    /// callkit/cxproviderdelegate/provider(_:perform:)-4u3yu (optional)
    func provider(_ provider: CXProvider, perform action: CXSetMutedCallAction)
    /// callkit/cxproviderdelegate/provider(_:perform:)-4htxt (optional)
    func provider(_ provider: CXProvider, perform action: CXPlayDTMFCallAction)
    /// callkit/cxproviderdelegate/provider(_:perform:)-9masw (optional)
    func provider(_ provider: CXProvider, perform action: CXSetGroupCallAction)
    /// callkit/cxproviderdelegate/provider(_:didactivate:) (optional)
    func provider(_ provider: CXProvider, didActivate audioSession: AVAudioSession)
    /// callkit/cxproviderdelegate/provider(_:diddeactivate:) (optional)
    func provider(_ provider: CXProvider, didDeactivate audioSession: AVAudioSession)
    /// callkit/cxproviderdelegate/provider(_:timedoutperforming:) (optional)
    func provider(_ provider: CXProvider, timedOutPerforming action: CXAction)
}

// Objective-C `optional` requirements: the ones CallKitProvider implements stay required here, so
// that a witness drifting from Apple's signature fails to conform (see ../README.md); the others
// get a default.
extension CXProviderDelegate {
    public func providerDidBegin(_ provider: CXProvider) {}
    public func provider(_ provider: CXProvider, timedOutPerforming action: CXAction) {}
}

/// callkit/cxcallendedreason (G: `enum CXCallEndedReason : Int`; raw values 1...5)
public enum CXCallEndedReason: Int, Sendable {
    case failed = 1
    case remoteEnded = 2
    case unanswered = 3
    case answeredElsewhere = 4
    case declinedElsewhere = 5
}

// MARK: - Call description

/// callkit/cxcallupdate (members O; supportsUngrouping A; supportsHolding G)
open class CXCallUpdate: NSObject {
    /// callkit/cxcallupdate/init()
    override public init() {}
    /// callkit/cxcallupdate/remotehandle
    @NSCopying open var remoteHandle: CXHandle?
    /// callkit/cxcallupdate/localizedcallername
    open var localizedCallerName: String?
    /// callkit/cxcallupdate/hasvideo
    open var hasVideo: Bool = false
    /// callkit/cxcallupdate/supportsholding
    open var supportsHolding: Bool = false
    /// callkit/cxcallupdate/supportsgrouping
    open var supportsGrouping: Bool = false
    /// callkit/cxcallupdate/supportsungrouping
    open var supportsUngrouping: Bool = false
    /// callkit/cxcallupdate/supportsdtmf
    open var supportsDTMF: Bool = false
}

/// callkit/cxhandle
open class CXHandle: NSObject, NSCopying {
    /// callkit/cxhandle/handletype (Sendable; G `: Int`)
    public enum HandleType: Int, Sendable {
        case generic = 1
        case phoneNumber = 2
        case emailAddress = 3
    }

    /// callkit/cxhandle/value (G)
    open var value: String { storedValue }
    private let storedValue: String

    /// callkit/cxhandle/init(type:value:)
    public init(type: CXHandle.HandleType, value: String) {
        storedValue = value
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }
}

// MARK: - Requesting calls

/// callkit/cxcallcontroller (M: no Sendable)
open class CXCallController: NSObject {
    /// callkit/cxcallcontroller/init() (A: `convenience init()`, on a private serial queue)
    override public init() {}

    /// callkit/cxcallcontroller/request(_:completion:)
    open func request(_ transaction: CXTransaction, completion: @escaping @Sendable ((any Error)?) -> Void) {}

    /// callkit/cxcallcontroller/request(_:completion:) async form
    open func request(_ transaction: CXTransaction) async throws {}
}

/// callkit/cxtransaction
open class CXTransaction: NSObject {
    /// callkit/cxtransaction/init(action:) (A: `convenience init(action:)`)
    public init(action: CXAction) {}
}

// MARK: - Actions

/// callkit/cxaction
open class CXAction: NSObject {
    /// callkit/cxaction/uuid
    open var uuid: UUID { storedUUID }
    private let storedUUID = UUID()

    override public init() {}

    /// callkit/cxaction/fulfill() (G)
    open func fulfill() {}
    /// callkit/cxaction/fail()
    open func fail() {}
}

/// callkit/cxcallaction
open class CXCallAction: CXAction {
    /// callkit/cxcallaction/calluuid
    open var callUUID: UUID { storedCallUUID }
    private let storedCallUUID: UUID

    /// callkit/cxcallaction/init(call:)
    public init(call callUUID: UUID) {
        storedCallUUID = callUUID
    }
}

/// callkit/cxstartcallaction
open class CXStartCallAction: CXCallAction {
    /// callkit/cxstartcallaction/handle (O)
    @NSCopying open var handle: CXHandle
    /// callkit/cxstartcallaction/contactidentifier
    open var contactIdentifier: String?
    /// callkit/cxstartcallaction/isvideo (A: `var isVideo: Bool { get set }`)
    open var isVideo: Bool = false

    /// callkit/cxstartcallaction/init(call:handle:)
    public init(call callUUID: UUID, handle: CXHandle) {
        self.handle = handle
        super.init(call: callUUID)
    }
}

/// callkit/cxanswercallaction
open class CXAnswerCallAction: CXCallAction {}

/// callkit/cxendcallaction
open class CXEndCallAction: CXCallAction {}

/// callkit/cxsetheldcallaction
open class CXSetHeldCallAction: CXCallAction {
    /// callkit/cxsetheldcallaction/isonhold (O)
    open var isOnHold: Bool = false
}

/// callkit/cxsetmutedcallaction
open class CXSetMutedCallAction: CXCallAction {
    /// callkit/cxsetmutedcallaction/ismuted (O)
    open var isMuted: Bool = false
}

/// callkit/cxsetgroupcallaction
open class CXSetGroupCallAction: CXCallAction {
    /// callkit/cxsetgroupcallaction/calluuidtogroupwith (nil: leave the group)
    open var callUUIDToGroupWith: UUID?

    /// callkit/cxsetgroupcallaction/init(call:calluuidtogroupwith:)
    public init(call callUUID: UUID, callUUIDToGroupWith: UUID?) {
        self.callUUIDToGroupWith = callUUIDToGroupWith
        super.init(call: callUUID)
    }
}

/// callkit/cxplaydtmfcallaction
open class CXPlayDTMFCallAction: CXCallAction {
    /// callkit/cxplaydtmfcallaction/digits
    open var digits: String = ""
}
