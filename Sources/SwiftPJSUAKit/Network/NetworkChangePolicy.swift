/// Decides, from the paths a network monitor reports, when the SIP engine must recover from a
/// network change (``CallEngine/handleIPChange()``: new listeners, re-registration with the
/// new Contact, calls re-invited).
///
/// A path monitor reports far more than changes of address: the first path at start-up, the
/// same path again when only its cost or constraints changed, loss of every interface. Recovery
/// is needed when a usable path follows a different one:
/// - the first path seen is the one the engine started on: nothing to do;
/// - a path that cannot carry traffic changes nothing yet (pjsua must be told only once the new
///   network is up), but is remembered;
/// - a usable path after a loss, or whose preferred interface or set of interfaces differs
///   from the last usable one (Wi-Fi to cellular, a new Wi-Fi interface), needs recovery;
/// - the same usable path again needs none. Loopback never counts.
///
/// A Wi-Fi network exchanged for another on the same interface with no loss in between is not
/// visible in a path; call ``NetworkChangeCoordinator/networkChanged()`` where the app learns of
/// it otherwise.
struct NetworkChangePolicy: Sendable {
    private var lastUsable: [NetworkPath.Interface]?
    private var lostSinceLastUsable = false
    private var seenAny = false

    init() {}

    /// Takes the next path the monitor reported; returns whether the engine must recover.
    mutating func observe(_ path: NetworkPath) -> Bool {
        defer { seenAny = true }
        let interfaces = path.externalInterfaces
        guard path.isSatisfied, !interfaces.isEmpty else {
            lostSinceLastUsable = true
            return false
        }
        defer {
            lastUsable = interfaces
            lostSinceLastUsable = false
        }
        guard let previous = lastUsable else {
            // Usable for the first time: a change only if the engine started with no network.
            return seenAny && lostSinceLastUsable
        }
        if lostSinceLastUsable { return true }
        return previous.first != interfaces.first || Set(previous) != Set(interfaces)
    }
}
