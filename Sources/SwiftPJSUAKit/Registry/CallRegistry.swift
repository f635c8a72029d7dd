import Foundation

/// Maps call UUIDs, engine call handles and SIP Call-IDs to one another, so that each logical
/// call exists once whatever order its push, its INVITE and their duplicates arrive in.
///
/// A value type with no effects: the orchestrator owns one and acts on what it returns.
struct CallRegistry<Handle: Hashable & Sendable>: Sendable {
    private var calls: [UUID: LogicalCall<Handle>] = [:]
    private var uuidByCallID: [String: UUID] = [:]
    private var uuidByHandle: [Handle: UUID] = [:]
    private var endedByCallID: [String: EndedCall] = [:]
    private var endedByUUID: [UUID: EndedCall] = [:]
    private var endedOrder: [EndedCall] = []
    /// How many ended calls are remembered (oldest forgotten first).
    let endedCallMemory: Int

    /// Creates an empty registry remembering up to `endedCallMemory` ended calls.
    init(endedCallMemory: Int = 256) {
        self.endedCallMemory = max(1, endedCallMemory)
    }

    /// The live calls.
    var liveCalls: [LogicalCall<Handle>] { Array(calls.values) }

    /// The live call with this UUID.
    func call(_ uuid: UUID) -> LogicalCall<Handle>? { calls[uuid] }

    /// The live call with this engine handle.
    func call(handle: Handle) -> LogicalCall<Handle>? { uuidByHandle[handle].flatMap { calls[$0] } }

    /// The live call with this SIP Call-ID.
    func call(sipCallID: String) -> LogicalCall<Handle>? { uuidByCallID[sipCallID].flatMap { calls[$0] } }

    /// The remembered ended call with this UUID.
    func endedCall(_ uuid: UUID) -> EndedCall? { endedByUUID[uuid] }

    /// Records a VoIP push.
    ///
    /// The call is shown with video when `showsOfferedVideo` (the app answers video offers with
    /// video) and the push says `video`; otherwise audio-only. Either way the call UI then follows
    /// the INVITE's offer and the media actually negotiated (``setHasVideo(_:for:)``).
    mutating func notePush(_ payload: VoIPPushPayload, showsOfferedVideo: Bool = false) -> PushSighting<Handle> {
        let update = CallUpdate(remoteHandle: payload.caller, displayName: payload.displayName,
                                hasVideo: showsOfferedVideo && payload.hasVideo)
        if var existing = call(sipCallID: payload.sipCallID) ?? payload.uuid.flatMap({ calls[$0] }) {
            existing.announcedByPush = true
            calls[existing.uuid] = existing
            if payload.isCancelled, existing.handle == nil, existing.direction == .incoming {
                end(existing.uuid, reason: .unanswered)
                return .cancelledKnownCall(existing)
            }
            return .repeated(existing)
        }
        if let ended = endedByCallID[payload.sipCallID] ?? payload.uuid.flatMap({ endedByUUID[$0] }) {
            return .alreadyEnded(uuid: ended.uuid, update: update, reason: ended.reason)
        }
        let uuid = CallIdentity.uuid(forSIPCallID: payload.sipCallID, serverUUID: payload.uuid)
        if payload.isCancelled {
            remember(EndedCall(uuid: uuid, sipCallID: payload.sipCallID, reason: .unanswered))
            return .cancelledUnknownCall(uuid: uuid, update: update)
        }
        let call = LogicalCall<Handle>(uuid: uuid, direction: .incoming, sipCallID: payload.sipCallID, handle: nil,
                                       update: update, offersVideo: payload.hasVideo, announcedByPush: true,
                                       isConnected: false, isEndingLocally: false)
        insert(call)
        return .newCall(call)
    }

    /// Records an incoming INVITE (the engine's incoming-call event). The call UI's `hasVideo` is
    /// whether the INVITE offers video when `showsOfferedVideo` (the app answers video offers with
    /// video), else false; it replaces what a push claimed, since the SDP decides what can be
    /// answered. ``setHasVideo(_:for:)`` then follows the media actually negotiated.
    mutating func noteInvite(handle: Handle, sipCallID: String, from: String, offeredVideo: Bool = false,
                                    showsOfferedVideo: Bool = false) -> InviteSighting<Handle> {
        if let known = call(handle: handle) { return .retransmission(known) }
        if var pushed = call(sipCallID: sipCallID) {
            guard pushed.handle == nil, pushed.direction == .incoming else { return .duplicateLeg(pushed) }
            pushed.handle = handle
            pushed.offersVideo = offeredVideo
            pushed.update.hasVideo = showsOfferedVideo && offeredVideo
            if pushed.update.remoteHandle == nil { pushed.update.remoteHandle = from }
            calls[pushed.uuid] = pushed
            uuidByHandle[handle] = pushed.uuid
            return .matchedPush(pushed)
        }
        if let ended = endedByCallID[sipCallID] { return .alreadyEnded(ended) }
        let call = LogicalCall<Handle>(uuid: CallIdentity.uuid(forSIPCallID: sipCallID), direction: .incoming,
                                       sipCallID: sipCallID, handle: handle,
                                       update: CallUpdate(remoteHandle: from, hasVideo: showsOfferedVideo && offeredVideo),
                                       offersVideo: offeredVideo, announcedByPush: false, isConnected: false,
                                       isEndingLocally: false)
        if let clash = calls[call.uuid] { return .duplicateLeg(clash) }
        insert(call)
        return .newCall(call)
    }

