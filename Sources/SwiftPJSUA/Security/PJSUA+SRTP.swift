import PJSIP

extension PJSUA {
    /// The account-level SRTP fields, shared by `pjsua_config` (the default of every account)
    /// and `pjsua_acc_config`.
    static func srtpFields(_ srtp: SRTPConfiguration) -> (use: pjmedia_srtp_use, secureSignaling: Int32, keying: [pjmedia_srtp_keying_method]) {
        let use: pjmedia_srtp_use
        switch srtp.mode {
        case .off: use = PJMEDIA_SRTP_DISABLED
        case .optional: use = PJMEDIA_SRTP_OPTIONAL
        case .mandatory: use = PJMEDIA_SRTP_MANDATORY
        }
        let keying = srtp.keying.map { $0 == .sdes ? PJMEDIA_SRTP_KEYING_SDES : PJMEDIA_SRTP_KEYING_DTLS_SRTP }
        return (use, srtp.secureSignaling.level, keying)
    }

    /// Writes the keying methods into a `pjsua_srtp_opt`, keeping pjsua's default crypto suites.
    static func setKeying(_ keying: [pjmedia_srtp_keying_method], in options: inout pjsua_srtp_opt) {
        withUnsafeMutableBytes(of: &options.keying) { raw in
            let slots = raw.bindMemory(to: pjmedia_srtp_keying_method.self)
            for (index, method) in keying.prefix(slots.count).enumerated() { slots[index] = method }
            options.keying_count = UInt32(min(keying.count, slots.count))
        }
    }

    static func apply(_ srtp: SRTPConfiguration, to config: inout pjsua_config) {
        let fields = srtpFields(srtp)
        config.use_srtp = fields.use
        config.srtp_secure_signaling = fields.secureSignaling
        setKeying(fields.keying, in: &config.srtp_opt)
    }

    static func apply(_ srtp: SRTPConfiguration, to config: inout pjsua_acc_config) {
        let fields = srtpFields(srtp)
        config.use_srtp = fields.use
        config.srtp_secure_signaling = fields.secureSignaling
        setKeying(fields.keying, in: &config.srtp_opt)
    }
}

/// How a call's audio is protected: its first audio stream's media transport, read in place
/// (`pjsua_call_get_med_transport_info`; the SRTP adapter reports a `pjmedia_srtp_info`).
func mediaEncryption(of slot: pjsua_call_id, _ info: UnsafePointer<pjsua_call_info>) -> PJSUA.MediaEncryption {
    guard let audio = audioMedia(info).first else { return .none }
    var transport = pjmedia_transport_info()
    pjmedia_transport_info_init(&transport)
    guard pjsua_call_get_med_transport_info(slot, UInt32(audio.index), &transport) == pjSuccess else { return .none }
    let count = Int(transport.specific_info_cnt)
    return withUnsafePointer(to: &transport.spc_info) { tuple in
        tuple.withMemoryRebound(to: pjmedia_transport_specific_info.self, capacity: count) { specifics in
            for index in 0..<count where specifics[index].type == PJMEDIA_TRANSPORT_TYPE_SRTP {
                let srtp = UnsafeRawPointer(specifics.advanced(by: index))
                    .advanced(by: MemoryLayout<pjmedia_transport_specific_info>.offset(of: \.buffer) ?? 0)
                    .assumingMemoryBound(to: pjmedia_srtp_info.self)
                guard srtp.pointee.active != 0 else { return .none }
                // pjmedia's SRTP info does not say which keying won: without DTLS-SRTP in the
                // build it was SDES; with it, the one the call's account offers, if it offers
                // only one (KL-16).
                let keying: PJSUA.SRTPConfiguration.Keying? = PJSUA.supportsDTLSSRTP ? onlyKeying(of: info.pointee.acc_id) : .sdes
                // The suite's name points into pjmedia's static table of crypto suites
                // (transport_srtp.c, `srtp_start`), so it outlives the call; the keys, which
                // are in the same struct, are never read.
                return PJSUA.MediaEncryption(isEncrypted: true, keying: keying, cryptoSuite: String(pj: srtp.pointee.tx_policy.name))
            }
            return .none
        }
    }
}

/// The SRTP keying method an account offers, when it offers exactly one.
private func onlyKeying(of account: pjsua_acc_id) -> PJSUA.SRTPConfiguration.Keying? {
    guard let pool = pjsua_pool_create("swiftpjsua-srtp", 512, 512) else { return nil }
    defer { pj_pool_release(pool) }
    // Read in place: pjsua_acc_config holds list heads that point into itself.
    return withUnsafeTemporaryAllocation(of: pjsua_acc_config.self, capacity: 1) { buffer -> PJSUA.SRTPConfiguration.Keying? in
        guard let config = buffer.baseAddress else { return nil }
        config.initialize(to: pjsua_acc_config())
        defer { config.deinitialize(count: 1) }
        guard pjsua_acc_get_config(account, pool, config) == pjSuccess, config.pointee.srtp_opt.keying_count == 1 else { return nil }
        return config.pointee.srtp_opt.keying.0 == PJMEDIA_SRTP_KEYING_DTLS_SRTP ? .dtls : .sdes
    }
}
