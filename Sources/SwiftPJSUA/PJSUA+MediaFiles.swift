import Foundation
import PJSIP

extension PJSUA {
    /// Plays a WAV file (16-bit PCM) into a call; the remote party hears it.
    ///
    /// Drives `pjsua_player_create()` and `pjsua_conf_connect()`.
    /// - Parameters:
    ///   - path: the WAV file.
    ///   - call: a call whose audio is active.
    ///   - loop: whether to start over at the end (otherwise the player goes silent).
    public func play(_ path: String, into call: Call, loop: Bool = false) throws -> Player {
        let callPort = try audioPort(of: call)
        try Self.checkPath(path)
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw PJSUAError(.file, "cannot read WAV file \(Validation.quoted(path))")
        }
        var id: pjsua_player_id = -1
        try withCStringArena { arena throws(PJSUAError) in
            var file = arena.pj(path)
            let options = loop ? 0 : UInt32(PJMEDIA_FILE_NO_LOOP.rawValue)
            let status = pjsua_player_create(&file, options, &id)
            guard status == pjSuccess else {
                throw PJSUAError(status: status, operation: "cannot play \(Validation.quoted(path))", as: .file)
            }
        }
        do {
            try check(pjsua_conf_connect(pjsua_player_get_conf_port(id), callPort), "cannot connect player to \(call)")
        } catch {
            pjsua_player_destroy(id)
            throw error
        }
        let token = HandleToken.next()
        players[id] = token
        return Player(id: id, token: token)
    }

    /// Stops a player and releases its file.
    ///
    /// Drives `pjsua_player_destroy()`.
    public func stop(_ player: Player) throws {
        try requireRunning()
        guard players[player.id] == player.token else {
            throw PJSUAError(.staleHandle, "\(player) is not a live player")
        }
        players[player.id] = nil
        try check(pjsua_player_destroy(player.id), "cannot stop \(player)")
    }

    /// Records what the remote party of a call says to a WAV file (16-bit PCM, the bridge's clock
    /// rate). The file is complete once the recorder is stopped (or the engine shut down).
    ///
    /// Drives `pjsua_recorder_create()` and `pjsua_conf_connect()`.
    public func record(_ call: Call, to path: String) throws -> Recorder {
        let callPort = try audioPort(of: call)
        try Self.checkPath(path)
        guard path.lowercased().hasSuffix(".wav") else {
            throw PJSUAError(.file, "recording file \(Validation.quoted(path)) must end in .wav")
        }
        let directory = (path as NSString).deletingLastPathComponent
        guard FileManager.default.isWritableFile(atPath: directory.isEmpty ? "." : directory) else {
            throw PJSUAError(.file, "cannot write into the directory of \(Validation.quoted(path))")
        }
        var id: pjsua_recorder_id = -1
        try withCStringArena { arena throws(PJSUAError) in
            var file = arena.pj(path)
            let status = pjsua_recorder_create(&file, 0, nil, -1, 0, &id)
            guard status == pjSuccess else {
                throw PJSUAError(status: status, operation: "cannot record to \(Validation.quoted(path))", as: .file)
            }
        }
        do {
            try check(pjsua_conf_connect(callPort, pjsua_recorder_get_conf_port(id)), "cannot connect \(call) to recorder")
        } catch {
            pjsua_recorder_destroy(id)
            throw error
        }
        let token = HandleToken.next()
        recorders[id] = token
        return Recorder(id: id, token: token)
    }

    /// Stops a recorder and completes its WAV file.
    ///
    /// Drives `pjsua_recorder_destroy()`.
    public func stop(_ recorder: Recorder) throws {
        try requireRunning()
        guard recorders[recorder.id] == recorder.token else {
            throw PJSUAError(.staleHandle, "\(recorder) is not a live recorder")
        }
        recorders[recorder.id] = nil
        try check(pjsua_recorder_destroy(recorder.id), "cannot stop \(recorder)")
    }

    /// Rejects paths C would read differently (an embedded NUL ends a C string early).
    private static func checkPath(_ path: String) throws(PJSUAError) {
        guard !path.isEmpty, !path.utf8.contains(0) else {
            throw PJSUAError(.file, "invalid file path \(Validation.quoted(path))")
        }
    }

    /// The conference slot of a call's active audio.
    func audioPort(of call: Call) throws(PJSUAError) -> pjsua_conf_port_id {
        guard let port = try withLiveCallInfo(call, { info in activeAudioSlots(info).first }) else {
            throw PJSUAError(.mediaNotActive, "\(call) has no active audio yet")
        }
        return port
    }
}