    /// Records an outgoing call about to be placed, with video or not (as the call UI was told
    /// when the call started); false when the UUID is already in use.
    mutating func beginOutgoing(uuid: UUID, destination: String, video: Bool = false) -> Bool {
        guard calls[uuid] == nil, endedByUUID[uuid] == nil else { return false }
        insert(LogicalCall(uuid: uuid, direction: .outgoing, sipCallID: nil, handle: nil,
                           update: CallUpdate(remoteHandle: destination, hasVideo: video), offersVideo: video,
                           announcedByPush: false, isConnected: false, isEndingLocally: false))
        return true
    }

    /// Attaches the engine handle of a placed outgoing call; nil when the call is gone.
    mutating func attach(handle: Handle, to uuid: UUID) -> LogicalCall<Handle>? {
        guard var call = calls[uuid], call.handle == nil else { return nil }
        call.handle = handle
        calls[uuid] = call
        uuidByHandle[handle] = uuid
        return call
    }

    /// Records the SIP Call-ID of an outgoing call, learnt from its first state event.
    mutating func learnSIPCallID(_ sipCallID: String, for uuid: UUID) {
        guard var call = calls[uuid], call.sipCallID == nil, !sipCallID.isEmpty, uuidByCallID[sipCallID] == nil else { return }
        call.sipCallID = sipCallID
        calls[uuid] = call
        uuidByCallID[sipCallID] = uuid
    }

    /// Marks a call established; returns the call as it was before, nil when unknown.
    @discardableResult
    mutating func markConnected(_ uuid: UUID) -> LogicalCall<Handle>? {
        guard let before = calls[uuid] else { return nil }
        calls[uuid]?.isConnected = true
        return before
    }

    /// Records whether a call has an active video stream; returns the updated call when that
    /// changed what the call UI shows, nil when the call is unknown or nothing changed.
    mutating func setHasVideo(_ hasVideo: Bool, for uuid: UUID) -> LogicalCall<Handle>? {
        guard var call = calls[uuid], call.update.hasVideo != hasVideo else { return nil }
        call.update.hasVideo = hasVideo
        calls[uuid] = call
        return call
    }

    /// Marks a call as being ended by the user here; nil when unknown.
    @discardableResult
    mutating func markEndingLocally(_ uuid: UUID) -> LogicalCall<Handle>? {
        calls[uuid]?.isEndingLocally = true
        return calls[uuid]
    }

    /// Ends a call: forgets it and remembers it as ended; returns it, nil when unknown.
    @discardableResult
    mutating func end(_ uuid: UUID, reason: CallEndReason) -> LogicalCall<Handle>? {
        guard let call = calls.removeValue(forKey: uuid) else { return nil }
        if let sipCallID = call.sipCallID, uuidByCallID[sipCallID] == uuid { uuidByCallID[sipCallID] = nil }
        if let handle = call.handle, uuidByHandle[handle] == uuid { uuidByHandle[handle] = nil }
        remember(EndedCall(uuid: uuid, sipCallID: call.sipCallID, reason: reason))
        return call
    }

    private mutating func insert(_ call: LogicalCall<Handle>) {
        calls[call.uuid] = call
        if let sipCallID = call.sipCallID { uuidByCallID[sipCallID] = call.uuid }
        if let handle = call.handle { uuidByHandle[handle] = call.uuid }
    }

    private mutating func remember(_ ended: EndedCall) {
        endedOrder.append(ended)
        endedByUUID[ended.uuid] = ended
        if let sipCallID = ended.sipCallID { endedByCallID[sipCallID] = ended }
        while endedOrder.count > endedCallMemory {
            let oldest = endedOrder.removeFirst()
            if endedByUUID[oldest.uuid] == oldest { endedByUUID[oldest.uuid] = nil }
            if let sipCallID = oldest.sipCallID, endedByCallID[sipCallID] == oldest { endedByCallID[sipCallID] = nil }
        }
    }
}
