import SwiftPJSUA

/// Starts an engine, runs `body`, and always shuts the engine down (BYE to live calls,
/// unregistration), whether `body` returns or throws.
func withPhone(_ configuration: PJSUA.Configuration, output: Output,
               _ body: (PJSUA, PJSUA.Transport, Watcher) async throws -> Int32) async throws -> Int32 {
    let phone = PJSUA()
    let watcher = Watcher(phone, output: output)
    let transport = try await phone.start(configuration)
    let networkChanges = NetworkChangeSignal.install(for: phone, output: output)
    defer { networkChanges.cancel() }
    do {
        let code = try await body(phone, transport, watcher)
        await phone.shutdown()
        return code
    } catch {
        await phone.shutdown()
        throw error
    }
}
