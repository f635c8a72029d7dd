import Foundation
import PJSUATestSupport
import SwiftPJSUA
import Testing

/// KL-57: flaws a peer reaches in our 2.17 base that upstream fixed after it outside its security
/// advisories (scripts/pjproject-patches/fix-kl57-*.sh; the iOS binary, a later master, carries
/// upstream's fixes). Each is shown on the PJSIP without our patches (the pjsua app of
/// /opt/pjproject-unpatched stops) and answered on ours: the pjsua app of this build and the
/// softphone (our engine), each living on.
@Suite("Security: upstream's fixes after 2.17 that are not advisories (KL-57)")
struct UpstreamFixTests {
    /// KL-57.1: an OPTIONS carrying `Record-Route: <sip:proxy.example;hide>` (PJSIP's own "hide"
    /// parameter, without "lr"): the answer copies the Record-Route, and printing it asserted.
    static func hiddenRouteOptions(_ peer: RawSIPPeer) -> RawSIPRequest {
        var options = RawSIPRequest(peer: peer, method: "OPTIONS")
        options.extraHeaders = ["Record-Route: <sip:proxy.example;hide>"]
        return options
    }

    @Test func aHiddenRecordRouteWithoutLrAbortsTheUnpatchedLibrary() async throws {
        let app = try await FuzzFindingTests.answeringApp("pjsua-unpatched-route-hide", prefix: InputScreenTests.prefix)
        defer { app.stop() }
        let peer = try RawSIPPeer(target: app.port)
        peer.send(Self.hiddenRouteOptions(peer))
        try await FuzzFindingTests.expectAborted(app, "a hidden Record-Route without lr")
    }

    /// Our patch: answered 200, the hidden route left out of the answer (as PJSIP leaves out a
    /// hidden route it prints), and a call afterwards.
    @Test func aHiddenRecordRouteWithoutLrIsAnsweredByThePatchedAppAndOurEngine() async throws {
        let app = try await FuzzFindingTests.answeringApp("pjsua-patched-route-hide", prefix: nil)
        defer { app.stop() }
        let (child, port) = try await answeringSoftphone([], name: "softphone-route-hide")
        defer { child.stop() }
        for (name, target, output) in [("the pjsua app", app.port, { app.process.output }), ("the softphone", port, { child.output })] {
            let peer = try RawSIPPeer(target: target)
            let answer = try await peer.exchange(Self.hiddenRouteOptions(peer), timeout: .seconds(5))
            #expect(answer?.statusCode == 200, "\(name): \(answer?.startLine ?? "no answer"): \(output().suffix(3000))")
            #expect(answer?.header("record-route") == nil, "\(name) printed the hidden route: \(answer?.description ?? "")")
            let call = try await peer.plainCall()
            #expect(call.invite == 200 && call.bye == 200, "\(name), a call after the hidden route: \(call)")
        }
    }
}

/// KL-57.6 (upstream 9e9ba9595): pjsua asks pjlib-util's simple STUN client for the SIP socket's
/// public address, and 2.17's client read a (XOR-)MAPPED-ADDRESS's family, port and address
/// whatever the attribute's declared length. The server (or anyone on its path) answers here.
@Suite("Security: a STUN answer's short address attribute (KL-57.6)")
struct STUNShortAddressTests {
    /// A MAPPED-ADDRESS of length 0, then a SOFTWARE attribute whose length and first four bytes
    /// read as port 8 and 203.0.113.66: the address 2.17 took, on any build.
    static let emptyAddressThenSoftware: [UInt8] = [0x00, 0x01, 0x00, 0x00, 0x80, 0x22, 0x00, 0x08, 203, 0, 113, 66, 0, 0, 0, 0]

    /// A 128-byte answer (the client's whole receive buffer) whose last attribute is a
    /// MAPPED-ADDRESS of length 0: 2.17 read its port and address past the buffer, on the stack
    /// (a stack-buffer-overflow on the ASan build).
    static let emptyAddressAtTheEnd: [UInt8] = [0x80, 0x22, 0x00, 100] + [UInt8](repeating: 0x41, count: 100) + [0x00, 0x01, 0x00, 0x00]

