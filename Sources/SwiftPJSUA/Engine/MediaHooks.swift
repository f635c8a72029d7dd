import PJSIP

// The MediaHooks SPI: how a package built on the engine (SwiftPJSUAStreams, the voice-agent
// bridge) reaches a call's media without the engine knowing it. Three parts, all given, none
// looked up:
// - ``PJSUA/MediaHooks``: C callbacks it sets into pjsua's configuration before `pjsua_init`
//   (a media transport or stream port wrapper), listed in ``PJSUA/Configuration/mediaHooks``.
//   An engine whose configuration lists none installs none: its calls' media pass through
//   nothing but pjsua's own code.
// - ``PJSUA/CallMediaAttachment``: an object kept in a call's record, told when the call's audio
//   is (re)wired, when a digit arrives, when the call ends and when the engine stops.
// - ``PJSUA/MediaHookContext``: the run such an object belongs to, handed out by the actor
//   (``PJSUA/mediaHookContext()``) and kept by the object: its way back to the engine's thread
//   and to its call's record.
// Not public API: `@_spi(MediaHooks) import SwiftPJSUA`.

extension PJSUA {
    /// C callbacks a package sets into pjsua's configuration before `pjsua_init`, and what frees
    /// what they still hold after `pjsua_destroy`.
    ///
    /// A hook sets only callbacks the engine leaves unset (`on_create_media_transport`,
    /// `on_stream_created2`); the engine installs its own first and checks that a hook changed
    /// none of them.
    @_spi(MediaHooks)
    public struct MediaHooks: Sendable {
        /// Names the hooks: a configuration lists each name once.
        public let name: String
        /// Sets the hooks' callbacks into the configuration. The engine's thread, before
        /// `pjsua_init`.
        public let install: @Sendable (inout pjsua_config) -> Void
        /// Frees what the hooks still hold (wrappers whose owner outlived pjsua). The engine's
        /// thread, after `pjsua_destroy`: no callback of theirs can run any more.
        public let releaseAll: @Sendable () -> Void

        public init(name: String, install: @escaping @Sendable (inout pjsua_config) -> Void,
                    releaseAll: @escaping @Sendable () -> Void) {
            self.name = name
            self.install = install
            self.releaseAll = releaseAll
        }
    }

    /// An object a package keeps in a call's record (``MediaHookContext/attach(_:to:)``), one
    /// per type and call, which the engine tells what happens to the call.
    @_spi(MediaHooks)
    public protocol CallMediaAttachment: AnyObject, Sendable {
        /// The call's audio is on the conference bridge at `slot`: first, or again after a
        /// re-INVITE gave it a new slot or codec. The engine's thread.
        func callAudioWired(slot: Int32)
        /// The far end sent `digit`. pjsua's callback threads, under pjsua's locks: copy, hand
        /// on, return; never block or call pjsua.
        func callKeyed(_ digit: DTMFDigit)
        /// The call ended, or the engine stops and the call with it: the attachment takes its
        /// ports off the bridge. The engine's thread, while pjsua exists; the record no longer
        /// holds the attachment.
        func callEnded()
        /// The engine stops: everything the attachment keeps open goes now. The engine's
        /// thread, before the calls end (``callEnded()`` follows for an attached one) and while
        /// pjsua exists. Also told to an attachment held past its call
        /// (``MediaHookContext/holdUntilStop(_:)``).
        func engineStopping()
    }

    /// One run of the engine, as a ``CallMediaAttachment`` sees it: kept by the attachment
    /// from ``PJSUA/mediaHookContext()`` on. Once the run ended, work sent to it is dropped and
    /// its calls have no records.
    @_spi(MediaHooks)
    public struct MediaHookContext: Sendable {
        let run: EngineRun

        /// The TLS settings of the run's transports (a client's default trust).
        public var tls: TLSConfiguration { run.settings.tls }

        /// pjsua's worker threads, which run the transports' callbacks.
        public var workerThreadCount: UInt32 { PJSUA.workerThreadCount }

        /// Whether the run started with the hooks named `name` installed.
        public func hasHooks(named name: String) -> Bool { run.mediaHooks.contains { $0.name == name } }

        /// Runs `work` on the engine's thread, unless the run has ended by then.
        public func onEngineThread(_ work: @escaping @Sendable () -> Void) {
            run.onEngineThread(work)
        }

        /// The attachment of type `type` in `call`'s record, if any.
        public func attachment<A: CallMediaAttachment>(of call: Call, as type: A.Type) -> A? {
            run.record(of: call) { $0.attachments[ObjectIdentifier(type)] as? A } ?? nil
        }

        /// Keeps `attachment` in `call`'s record; false when the call has one of its type.
        public func attach<A: CallMediaAttachment>(_ attachment: A, to call: Call) -> Bool {
            run.withCall(call) { record in
                guard record.attachments[ObjectIdentifier(A.self)] == nil else { return false }
                record.attachments[ObjectIdentifier(A.self)] = attachment
                return true
            }
        }

        /// Takes `attachment` out of `call`'s record, if it is still there.
        public func detach<A: CallMediaAttachment>(_ attachment: A, from call: Call) {
            run.withState { state in
                if state.calls[call]?.attachments[ObjectIdentifier(A.self)] === attachment {
                    state.calls[call]?.attachments[ObjectIdentifier(A.self)] = nil
                }
            }
        }

        /// Keeps `attachment` after its call (a connection closing), until ``release(_:)`` or
        /// the engine stops (``CallMediaAttachment/engineStopping()``).
        public func holdUntilStop(_ attachment: any CallMediaAttachment) {
            run.withState { $0.heldAttachments[ObjectIdentifier(attachment)] = attachment }
        }

        /// Lets go of an attachment held by ``holdUntilStop(_:)``.
        public func release(_ attachment: any CallMediaAttachment) {
            _ = run.withState { $0.heldAttachments.removeValue(forKey: ObjectIdentifier(attachment)) }
        }
    }

    /// The running engine's run, for an attachment to keep.
    /// - Throws: ``PJSUAError/Code/notStarted``.
    @_spi(MediaHooks)
    public func mediaHookContext() throws(PJSUAError) -> MediaHookContext {
        MediaHookContext(run: try requireRunning())
    }

    /// The conference slot of `call`'s active audio.
    /// - Throws: ``PJSUAError/Code/mediaNotActive`` before the call's audio is up, or the
    ///   call's error when it is gone.
    @_spi(MediaHooks)
    public func audioSlot(of call: Call) throws(PJSUAError) -> Int32 {
        try audioPort(of: call)
    }

    /// `call`'s SIP Call-ID.
    @_spi(MediaHooks)
    public func sipCallID(of call: Call) throws(PJSUAError) -> String {
        try withLiveCallInfo(call) { String(pj: $0.pointee.call_id) }
    }
}
