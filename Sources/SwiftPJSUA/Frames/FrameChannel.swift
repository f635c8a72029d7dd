import CPJSUASupport
import Foundation
import PJSIP

/// The Swift side of one frame port (FramePort.c): a reader's frame stream or a writer's queue
/// and events.
///
/// Threading: the conference bridge's clock thread calls ``handle(_:_:_:_:_:)`` through the C
/// notify function, after the C side released its mutex. From there this class only copies
/// samples into an array, queues it in ``received`` (bounded, drops the oldest, never blocks;
/// ``ReceivedFrames`` says how the app's task is woken), yields writer events to an
/// `AsyncStream` continuation (bounded too) and resumes waiting writers woken under `state`'s
/// lock, which is held for a few instructions and never across a call out. Nothing on the clock thread
/// awaits, hops to an actor or enters PJSIP. Attaching and detaching the port enter PJSIP and run
/// on the engine's executor thread only.
final class FrameChannel: @unchecked Sendable {
    // @unchecked Sendable: `buffer` is only used through CPJSUASupport's buffer functions, which
    // take the buffer's own mutex (attach/detach run on the executor thread only); the mutable
    // Swift state is in `state`; the rest is immutable after init.
    enum Direction { case receive, send }

    let call: PJSUA.Call
    let format: PJSUA.AudioFormat
    let direction: Direction
    let executor: PJSUAExecutor
    /// The run whose bridge the port is on; weak: the run keeps the channel in its call's record.
    /// Set in `init` only.
    private(set) weak var run: EngineRun?
    let capacityFrames: Int
    private(set) var buffer: OpaquePointer?
    /// A reader's frames (its queue and the app's waiting task).
    let received: ReceivedFrames
    let events: AsyncStream<PJSUA.AudioFrameWriter.Event>
    private let eventsContinuation: AsyncStream<PJSUA.AudioFrameWriter.Event>.Continuation

    private struct State {
        var spaceWaiters: [CheckedContinuation<Void, Never>] = []
        var spaceSignalled = false
        var isClosed = false
        var lastMark: UInt64 = 0
        /// Marks placed and not yet played or flushed.
        var pendingMarks: Set<UInt64> = []
        /// How the most recent marks ended: milliseconds played, nil when flushed.
        var markOutcomes: [UInt64: Int?] = [:]
        var markWaiters: [UInt64: [CheckedContinuation<Int?, Never>]] = [:]
    }
    private let state = LockedValueBox(State())
    private static let keptMarkOutcomes = 1024

    init?(call: PJSUA.Call, format: PJSUA.AudioFormat, direction: Direction, capacityFrames: Int, executor: PJSUAExecutor,
          run: EngineRun) {
        self.call = call
        self.run = run
        self.format = format
        self.direction = direction
        self.executor = executor
        self.capacityFrames = capacityFrames
        // A reader's queue holds at most `capacityFrames` frames the app has not taken yet; a
        // writer's events are few (marks, underruns) but bounded all the same.
        received = ReceivedFrames(capacity: direction == .receive ? capacityFrames : 1)
        (events, eventsContinuation) = AsyncStream.makeStream(of: PJSUA.AudioFrameWriter.Event.self, bufferingPolicy: .bufferingNewest(4096))
        guard let buffer = cpjsua_frame_buffer_create(UInt32(format.samplesPerFrame), UInt32(direction == .send ? capacityFrames : 1),
                                                      frameNotify, Unmanaged.passUnretained(self).toOpaque())
        else { return nil }
        self.buffer = buffer
    }

    deinit {
        received.finish()
        eventsContinuation.finish()
        cpjsua_frame_buffer_free(buffer)
    }

    /// Adds the port to the bridge. Executor thread only. The port keeps this object alive
    /// until the bridge has let go of it.
    func attach() throws(PJSUAError) -> Int32 {
        guard let buffer else { throw PJSUAError(.invalidArgument, "no frame buffer") }
        var slot: Int32 = -1
        let retained = Unmanaged.passRetained(self).toOpaque()
        let status = cpjsua_frame_port_attach(buffer, direction == .send ? 1 : 0, UInt32(format.sampleRate.rawValue),
                                              retained, frameRelease, &slot)
        guard status == pjSuccess else {
            throw PJSUAError(status: status, operation: "cannot add a frame port for \(call) to the conference bridge")
        }
        return slot
    }

    /// Removes the port from the bridge. Executor thread only; idempotent.
    func detach() {
        guard let buffer else { return }
        cpjsua_frame_port_detach(buffer)
    }

    /// Stops the flow: the reader's sequence ends, writes fail, waiting writers wake up.
    func close() {
        guard let buffer else { return }
        cpjsua_frame_buffer_close(buffer)
        let (waiters, markWaiting) = state.withLockedValue { state in
            state.isClosed = true
            let waiters = state.spaceWaiters
            state.spaceWaiters = []
            let markWaiting = state.markWaiters.values.flatMap { $0 }
            state.markWaiters = [:]
            state.pendingMarks = []
            return (waiters, markWaiting)
        }
        waiters.forEach { $0.resume() }
        markWaiting.forEach { $0.resume(returning: nil) }
        received.finish()
        eventsContinuation.finish()
    }

    var closed: Bool { state.withLockedValue { $0.isClosed } }

    var droppedFrames: Int { received.droppedFrames }

    /// The reader's next frame; nil once it is stopped. A reader whose iterating task was
    /// cancelled needs no port any more: it leaves the bridge.
    func nextFrame() async -> PJSUA.AudioFrame? {
        await received.next { [weak self] in
            guard let self else { return }
            let executor = self.executor
            executor.execute { FrameTaps.detach(self, in: self.run) }
        }
    }