    @Test(arguments: [("after it, an attribute read as an address", emptyAddressThenSoftware),
                      ("at the end of the receive buffer", emptyAddressAtTheEnd)])
    func anAddressAttributeShorterThanAnAddressIsNoAddress(_ where: String, attributes: [UInt8]) async throws {
        #expect(20 + attributes.count <= 128)
        let stun = try FakeSTUNServer(publicHost: "192.0.2.10", classicAnswerDelay: .zero, classicAttributes: { _ in attributes })
        defer { stun.stop() }
        var configuration = PJSUA.Configuration(port: 0, transport: .udp, bindAddress: "127.0.0.1", audioDevice: .null)
        configuration.nat.stunServers = [stun.address]
        try await withEngine(configuration) { _, transport, _ in
            #expect(stun.classicRequests >= 1, "the SIP socket's address was not asked of the STUN server")
            #expect(transport.host == "127.0.0.1", "\(`where`): our Via and Contact carry \(transport)")
        }
    }
}

/// KL-57 item 5 (upstream f86b81372, 5718e5a6e): pjsua finds the call of an invite session's
/// event by the dialog's slot, and a slot is given to a new call once the old one has ended, while
/// the old call's re-INVITE may still wait for its answer; upstream drops events of a session that
/// is no longer its slot's. The sequence upstream describes, driven by a peer: 2.17 already leaves
/// the new call alone on it (the ended session's late answer reaches no pjsua callback; checked
/// in pjsua's log), and this keeps it so.
@Suite("Security: a late answer to an ended call's re-INVITE (KL-57)")
struct StaleReinviteTests {
    @Test(arguments: [200, 488])
    func aLateAnswerToAnEndedCallsReInviteLeavesTheNewCallInItsSlotAlone(lateStatus: Int) async throws {
        var configuration = PJSUA.Configuration(port: 0, transport: .udp, bindAddress: "127.0.0.1", audioDevice: .null)
        configuration.maxCalls = 1  // the next call takes the ended call's slot
        try await withEngine(configuration) { phone, transport, log in
            let peer = try RawSIPPeer(target: transport.port)
            let first = try await phone.makeCall(to: PJSUA.SIPURI(peer.uri))
            let invite = try #require(try await peer.request("INVITE"))
            peer.send(peer.response(to: invite, 200, toTag: "first", sdp: true))
            try await log.state(first, .confirmed)

            // The re-INVITE of a hold, left unanswered past a 100; then the call ends.
            try await phone.hold(first)
            let reinvite = try #require(try await peer.request("INVITE"))
            peer.send(peer.response(to: reinvite, 100))
            try await phone.hangUp(first)
            let bye = try #require(try await peer.request("BYE"))
            peer.send(peer.response(to: bye, 200))
            try await log.state(first, .disconnected)

            // A new call in the same slot, up with its media (pjsua frees the slot just after the
            // event of the end: placed once it is free).
            var placed: PJSUA.Call?
            try await waitUntil("the ended call's slot is free", timeout: .seconds(5)) {
                do { placed = try await phone.makeCall(to: PJSUA.SIPURI(peer.uri)) } catch let error as PJSUAError where error.code == .tooMany {}
                return placed != nil
            }
            let second = try #require(placed)
            let secondInvite = try #require(try await peer.request("INVITE"))
            peer.send(peer.response(to: secondInvite, 200, toTag: "second", sdp: true))
            try await log.state(second, .confirmed)
            try await waitUntil("the new call's media is up", timeout: .seconds(5)) { try await phone.info(second).media == .active }

            // Now the ended call's re-INVITE is answered.
            peer.send(peer.response(to: reinvite, lateStatus, sdp: lateStatus == 200))
            if lateStatus == 200 { _ = try await peer.request("ACK", timeout: .seconds(2)) }
            try await Task.sleep(for: .milliseconds(500))
            let info = try await phone.info(second)
            #expect(info.state == .confirmed, "the late \(lateStatus) changed the new call: \(info)")
            #expect(info.media == .active, "the late \(lateStatus) changed the new call's media: \(info)")

            try await phone.hangUp(second)
            if let bye = try await peer.request("BYE") { peer.send(peer.response(to: bye, 200)) }
            try await log.state(second, .disconnected)
        }
    }
}

