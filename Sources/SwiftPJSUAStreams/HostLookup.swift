@_spi(MediaHooks) @_spi(Locking) import SwiftPJSUA
import CPJSUAStreams
import CPJSUASupport
import Foundation

/// Resolves the host of a media stream's URL to numeric addresses, off the engine's executor
/// thread: a lookup can take as long as the system's resolver waits for a nameserver (seconds),
/// and the executor is the one thread every pjsua call of the engine runs on.
///
/// The lookup is libc's `getaddrinfo` on a thread of its own (not a Swift-concurrency pool
/// thread, which it would hold for as long), and that thread calls nothing of PJLIB. The caller
/// waits until a deadline; a lookup that outlives it is left to finish on its thread, its result
/// dropped.
enum HostLookup {
    /// The numeric addresses of `url`'s host (IPv4 and IPv6, in getaddrinfo's order, duplicates
    /// dropped); a numeric host as it is, without a lookup.
    /// - Throws: `PJSUAError.Code.invalidArgument` for a name that does not exist,
    ///   `PJSUAError.Code.pjsip` when the lookup itself failed (no nameserver answered),
    ///   `PJSUAError.Code.timedOut` at `deadline`.
    static func addresses(ofHostIn url: String, until deadline: ContinuousClock.Instant) async throws(PJSUAError) -> [String] {
        var buffer = [CChar](repeating: 0, count: 256)
        guard cpjsua_ws_url_host(url, &buffer, UInt32(buffer.count)) == pjSuccess else {
            throw PJSUAError(.invalidArgument, "\(Validation.quoted(url)) is not a ws:// or wss:// URL")
        }
        let host = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // A numeric host resolves at once, without asking the resolver (AI_NUMERICHOST).
        if case let .success(numeric) = resolve(host, numericOnly: true) { return numeric }
        let lookup = Lookup()
        let thread = Thread { lookup.finish(resolve(host, numericOnly: false)) }
        thread.name = "stream-host-lookup"
        let timer = Task {
            do {
                try await Task.sleep(until: deadline, clock: .continuous)
                lookup.finish(.failure(.timedOut))
            } catch {}  // cancelled: the lookup finished first
        }
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            lookup.wait(continuation)
            thread.start()
        }
        timer.cancel()
        switch outcome {
        case let .success(addresses):
            return addresses
        case .failure(.timedOut):
            throw PJSUAError(.timedOut, "the agent's host \(Validation.quoted(host)) did not resolve within the connect timeout")
        case let .failure(.noSuchName(reason)):
            throw PJSUAError(.invalidArgument, "the agent's host \(Validation.quoted(host)) does not resolve: \(reason)")
        case let .failure(.lookupFailed(reason)):
            throw PJSUAError(.pjsip, "cannot resolve the agent's host \(Validation.quoted(host)): \(reason)")
        }
    }

    enum Failure: Error {
        /// The name does not exist, or has no address (EAI_NONAME, EAI_NODATA...).
        case noSuchName(String)
        /// The lookup could not be done (EAI_AGAIN: no nameserver answered; EAI_FAIL, EAI_MEMORY,
        /// EAI_SYSTEM).
        case lookupFailed(String)
        case timedOut
    }

    typealias Outcome = Result<[String], Failure>

    /// getaddrinfo for TCP, any family: every address as text (inet_ntop), in its order. Blocks
    /// for as long as the resolver does, unless `numericOnly`. libc only: runs on any thread.
    static func resolve(_ host: String, numericOnly: Bool) -> Outcome {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_protocol = Int32(IPPROTO_TCP)
        if numericOnly { hints.ai_flags = AI_NUMERICHOST }
        var list: UnsafeMutablePointer<addrinfo>?
        let result = getaddrinfo(host, nil, &hints, &list)
        defer { if let list { freeaddrinfo(list) } }
        guard result == 0 else {
            let reason = String(cString: gai_strerror(result))
            let couldNotAsk = [EAI_AGAIN, EAI_FAIL, EAI_MEMORY, EAI_SYSTEM].contains(result)
            return couldNotAsk ? .failure(.lookupFailed(reason)) : .failure(.noSuchName(reason))
        }
        var addresses: [String] = []
        var entry = list
        while let info = entry?.pointee {
            entry = info.ai_next
            guard let text = numericText(info), !addresses.contains(text) else { continue }
            addresses.append(text)
        }
        return addresses.isEmpty ? .failure(.noSuchName("no IPv4 or IPv6 address")) : .success(addresses)
    }

    private static func numericText(_ info: addrinfo) -> String? {
        guard let address = info.ai_addr else { return nil }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written: UnsafePointer<CChar>?
        switch info.ai_family {
        case AF_INET:
            written = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                withUnsafePointer(to: inet.pointee.sin_addr) { inet_ntop(AF_INET, $0, &text, socklen_t(text.count)) }
            }
        case AF_INET6:
            written = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { inet6 in
                withUnsafePointer(to: inet6.pointee.sin6_addr) { inet_ntop(AF_INET6, $0, &text, socklen_t(text.count)) }
            }
        default:
            return nil
        }
        guard written != nil else { return nil }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// One lookup's meeting point: the first of the lookup thread and the deadline to finish
    /// resumes the waiter; the other is dropped.
    final class Lookup: Sendable {
        private let state = LockedValueBox<(waiter: CheckedContinuation<Outcome, Never>?, outcome: Outcome?)>((nil, nil))

        func wait(_ continuation: CheckedContinuation<Outcome, Never>) {
            let early: Outcome? = state.withLockedValue { state in
                if let outcome = state.outcome { return outcome }
                state.waiter = continuation
                return nil
            }
            if let early { continuation.resume(returning: early) }
        }

        func finish(_ result: Outcome) {
            let waiting: CheckedContinuation<Outcome, Never>? = state.withLockedValue { state in
                guard state.outcome == nil else { return nil }
                state.outcome = result
                defer { state.waiter = nil }
                return state.waiter
            }
            waiting?.resume(returning: result)
        }
    }
}
