import PJSIP

extension PJSUA {
    /// Opens another SIP transport (for example TCP beside UDP).
    ///
    /// Drives `pjsua_transport_create()`.
    /// - Parameters:
    ///   - kind: UDP, TCP or TLS.
    ///   - ipv6: whether to listen on IPv6.
    ///   - port: the port; 0 picks a free one (reported in the result).
    ///   - bindAddress: a numeric address to bind to; nil for all addresses.
    @discardableResult
    public func addTransport(_ kind: TransportKind, ipv6: Bool = false, port: Int = 0, bindAddress: String? = nil) throws -> Transport {
        try requireRunning()
        guard (0...65535).contains(port) else {
            throw PJSUAError(.invalidArgument, "port \(port) is out of range 0...65535")
        }
        if let bindAddress { try Validation.ipAddress(bindAddress, ipv6: ipv6, what: "bind address") }
        return try openTransport(kind: kind, ipv6: ipv6, port: port, bindAddress: bindAddress)
    }

    func openTransport(kind: TransportKind, ipv6: Bool, port: Int, bindAddress: String?) throws(PJSUAError) -> Transport {
        let run = try currentRun()
        return try withCStringArena { arena throws(PJSUAError) in
            var config = pjsua_transport_config()
            pjsua_transport_config_default(&config)
            config.port = UInt32(port)
            if let bindAddress { config.bound_addr = arena.pj(bindAddress) }
            if kind == .tls { Self.apply(run.settings.tls, to: &config.tls_setting, arena) }
            var type: pjsip_transport_type_e
            switch kind {
            case .udp: type = PJSIP_TRANSPORT_UDP
            case .tcp: type = PJSIP_TRANSPORT_TCP
            case .tls: type = PJSIP_TRANSPORT_TLS
            }
            if ipv6 { type = pjsip_transport_type_e(type.rawValue | PJSIP_TRANSPORT_IPV6.rawValue) }
            var id: pjsua_transport_id = -1
            try check(pjsua_transport_create(type, &config, &id),
                      "cannot open \(kind)\(ipv6 ? "6" : "") transport on port \(port)")
            var info = pjsua_transport_info()
            try check(pjsua_transport_get_info(id, &info), "pjsua_transport_get_info")
            var host = String(pj: info.local_name.host)
            if let bindAddress, host.isEmpty { host = bindAddress }
            let transport = Transport(id: id, kind: kind, ipv6: ipv6, host: host, port: Int(info.local_name.port))
            run.withState { $0.transports.append(transport) }
            return transport
        }
    }
}