/// KL-57.7 (upstream 2da6cf3e3): a request the engine sends (a MESSAGE, a REGISTER) that fails at
/// once (an address the socket refuses, no transport to it) ends its transaction inside the send
/// and arms its 0 ms destroy timer; 2.17's `pjsip_endpt_send_request` then read and terminated the
/// transaction holding no reference, while pjsua's SIP worker, polling the timers on its own
/// thread, could destroy it first: a use after free on the engine's thread. Not a peer's doing,
/// and a window of microseconds: Tests/Peers/probes/send_failure_tsx.c holds it open (the program's
/// own `pjsip_tsx_send_msg` waits inside it for the transaction's pool to be released), set up as
/// the engine sets pjsua up. Before the patch the pool was released inside the window (exit 3, on
/// the plain and the ASan builds alike); with it, only once the sender is done.
@Suite("Security: a send that fails at once keeps its transaction until the sender is done (KL-57.7)")
struct SendFailureTransactionTests {
    @Test func aMessageRefusedAtOnceLeavesItsTransactionToTheSenderUntilItIsDone() async throws {
        try await expectProbe("send_failure_tsx", says: "released inside the window: NO; released afterwards: YES")
    }
}

/// KL-57.8 (upstream 7b6cc12b9, 66edd91f9): the UDP media transport handed a received packet to its
/// stream holding no reference to it, and the stream's receive decoded into itself before taking
/// one: a hang-up on the engine's thread (which destroys the stream) while pjsua's worker is in
/// that receive freed the stream under it, once the transport's detach had waited out its one
/// second for the callback (a worker stalled that long, on a loaded machine). No peer chooses the
/// moment; Tests/Peers/probes/rtp_rx_destroy.c holds the worker in each window (after the
/// transport's snapshot of the callbacks, in the stream's header decode, after the RTCP snapshot)
/// while its main thread destroys the stream. Before the patch the stream's pool was released
/// inside each window (exit 3, plain and ASan builds); with it, once the receive has returned.
@Suite("Security: a stream destroyed while a packet to it is being received (KL-57.8)")
struct ReceiveTeardownTests {
    @Test(arguments: ["a", "b", "c"])
    func aStreamIsKeptUntilTheReceiveInItsWindowHasReturned(window: String) async throws {
        try await expectProbe("rtp_rx_destroy", arguments: [window], says: "window \(window): released inside: NO; released afterwards: YES")
    }
}

/// KL-57.9 (upstream 18e80e398): `pjsip_dlg_dec_lock` let go of a dialog's lock and took it again
/// before destroying a dialog whose last session had ended, and a thread that locked it in between
/// (pjsua's worker on an in-dialog message while the engine's thread hangs up, or the other way
/// round) destroyed it too: a double destroy of freed memory. Tests/Peers/probes/dialog_dec_lock.c
/// holds the first thread in that window while a second looks the dialog up and lets go of it, as
/// the user agent does. Before the patch the second thread destroyed the dialog inside the window
/// (exit 3, plain and ASan builds); with it, the first destroys it once, after.
@Suite("Security: a dialog let go of by two threads at once (KL-57.9)")
struct DialogTeardownTests {
    @Test func aDialogLockedWhileItsLastSessionEndsIsDestroyedOnceByTheThreadThatEndedIt() async throws {
        try await expectProbe("dialog_dec_lock", says: "destroyed inside the window: NO; destroyed afterwards: once")
    }
}

/// KL-57.10 and KL-57.11 (upstream 0ed917eb9, 8234bd220): a video stream's end against its send
/// thread, in any video call. With the default rate control a frame being encoded (the video
/// conference's clock thread) queues its packets on the stream's send manager after letting the
/// stream's lock go, and the stream's destroy (the engine's thread ending the call or its video)
/// freed that manager in between; and the destroy joined the send thread holding the stream's
/// lock, which that thread takes after each packet: a deadlock. Tests/Peers/probes/vid_send_detach.c
/// and vid_send_join.c hold the thread in each window while the stream is destroyed. Before the
/// patches: the manager freed under the queueing thread, and the join made holding the lock (exit 3,
/// plain and ASan builds); with them, neither.
@Suite("Security: a video stream destroyed while its packets are sent (KL-57.10, KL-57.11)")
struct VideoSendTeardownTests {
    @Test func aFrameQueuedWhileTheStreamIsDestroyedFindsItsSendManagerGoneAndDropsThePacket() async throws {
        try await expectProbe("vid_send_detach", says: "send manager freed under send_rtp: NO")
    }

    @Test func theStreamsDestroyJoinsItsSendThreadWithoutHoldingTheLockThatThreadTakes() async throws {
        try await expectProbe("vid_send_join", says: "destroy joins the send thread holding the stream lock: NO")
    }
}

