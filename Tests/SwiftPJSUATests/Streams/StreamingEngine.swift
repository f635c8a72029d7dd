import SwiftPJSUA
import SwiftPJSUAStreams

/// ``withEngine(_:file:function:_:)`` with media streams enabled
/// (`PJSUA.Configuration.enablesMediaStreams`): the engine the stream suites call from.
func withStreamingEngine<T>(
    _ configuration: PJSUA.Configuration = .init(port: 0, transport: .udp, bindAddress: "127.0.0.1", audioDevice: .null),
    file: String = #fileID, function: String = #function,
    _ body: (PJSUA, PJSUA.Transport, EventLog) async throws -> T
) async throws -> T {
    var configuration = configuration
    configuration.enablesMediaStreams = true
    return try await withEngine(configuration, file: file, function: function, body)
}
