import CPJSUASupport
import Foundation
import PJSIP

extension PJSUA {
    /// Plays a WAV file (16-bit PCM) into a call; the remote party hears it. The player is the
    /// call's own: the file starts from its beginning. To play one file into many calls, make
    /// one player with ``makePlayer(_:loop:)`` and ``connect(_:to:)`` it to each call.
    ///
    /// Drives `pjsua_player_create()` and `pjsua_conf_connect()`.
    /// - Parameters:
    ///   - path: the WAV file.
    ///   - call: a call whose audio is active.
    ///   - loop: whether to start over at the end (otherwise the player goes silent).
    public func play(_ path: String, into call: Call, loop: Bool = false) throws -> Player {
        let callPort = try audioPort(of: call)
        let player = try makePlayer(path, loop: loop)
        do {
            try check(pjsua_conf_connect(pjsua_player_get_conf_port(player.id), callPort), "cannot connect player to \(call)")
        } catch {
            try? stop(player)
            throw error
        }
        return player
    }

    /// Opens a WAV file (16-bit PCM) as a player on the conference bridge, connected to nothing
    /// yet: ``connect(_:to:)`` feeds it into calls. One player shared by many calls (a bot's
    /// prompt or hold music) costs one file reader, one buffer and, when the file's rate differs
    /// from the bridge's, one resampler, where a player per call costs that per call (and pjsua
    /// holds at most `PJSUA_MAX_PLAYERS` players: 64 in this project's Linux build). Every
    /// connected call hears the same position in the file. ``stop(_:)-(PJSUA.Player)`` closes it.
    ///
    /// Drives `pjsua_player_create()`.
    /// - Parameters:
    ///   - path: the WAV file.
    ///   - loop: whether to start over at the end (otherwise the player goes silent); on by
    ///     default, as a shared player usually plays for as long as calls come.
    /// - Throws: ``PJSUAError/Code/file`` for a path that cannot be read or is not a WAV file
    ///   pjmedia can play; ``PJSUAError/Code/tooMany`` when pjsua has no player slot left
    ///   (``BuildLimits/maxPlayers``).
    public func makePlayer(_ path: String, loop: Bool = true) throws -> Player {
        try requireRunning()
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
                // Out of player slots (PJSUA_MAX_PLAYERS: 4 in the iOS binary) is no file problem.
                throw PJSUAError(status: status, operation: "cannot play \(Validation.quoted(path))",
                                 as: status == cpjsua_status_etoomany ? .tooMany : .file)
            }
        }
        let token = HandleToken.next()
        run?.withState { $0.players[id] = token }
        return Player(id: id, token: token)
    }

    /// Feeds a player into a call: the remote party hears it, from wherever the player is in
    /// its file. Connecting a player to a call it already feeds does nothing. The connection
    /// ends with the call, with ``disconnect(_:from:)`` or when the player is stopped; a call
    /// whose media is renegotiated (hold, re-INVITE) may get a new bridge port, so connect
    /// again when ``Event/callMedia(call:state:hasVideo:)`` reports its audio active.
    ///
    /// Drives `pjsua_conf_connect()` from the player's port to the call's.
    /// - Throws: ``PJSUAError/Code/staleHandle`` for a stopped player or an ended call,
    ///   ``PJSUAError/Code/mediaNotActive`` for a call with no audio yet.
    public func connect(_ player: Player, to call: Call) throws {
        let port = try playerPort(player)
        let callPort = try audioPort(of: call)
        try check(pjsua_conf_connect(port, callPort), "cannot connect \(player) to \(call)")
    }

    /// Stops feeding a player into a call; the player keeps playing into its other calls.
    /// Disconnecting a call the player does not feed does nothing.
    ///
    /// Drives `pjsua_conf_disconnect()`.
    public func disconnect(_ player: Player, from call: Call) throws {
        let port = try playerPort(player)
        let callPort = try audioPort(of: call)
        try check(pjsua_conf_disconnect(port, callPort), "cannot disconnect \(player) from \(call)")
    }

    /// The calls a player feeds (`pjsua_conf_get_port_info` of the player's port). The bridge
    /// applies connections and disconnections at its next clock tick (pjmedia 2.14 and later
    /// queue them), so a change shows here up to one frame (20 ms) after the call that made it.
    public func calls(fedBy player: Player) throws -> Set<Call> {
        let ports = Set(try listeners(of: try playerPort(player)))
        var fed: Set<Call> = []
        for call in try activeCalls() where (try? audioPort(of: call)).map(ports.contains) == true {
            fed.insert(call)
        }
        return fed
    }

    /// A live player's conference slot.
    private func playerPort(_ player: Player) throws(PJSUAError) -> pjsua_conf_port_id {
        let run = try requireRunning()
        guard run.withState({ $0.players[player.id] }) == player.token else {
            throw PJSUAError(.staleHandle, "\(player) is not a live player")
        }
        return pjsua_player_get_conf_port(player.id)
    }

    /// The slots a conference slot transmits to.
    func listeners(of port: pjsua_conf_port_id) throws(PJSUAError) -> [pjsua_conf_port_id] {
        var info = pjsua_conf_port_info()
        try check(pjsua_conf_get_port_info(port, &info), "pjsua_conf_get_port_info")
        return withUnsafeBytes(of: info.listeners) { raw in
            Array(raw.bindMemory(to: pjsua_conf_port_id.self).prefix(Int(info.listener_cnt)))
        }
    }

    /// Stops a player and releases its file.
    ///
    /// Drives `pjsua_player_destroy()`.
    public func stop(_ player: Player) throws {
        let run = try requireRunning()
        let removed = run.withState { state in
            guard state.players[player.id] == player.token else { return false }
            state.players[player.id] = nil
            return true
        }
        guard removed else {
            throw PJSUAError(.staleHandle, "\(player) is not a live player")
        }
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
                throw PJSUAError(status: status, operation: "cannot record to \(Validation.quoted(path))",
                                 as: status == cpjsua_status_etoomany ? .tooMany : .file)
            }
        }
        do {
            try check(pjsua_conf_connect(callPort, pjsua_recorder_get_conf_port(id)), "cannot connect \(call) to recorder")
        } catch {
            pjsua_recorder_destroy(id)
            throw error
        }
        let token = HandleToken.next()
        run?.withState { $0.recorders[id] = token }
        return Recorder(id: id, token: token)
    }

    /// Stops a recorder and completes its WAV file.
    ///
    /// Drives `pjsua_recorder_destroy()`.
    public func stop(_ recorder: Recorder) throws {
        let run = try requireRunning()
        let removed = run.withState { state in
            guard state.recorders[recorder.id] == recorder.token else { return false }
            state.recorders[recorder.id] = nil
            return true
        }
        guard removed else {
            throw PJSUAError(.staleHandle, "\(recorder) is not a live recorder")
        }
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