/// KL-57.12 (upstream d3cf933df): a video window whose port could not join the video conference
/// (its 32 slots taken: about 11 video calls at once, which a peer can place) was freed by removing
/// slot -1, an assertion that aborts our builds. Tests/Peers/probes/vid_win_add_fail.c makes a real
/// loopback video call whose capture port's add fails (its own `pjmedia_vid_conf_add_port`) and
/// reports, from its own `pjsua_vid_conf_remove_port`, whether slot -1 was removed: before the patch
/// it was (exit 3, plain and ASan builds), not with it.
@Suite("Security: a video window whose port the video conference refused (KL-57.12)")
struct VideoWindowAddFailureTests {
    @Test func aCaptureThatCannotJoinTheVideoConferenceIsFreedWithoutRemovingSlotMinusOne() async throws {
        try await expectProbe("vid_win_add_fail", says: "removed slot -1: NO")
    }
}

/// KL-57.13 (upstream bfa54d082): ending a call's video walked pjsua's active timer list holding
/// PJSUA_LOCK only, while pjsua's worker moved the nodes of fired timers to the free list under
/// the timer mutex: a walk standing on a node that fired followed it into the free list and never
/// ended, holding PJSUA_LOCK (the engine stopped). Tests/Peers/probes/vid_timer_list.c holds a
/// loopback video call's hang-up at one node of that walk (a timer whose event is a guard page)
/// while the node's timer fires: before the patch the node went to the free list under the walk,
/// which then went round that list (exit 3, plain and ASan builds); with it the timer waits for
/// the walk.
@Suite("Security: a video call's hang-up walking pjsua's timer list while a timer fires (KL-57.13)")
struct VideoTimerListTests {
    @Test func theVideoStopsWalkOfPendingTimersEndsWhileATimerFiresUnderIt() async throws {
        try await expectProbe("vid_timer_list", says: "node moved to the free list under the walk: NO; walk ended: YES")
    }
}

/// KL-57.14 (upstream dad6e1d0d): pjsua's video calls share a capture device through one window,
/// found by device and counted; `free_vid_win` let PJSUA_LOCK go while destroying the window its
/// last call let go of, and a call taking up the capture in between (a START_TRANSMIT, a new video
/// call's media, a capture-device change) found that window, counted it and kept its id after the
/// slot was reset: no more video, and its hang-up aborts in `dec_vid_win` (or frees whichever
/// window took the slot). Tests/Peers/probes/vid_capture_window.c holds the teardown there and
/// starts another call's sending: before the patch that call took the window being freed (exit 3);
/// with it the call makes a window of its own and sends from it.
@Suite("Security: a capture window taken up while it is freed (KL-57.14)")
struct VideoCaptureWindowTests {
    @Test func aCallTakingUpTheCaptureWhileItsWindowIsFreedMakesAWindowOfItsOwn() async throws {
        try await expectProbe("vid_capture_window", says: "took the window being freed: NO")
    }
}

/// KL-57.15 (upstream 469151c48): the UDP media transport handed its stream a pointer to the
/// buffer each datagram's source is read into, and the transport's attach clears that buffer: a
/// stream attached while the media worker drains RTP queued on the socket (a peer's RTP sent
/// before its 200, or during a media-changing re-INVITE: a video keyframe burst makes it likely),
/// or an attach while a receive is still in its callback, left the stream or the transport's
/// address switch with a source of family 0, and the switch's `pj_sockaddr_cp` asserts (an abort,
/// seen about once in 30 loopback video calls). Tests/Peers/probes/rtp_attach_race.c holds the
/// media worker in three windows (between the read and the snapshot, in the stream's source
/// comparison, before the transport's switch) while its main thread attaches. Before the patch
/// each saw family 0 (exit 3); with it the receive uses the copy taken in the snapshot.
@Suite("Security: a stream attached while RTP to its transport is being received (KL-57.15)")
struct AttachSourceAddressTests {
    @Test(arguments: ["a", "b", "c"])
    func theReceiveUsesTheSourceCopiedInItsSnapshotWhateverTheAttachClears(window: String) async throws {
        try await expectProbe("rtp_attach_race", arguments: [window], says: "window \(window): source of family 0: NO")
    }