    /// The C side's counters.
    var stats: cpjsua_frame_stats {
        guard let buffer else { return cpjsua_frame_stats() }
        return cpjsua_frame_buffer_stats(buffer)
    }

    /// Queues one frame, waiting for room or dropping the oldest audio.
    func write(_ samples: [Int16], dropOldest: Bool) async throws {
        guard let buffer else { throw PJSUAError(.staleHandle, "the frame writer of \(call) is closed") }
        while true {
            let result = samples.withUnsafeBufferPointer { pointer -> Int32 in
                guard let base = pointer.baseAddress else { return 1 }  // nothing to queue
                return cpjsua_frame_buffer_write(buffer, base, UInt32(pointer.count), dropOldest ? 1 : 0)
            }
            switch result {
            case 1: return
            case 0: break
            case -2: throw PJSUAError(.invalidFrame, "a frame larger than the writer's queue")
            default: throw PJSUAError(.staleHandle, "the frame writer of \(call) is closed (the call ended or the writer was stopped)")
            }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLockedValue { state in
                    if state.spaceSignalled || state.isClosed {
                        state.spaceSignalled = false
                        return true
                    }
                    state.spaceWaiters.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
            try Task.checkCancellation()
        }
    }

    func flush() -> UInt64 {
        guard let buffer else { return 0 }
        return cpjsua_frame_buffer_flush(buffer)
    }

    func mark() throws(PJSUAError) -> UInt64 {
        guard let buffer else { throw PJSUAError(.staleHandle, "the frame writer of \(call) is closed") }
        let id = state.withLockedValue { state in
            state.lastMark += 1
            state.pendingMarks.insert(state.lastMark)
            return state.lastMark
        }
        let result = cpjsua_frame_buffer_mark(buffer, id)
        if result != 0 { _ = state.withLockedValue { $0.pendingMarks.remove(id) } }
        switch result {
        case 0: return id
        case -2: throw PJSUAError(.tooMany, "\(CPJSUA_FRAME_MAX_MARKS) marks are already waiting to be played")
        default: throw PJSUAError(.staleHandle, "the frame writer of \(call) is closed")
        }
    }

    /// The milliseconds played when mark `id` went out; nil when it was flushed, the writer
    /// closed first, or the mark is unknown (or too old to be remembered).
    func waitUntilPlayed(_ id: UInt64) async -> Int? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int?, Never>) in
            let outcome: Int?? = state.withLockedValue { state in
                if let outcome = state.markOutcomes[id] { return .some(outcome) }
                guard state.pendingMarks.contains(id), !state.isClosed else { return .some(nil) }
                state.markWaiters[id, default: []].append(continuation)
                return .none
            }
            if case let .some(value) = outcome { continuation.resume(returning: value) }
        }
    }

    /// Records how a mark ended and wakes its waiters.
    private func resolveMark(_ id: UInt64, played milliseconds: Int?) {
        let waiters = state.withLockedValue { state in
            state.pendingMarks.remove(id)
            state.markOutcomes[id] = .some(milliseconds)
            if state.markOutcomes.count > Self.keptMarkOutcomes, let oldest = state.markOutcomes.keys.min() {
                state.markOutcomes[oldest] = nil
            }
            return state.markWaiters.removeValue(forKey: id) ?? []
        }
        waiters.forEach { $0.resume(returning: milliseconds) }
    }

    /// Called by the C port (on the bridge's clock thread, or by flush on the caller's thread).
    fileprivate func handle(_ event: Int32, _ samples: UnsafePointer<Int16>?, _ count: UInt32, _ value: UInt64, _ played: UInt64) {
        switch Int(event) {
        case CPJSUA_FRAME_EVENT_RECEIVED:
            guard let samples else { return }
            let frame = PJSUA.AudioFrame(unchecked: Array(UnsafeBufferPointer(start: samples, count: Int(count))),
                                         format: format, timestamp: value)
            received.add(frame)
        case CPJSUA_FRAME_EVENT_MARK_PLAYED:
            let milliseconds = format.milliseconds(ofSamples: played)
            resolveMark(value, played: milliseconds)
            eventsContinuation.yield(.markPlayed(.init(id: value), played: .milliseconds(milliseconds)))
        case CPJSUA_FRAME_EVENT_MARK_FLUSHED:
            resolveMark(value, played: nil)
            eventsContinuation.yield(.markFlushed(.init(id: value), played: format.duration(ofSamples: played)))
        case CPJSUA_FRAME_EVENT_UNDERRUN:
            eventsContinuation.yield(.underrun(played: format.duration(ofSamples: played)))
        case CPJSUA_FRAME_EVENT_SPACE:
            let waiters = state.withLockedValue { state in
                let waiters = state.spaceWaiters
                state.spaceWaiters = []
                state.spaceSignalled = waiters.isEmpty
                return waiters
            }
            waiters.forEach { $0.resume() }
        default:
            break
        }
    }
}

/// The C port's notify function: `ctx` is the channel, kept alive by the port.
private let frameNotify: cpjsua_frame_notify = { ctx, event, samples, count, value, played in
    guard let ctx else { return }
    Unmanaged<FrameChannel>.fromOpaque(ctx).takeUnretainedValue().handle(event, samples, count, value, played)
}

/// The C port's release function, called once when the port is destroyed.
private let frameRelease: cpjsua_frame_release = { retained in
    guard let retained else { return }
    Unmanaged<FrameChannel>.fromOpaque(retained).release()
}