    /// Upstream 065f17e91 (an RTCP datagram before the transport's attach, compared with an
    /// unset remote address) does not reach an assertion in 2.17 (docs/KNOWN-LIMITS.md KL-57
    /// item 16): `pj_sockaddr_cmp` returns at the differing families, and only both unset would
    /// assert. Tests/Peers/probes/rtcp_early.c sends RTCP before the attach and to a transport
    /// detached and started again, and counts the comparisons: none with both unset.
    @Test func earlyRTCPNeverComparesTwoUnsetAddresses() async throws {
        try await expectProbe("rtcp_early", says: "both unset: 0, assertion: NO")
    }
}

/// KL-57.19 (upstream 2e13f0835): `pjsip_ua_register_dlg` asserted that a dialog's local tag did
/// not hash to 0, as if 0 meant "not computed"; our local tags are random UUIDs, so about one
/// dialog in 2^32 (a call, a subscription, a REFER; ours or a peer's) aborted the process, as
/// upstream's report saw. A zero hash is a hash like any other for pjsip's table, which computes 0
/// again whenever it is given 0 or none. Tests/Peers/probes/dialog_tag_hash.c gives a UAC dialog
/// and a peer's UAS dialog the tag of upstream's report (its own `pj_create_unique_string`), and
/// needs both registered, found by that tag (the peer's INFO answered 200 in its dialog) and
/// unregistered when they end. Before the patch the first registration asserted (exit 3).
@Suite("Security: a dialog whose local tag hashes to 0 (KL-57.19)")
struct DialogTagHashTests {
    @Test func aDialogWhoseLocalTagHashesToZeroIsRegisteredAndFoundByItsTag() async throws {
        try await expectProbe("dialog_tag_hash", says: "dialog with a zero tag hash registered: YES; found by its tag: UAC YES, UAS YES")
    }
}

/// KL-57.20 (upstream 99e9c39b1): an IP change's TCP listener restart (`restartListener`, on by
/// default) whose active socket could not be made (`PJ_ETOOMANY` with the ioqueue's keys taken,
/// KL-25, which peers push toward by opening connections) went on to
/// `pj_activesock_start_accept(NULL)`, an assertion that aborts our builds; it also left the port
/// listening and the TCP factory unregistered, and no later restart reopened the listener
/// (upstream's fix keeps that last flaw). `Tests/Peers/probes/listener_restart_fail.c tcp` fails
/// the listener's create during an IP change: before the patch it aborted (exit 3); with it the
/// restart reports the error, the port is closed, outgoing TCP still works, and the next IP change
/// brings the listener back (a MESSAGE over TCP to it is answered 200).
@Suite("Security: a TCP listener restart whose socket cannot be made (KL-57.20)")
struct TCPListenerRestartTests {
    @Test func aListenerRestartThatCannotMakeItsSocketReportsTheErrorAndTheNextRestartReopensIt() async throws {
        try await expectProbe("listener_restart_fail", arguments: ["tcp"],
                              says: "restart with no socket asserted: NO; socket left listening: NO; failure reported: YES")
    }
}

/// KL-57.20b (upstream 99e9c39b1's TLS half): an IP change's TLS listener restart whose accept
/// could not be started (the same ioqueue keys) was reported as done, with nothing listening, so
/// pjsua's retry never ran and the engine's `.ipChange` said the listener was back; and, as for TCP,
/// no later restart reopened a listener whose restart had failed.
/// `Tests/Peers/probes/listener_restart_fail.c tls` fails the listener's accept start during an IP
/// change: before the patch the restart reported success (exit 3); with it the error is reported,
/// outgoing TLS still leaves (a ClientHello reaches a plain TCP server), and the next IP change
/// opens the port again.
@Suite("Security: a TLS listener restart whose accept cannot start (KL-57.20b)")
struct TLSListenerRestartTests {
    @Test func aListenerRestartThatCannotAcceptReportsTheErrorAndTheNextRestartReopensIt() async throws {
        // Exit 0 is every check; the line names the one the unpatched library fails.
        try await expectProbe("listener_restart_fail", arguments: ["tls"],
                              says: "socket left listening: NO; failure reported: YES")
    }
}

/// KL-59 (not fixed upstream): `pjsua_call_set_vid_strm(PJSUA_CALL_VID_STRM_STOP_TRANSMIT)` found
/// the capture window to let go of by the call's capture device, not by the window the call holds,
/// so a second stop of a call whose window another call keeps alive released it again with
/// `dec_vid_win(-1)`, an assertion that aborts our builds (in the engine: an app's second
/// `stopVideoTransmission`, or the engine's holdBack then apply, with two video calls on one
/// camera; the engine now stops only a call holding its capture, VideoTests covers that).
/// Tests/Peers/probes/vid_stop_twice.c stops one of two calls sharing the colour-bar window twice
/// and reports, from its own `pjmedia_event_unsubscribe`, `pjsua_vid_conf_disconnect` and
/// `__assert_fail`, whether the second stop touched the window; then the other call must still send
/// and the first must start again. Before the patch it did (exit 3); with it, not.
@Suite("Security: a call's video stopped twice while another call shares its capture (KL-59)")
struct VideoStopTwiceTests {
    @Test func aSecondStopOfACallsVideoLeavesTheCaptureWindowAnotherCallSharesAlone() async throws {
        try await expectProbe("vid_stop_twice", says: "second stop touched the shared capture window: NO")
    }
}

/// KL-60 (not fixed upstream): pjsua frees a call's window for the incoming video when the call
/// ends (a remote BYE: on pjsua's worker) in `free_vid_win`, which lets PJSUA_LOCK go while it
/// removes, stops and destroys the window's ports and resets the window only afterwards. Meanwhile
/// `pjsua_vid_enum_wins` listed the window, and `pjsua_vid_win_set_show`, `_get_info`, `_set_pos`,
/// `_set_size` (and `_set_win`, `_rotate`, `_set_fullscreen`) used the ports being destroyed: the
/// engine's window calls on the app's thread as the call ended. Upstream's later `free_vid_win`
/// takes the ports off first, and its window functions then assert on the NULL port. Patched: the
/// ports come off the window under the lock, the window is no longer listed, and the window
/// functions refuse a window without ports (`PJ_ENOTFOUND`).
/// Tests/Peers/probes/vid_win_op_teardown.c holds the worker inside the teardown of a loopback
/// call's window and calls the four functions on it from another thread: before the patch they
/// reached the port being destroyed (exit 3); with it they return errors, and again once the
/// window is freed.
@Suite("Security: a call's video window used by the app while the call ends (KL-60)")
struct VideoWindowTeardownTests {
    @Test func theWindowFunctionsRefuseAWindowBeingFreed() async throws {
        try await expectProbe("vid_win_op_teardown", says: "window API reached a port being destroyed: NO")
    }
}

/// KL-58 (upstream, unchanged): pjsip consumes a digest challenge's token outside the challenge
/// callback with no lock held, and giving up a challenged SUBSCRIBE (evsub.c
/// `evsub_async_auth_abandon_impl`) ends the subscription there: its evsub, presence and pjsua
/// buddy callbacks and its destroy ran on the engine's thread without the dialog's lock, while
/// pjsua's worker could be handling a NOTIFY of that dialog under it. The engine now answers or
/// gives up a dialog's challenge holding the dialog's lock (`AuthChallenge.c`), for the iOS binary
/// too. Tests/Peers/probes/evsub_abandon_lock.c runs the engine's own C code: before the fix the
/// lock was free as the subscription ended, and it ended while the worker was held inside a
/// NOTIFY's handling (exit 3, on Linux builds with and without our patches); with it, the give-up
/// waits for the worker.
@Suite("Security: a challenged subscription given up by a credential provider (KL-58)")
struct ChallengedSubscriptionGiveUpTests {
    @Test func givingUpASubscriptionsChallengeEndsItUnderItsDialogsLock() async throws {
        try await expectProbe("evsub_abandon_lock", says: "subscription ended without its dialog lock: NO; while a NOTIFY of its dialog was handled: NO")
    }
}

/// Runs a race probe (Tests/Peers/probes/NAME.c, which holds its window open) and expects what the
/// patched build does: exit 0 and the probe's line `line`.
private func expectProbe(_ name: String, arguments: [String] = [], says line: String,
                         sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let (status, output) = try await PJSIPProbe.run(name, arguments: arguments, timeout: .seconds(30))
    #expect(status == 0, "\(([name] + arguments).joined(separator: " ")): exit \(status): \(output.suffix(2000))", sourceLocation: sourceLocation)
    #expect(output.contains(line), "\(output.suffix(2000))", sourceLocation: sourceLocation)
}
