import CPJSUASupport
import PJSIP

extension PJSUA.Account {
    /// Everything needed to add a SIP account.
    public struct Configuration: Sendable, CustomStringConvertible, CustomReflectable {
        /// The account's address of record, e.g. `sip:alice@example.com` (or with a display
        /// name, `"Alice" <sip:alice@example.com>`).
        public var id: PJSUA.SIPURI
        /// The registrar URI, e.g. `sip:example.com`; nil for an account that does not register.
        public var registrar: PJSUA.SIPURI?
        /// The digest user name; nil for no credentials. Given with ``password`` or not at all.
        /// The stored-password form of ``credentials``.
        public var username: String?
        /// The digest password, given with ``username`` or not at all. Never logged and never
        /// part of a `description`. The stored-password form of ``credentials``.
        public var password: String?
        /// The digest realm; `*` answers any realm.
        public var realm: String
        /// The provider asked on every challenge instead of a stored password.
        fileprivate var provider: PJSUA.CredentialProvider?

        /// How the account answers digest challenges: a password the engine keeps, a provider
        /// asked on demand, or nil for none. Setting it replaces ``username``, ``password`` and
        /// ``realm`` (which read the `.password` form back).
        public var credentials: Credentials? {
            get {
                if let provider { return .provider(provider) }
                guard let username, let password else { return nil }
                return .password(username: username, password: password, realm: realm)
            }
            set {
                provider = nil
                username = nil
                password = nil
                realm = "*"
                switch newValue {
                case let .password(username, password, realm):
                    self.username = username
                    self.password = password
                    self.realm = realm
                case let .provider(provider):
                    self.provider = provider
                case nil:
                    break
                }
            }
        }
        /// RFC 8599 push parameters for the REGISTER Contact.
        public var push: PJSUA.PushParameters?
        /// Outbound proxies, in order (`pjsua_acc_config.proxy`).
        public var proxies: [PJSUA.SIPURI]
        /// Registration expiry asked of the registrar (whole seconds, 60...86400 s).
        public var registrationExpiry: Duration
        /// Whether REGISTER is sent as soon as the account is added.
        public var registerOnAdd: Bool
        /// When a failed registration is tried again by itself (after a registrar restart, a 503,
        /// a timeout or a dropped connection).
        public var registrationRetry: RegistrationRetry
        /// What ``PJSUA/handleIPChange(_:)`` does with this account's calls: keep them (a
        /// re-INVITE moves them to the new address; the default) or hang them up.
        public var ipChangeCalls: PJSUA.IPChangeCallPolicy
        /// ICE for this account's calls: the engine's (``PJSUA/Configuration/nat``), off, or its own.
        public var ice: PJSUA.AccountOverride<PJSUA.ICEConfiguration>
        /// The TURN relay for this account's calls: the engine's, none, or its own.
        public var turn: PJSUA.AccountOverride<PJSUA.TURNConfiguration>
        /// Whether the engine's STUN servers find this account's public SIP and media addresses.
        public var usesSTUN: Bool
        /// Time between keep-alive packets to the registrar over UDP, which hold a NAT binding
        /// open (`ka_interval`, whole seconds, 0...3600 s); zero for none. TCP and TLS keep their
        /// connection instead.
        public var keepAliveInterval: Duration
        /// Extra headers on every REGISTER of the account (`pjsua_acc_config.reg_hdr_list`),
        /// e.g. a device identifier the registrar expects.
        public var registrationHeaders: [PJSUA.SIPHeader]
        /// This account's SRTP; nil uses the engine's (``PJSUA/Configuration/srtp``).
        public var srtp: PJSUA.SRTPConfiguration?
        /// Whether the account subscribes to its voicemail counts from the start (`mwi_enabled`);
        /// off by default. pjsua subscribes after each successful registration, so it needs a
        /// ``registrar``; unsolicited message summaries are accepted either way. The same as
        /// turning it on with
        /// ``PJSUA/setMessageWaitingIndication(enabled:for:)`` right after adding the account,
        /// which can also turn it off later.
        public var messageWaitingIndication: Bool = false
        /// Whether the account publishes its presence to its registrar from the start
        /// (`publish_enabled`); off by default. The same as
        /// ``PJSUA/setPresencePublication(enabled:for:)`` right after adding the account.
        public var publishesPresence: Bool = false

        /// Creates an account configuration.
        public init(id: PJSUA.SIPURI, registrar: PJSUA.SIPURI? = nil, username: String? = nil, password: String? = nil,
                    realm: String = "*", push: PJSUA.PushParameters? = nil, proxies: [PJSUA.SIPURI] = [],
                    registrationExpiry: Duration = .seconds(300), registerOnAdd: Bool = true,
                    registrationRetry: RegistrationRetry = .default, ipChangeCalls: PJSUA.IPChangeCallPolicy = .keep,
                    ice: PJSUA.AccountOverride<PJSUA.ICEConfiguration> = .engineDefault,
                    turn: PJSUA.AccountOverride<PJSUA.TURNConfiguration> = .engineDefault, usesSTUN: Bool = true,
                    keepAliveInterval: Duration = .seconds(15),
                    registrationHeaders: [PJSUA.SIPHeader] = [], srtp: PJSUA.SRTPConfiguration? = nil) {
            self.id = id
            self.registrar = registrar
            self.username = username
            self.password = password
            self.realm = realm
            self.push = push
            self.proxies = proxies
            self.registrationExpiry = registrationExpiry
            self.registerOnAdd = registerOnAdd
            self.registrationRetry = registrationRetry
            self.ipChangeCalls = ipChangeCalls
            self.ice = ice
            self.turn = turn
            self.usesSTUN = usesSTUN
            self.keepAliveInterval = keepAliveInterval
            self.registrationHeaders = registrationHeaders
            self.srtp = srtp
        }

        /// Creates an account configuration whose challenges are answered with `credentials`
        /// (for example `.provider(...)`, which keeps no password in the engine).
        public init(id: PJSUA.SIPURI, registrar: PJSUA.SIPURI? = nil, credentials: Credentials?, push: PJSUA.PushParameters? = nil,
                    proxies: [PJSUA.SIPURI] = [], registrationExpiry: Duration = .seconds(300), registerOnAdd: Bool = true,
                    registrationRetry: RegistrationRetry = .default, ipChangeCalls: PJSUA.IPChangeCallPolicy = .keep,
                    ice: PJSUA.AccountOverride<PJSUA.ICEConfiguration> = .engineDefault,
                    turn: PJSUA.AccountOverride<PJSUA.TURNConfiguration> = .engineDefault, usesSTUN: Bool = true,
                    keepAliveInterval: Duration = .seconds(15),
                    registrationHeaders: [PJSUA.SIPHeader] = [], srtp: PJSUA.SRTPConfiguration? = nil) {
            self.init(id: id, registrar: registrar, push: push, proxies: proxies, registrationExpiry: registrationExpiry,
                      registerOnAdd: registerOnAdd, registrationRetry: registrationRetry, ipChangeCalls: ipChangeCalls,
                      ice: ice, turn: turn, usesSTUN: usesSTUN, keepAliveInterval: keepAliveInterval,
                      registrationHeaders: registrationHeaders, srtp: srtp)
            self.credentials = credentials
        }

        /// Mirrors the configuration with the password redacted (for `dump` and debuggers).
        public var customMirror: Mirror {
            Mirror(self, children: [
                "id": id, "registrar": registrar as Any, "username": username as Any,
                "password": password == nil ? "none" : "<redacted>", "realm": realm,
                "credentialProvider": provider == nil ? "none" : "provider", "push": push as Any,
                "proxies": proxies, "registrationExpiry": registrationExpiry, "registerOnAdd": registerOnAdd,
                "registrationRetry": registrationRetry, "ipChangeCalls": ipChangeCalls,
                "ice": ice, "turn": turn, "usesSTUN": usesSTUN, "keepAliveInterval": keepAliveInterval,
                "registrationHeaders": registrationHeaders,
                "srtp": srtp as Any, "messageWaitingIndication": messageWaitingIndication,
                "publishesPresence": publishesPresence,
            ])
        }

        public var description: String {
            "Account.Configuration(id: \(id), registrar: \(registrar.map(\.description) ?? "none"), username: \(username ?? "none"), password: \(password == nil ? "none" : "<redacted>")\(provider == nil ? "" : ", credentials: provider"), push: \(push.map(\.description) ?? "none"), srtp: \(srtp.map(\.description) ?? "engine's"))"
        }
    }
}

extension PJSUA {
    /// Adds a SIP account, registering it when a registrar is given.
    ///
    /// Drives `pjsua_acc_add()`. Registration outcomes arrive as ``Event/registration(account:state:)``.
    @discardableResult
    public func addAccount(id: SIPURI, registrar: SIPURI? = nil, username: String? = nil, password: String? = nil,
                           realm: String = "*", push: PushParameters? = nil) throws -> Account {
        try addAccount(Account.Configuration(id: id, registrar: registrar, username: username, password: password,
                                             realm: realm, push: push))
    }

    /// Adds a SIP account whose challenges are answered with `credentials` (a stored password,
    /// or a ``CredentialProvider`` asked on demand), registering it when a registrar is given.
    ///
    /// Drives `pjsua_acc_add()`. Registration outcomes arrive as ``Event/registration(account:state:)``.
    @discardableResult
    public func addAccount(id: SIPURI, registrar: SIPURI? = nil, credentials: Account.Credentials?,
                           push: PushParameters? = nil) throws -> Account {
        try addAccount(Account.Configuration(id: id, registrar: registrar, credentials: credentials, push: push))
    }

    /// Adds a SIP account from a full configuration.
    ///
    /// An engine holds at most ``BuildLimits/maxAccounts`` accounts, each transport's local
    /// account included: one more throws ``PJSUAError/Code/tooMany``.
    ///
    /// Drives `pjsua_acc_add()`.
    @discardableResult
    public func addAccount(_ configuration: Account.Configuration) throws -> Account {
        let run = try requireRunning()
        try Validation.sipURI(configuration.id, what: "account id")
        if let registrar = configuration.registrar { try Validation.sipURI(registrar, what: "registrar") }
        for proxy in configuration.proxies { try Validation.sipURI(proxy, what: "proxy") }
        guard configuration.proxies.count <= 8 else {
            throw PJSUAError(.invalidArgument, "at most 8 proxies are supported, got \(configuration.proxies.count)")
        }
        try Validation.duration(configuration.registrationExpiry, in: .seconds(60) ... .seconds(86_400), what: "registrationExpiry")
        try configuration.registrationRetry.validate()
        if case let .custom(ice) = configuration.ice { try ice.validate() }
        if case let .custom(turn) = configuration.turn { try turn.validate() }
        try Validation.duration(configuration.keepAliveInterval, in: .zero ... .seconds(3600), what: "keepAliveInterval")
        // pjsua would answer a challenge with an empty password (or ignore a password without a
        // user name): a credential is whole or absent.
        guard (configuration.username == nil) == (configuration.password == nil) else {
            throw PJSUAError(.invalidArgument, configuration.username == nil ? "a password needs a username" : "username \(Validation.quoted(configuration.username ?? "")) has no password")
        }
        if let provider = configuration.provider {
            guard configuration.username == nil, configuration.password == nil else {
                throw PJSUAError(.invalidArgument, "an account takes a password or a credential provider, not both")
            }
            try Validation.duration(provider.timeout, in: .milliseconds(10) ... .seconds(600), what: "credential provider timeout")
        }
        if let username = configuration.username { try Validation.headerValue(username, what: "username", maxLength: 255) }
        try Validation.headerValue(configuration.realm, what: "realm", maxLength: 255)
        if let password = configuration.password {
            guard password.utf8.count <= 255, !password.utf8.contains(0) else {
                throw PJSUAError(.invalidArgument, "password must be at most 255 bytes with no NUL")
            }
        }
        try configuration.srtp?.validate()
        let pushParameters = try configuration.push?.contactParameters()
        let registrationHeaders = try HeaderList(configuration.registrationHeaders)
        let token = HandleToken.next()
        // Known before pjsua_acc_add sends the first REGISTER, whose challenge may come back
        // before pjsua_acc_add returns.
        if case let .provider(provider) = configuration.credentials {
            run.credentials.register(provider, forAccount: token)
        }
        let slot: pjsua_acc_id
        do {
            slot = try addAccountSlot(configuration, token: token, pushParameters: pushParameters,
                                      registrationHeaders: registrationHeaders, in: run)
        } catch {
            run.credentials.accountRemoved(token)
            throw error
        }
        if configuration.messageWaitingIndication { try recordMessageWaiting(true, slot: slot, in: run) }
        return Account(slot: slot, token: token)
    }

    private func addAccountSlot(_ configuration: Account.Configuration, token: UInt, pushParameters: String?,
                                registrationHeaders: HeaderList, in run: EngineRun) throws(PJSUAError) -> pjsua_acc_id {
        let (pjsuaAnswersMessages, settings) = (run.pjsuaAnswersMessages, run.settings)
        return try withCStringArena { arena throws(PJSUAError) in
            var config = pjsua_acc_config()
            pjsua_acc_config_default(&config)
            config.id = arena.pj(configuration.id.text)
            config.user_data = HandleToken.pointer(token)
            config.unreg_timeout = UInt32(settings.unregisterTimeout.wholeMilliseconds)
            config.reg_timeout = UInt32(configuration.registrationExpiry.wholeSeconds)
            config.register_on_acc_add = configuration.registerOnAdd ? 1 : 0
            config.reg_first_retry_interval = UInt32(configuration.registrationRetry.firstAfter.wholeSeconds)
            config.reg_retry_interval = UInt32(configuration.registrationRetry.interval.wholeSeconds)
            config.reg_retry_random_interval = UInt32(configuration.registrationRetry.jitter.wholeSeconds)
            config.ip_change_cfg.hangup_calls = configuration.ipChangeCalls == .hangUp ? 1 : 0
            config.mwi_enabled = configuration.messageWaitingIndication ? 1 : 0
            config.publish_enabled = configuration.publishesPresence ? 1 : 0
            Self.setNATTraversal(&config, configuration, arena)
            config.auto_repond_sip_message = pjsuaAnswersMessages
            if let srtp = configuration.srtp { Self.apply(srtp, to: &config) }
            Self.setMediaBinding(&config, settings, arena)
            if let registrar = configuration.registrar { config.reg_uri = arena.pj(registrar.text) }
            if let pushParameters { config.reg_contact_uri_params = arena.pj(pushParameters) }
            withUnsafeMutableBytes(of: &config.proxy) { raw in
                let proxies = raw.bindMemory(to: pj_str_t.self)
                for (index, proxy) in configuration.proxies.enumerated() where index < proxies.count {
                    proxies[index] = arena.pj(proxy.text)
                }
            }
            config.proxy_cnt = UInt32(configuration.proxies.count)
            if let username = configuration.username {
                config.cred_count = 1
                config.cred_info.0.realm = arena.pj(configuration.realm)
                config.cred_info.0.scheme = arena.pj("digest")
                config.cred_info.0.username = arena.pj(username)
                config.cred_info.0.data_type = Int32(PJSIP_CRED_DATA_PLAIN_PASSWD.rawValue)
                config.cred_info.0.data = arena.pj(configuration.password ?? "")  // checked above: never nil here
            }
            var slot: pjsua_acc_id = -1
            try withUnsafeMutablePointer(to: &config) { (config) throws(PJSUAError) in
                // The list head points at itself: (re)initialise and fill it where it now lives.
                let headers = field(config, \.reg_hdr_list)
                pj_list_init(headers)
                registrationHeaders.append(to: headers)
                try Self.requireAccountRoom("cannot add account \(Validation.quoted(configuration.id.text))")
                try check(pjsua_acc_add(config, 0, &slot), "cannot add account \(Validation.quoted(configuration.id.text))")
            }
            withExtendedLifetime(registrationHeaders) {}
            return slot
        }
    }

    /// Refuses an account past the build's `PJSUA_MAX_ACC` (local accounts of transports
    /// included) with ``PJSUAError/Code/tooMany``: pjsua checks it with `PJ_ASSERT_RETURN`,
    /// an abort in a PJSIP built with assertions (upstream 54ebfdbec). Executor thread, which
    /// alone adds accounts.
    static func requireAccountRoom(_ what: @autoclosure () -> String) throws(PJSUAError) {
        let limit = PJSUA.buildLimits.maxAccounts
        guard Int(pjsua_acc_get_count()) < limit else {
            throw PJSUAError(.tooMany, "\(what()): this PJSIP build holds at most \(limit) accounts (PJSUA_MAX_ACC), each transport's local account included")
        }
    }

    func addLocalAccount(on transport: Transport) throws(PJSUAError) -> Account {
        if transport.kind == .tls { return try addLocalTLSAccount(on: transport) }
        var slot: pjsua_acc_id = -1
        try Self.requireAccountRoom("cannot add the local account of \(transport)")
        try check(pjsua_acc_add_local(transport.id, 1, &slot), "pjsua_acc_add_local")
        let token = HandleToken.next()
        // pjsua_acc_add_local uses the default media settings; give the local account ours.
        guard let pool = pjsua_pool_create("swiftpjsua-acc", 1024, 1024) else {
            throw PJSUAError(.pjsip, "cannot allocate a pool for the local account's settings")
        }
        defer { pj_pool_release(pool) }
        var config = pjsua_acc_config()
        let run = try currentRun()
        let settings = run.settings
        let pjsuaAnswersMessages = run.pjsuaAnswersMessages
        try withCStringArena { arena throws(PJSUAError) in
            // One pointer from get to modify or add: the copied header lists link back to their
            // heads inside the struct.
            try withUnsafeMutablePointer(to: &config) { (config) throws(PJSUAError) in
                try check(pjsua_acc_get_config(slot, pool, config), "pjsua_acc_get_config")
                Self.setMediaBinding(&config.pointee, settings, arena)
                if pjsuaAnswersMessages == 0 {
                    // pjsua_acc_modify ignores auto_repond_sip_message (pjsua_acc.c copies the fields
                    // it handles one by one; this one is not among them), so the app's message
                    // responder needs the local account added again with it off. pjsua_acc_add
                    // derives the rest (the transport type) from transport_id as add_local did.
                    config.pointee.auto_repond_sip_message = 0
                    try check(pjsua_acc_del(slot), "pjsua_acc_del")
                    try check(pjsua_acc_add(config, 1, &slot), "pjsua_acc_add (local account)")
                } else {
                    try check(pjsua_acc_modify(slot, config), "pjsua_acc_modify")
                }
            }
        }
        pjsua_acc_set_user_data(slot, HandleToken.pointer(token))
        return Account(slot: slot, token: token)
    }

    /// Media of an account's calls: RTP from the configured port, bound to the engine's bind
    /// address and advertised in the SDP with it (pjsua's `rtp_cfg.bound_addr`; without it RTP
    /// binds to every address and the SDP names the host's first interface, so a peer reached on
    /// loopback would send media off loopback).
    static func setMediaBinding(_ config: inout pjsua_acc_config, _ settings: EngineRun.Settings, _ arena: CStringArena) {
        config.rtp_cfg.port = UInt32(settings.rtpPort)
        // pjsua binds RTP at `port + port_range` still (and RTCP one above) before it wraps
        // (pjsua_media.c create_rtp_rtcp_sock): a range two short keeps both inside the count.
        if let count = settings.rtpPortCount {
            config.rtp_cfg.port_range = UInt32(count - 2)
        } else if settings.rtpPort < 65534 {
            // No range given: up to 65535, from a random even offset (pjsua's `randomize_port`
            // draws it once per account from pj_rand, which pjsua seeds with the time and pid).
            config.rtp_cfg.port_range = UInt32(65534 - settings.rtpPort)
            config.rtp_cfg.randomize_port = 1
        }
        setVideoDefaults(&config)
        guard let address = settings.mediaBindAddress else { return }
        config.rtp_cfg.bound_addr = arena.pj(address)
        if address.contains(":") { config.ipv6_media_use = PJSUA_IPV6_ENABLED_USE_IPV6_ONLY }
    }

    /// An account's overrides of the engine's STUN, ICE and TURN, and its keep-alive.
    private static func setNATTraversal(_ config: inout pjsua_acc_config, _ configuration: Account.Configuration, _ arena: CStringArena) {
        switch configuration.ice {
        case .engineDefault: break
        case .off:
            config.ice_cfg_use = PJSUA_ICE_CONFIG_USE_CUSTOM
            config.ice_cfg.enable_ice = 0
        case let .custom(ice):
            config.ice_cfg_use = PJSUA_ICE_CONFIG_USE_CUSTOM
            ice.apply(to: &config.ice_cfg)
        }
        switch configuration.turn {
        case .engineDefault: break
        case .off:
            config.turn_cfg_use = PJSUA_TURN_CONFIG_USE_CUSTOM
            config.turn_cfg.enable_turn = 0
        case let .custom(turn):
            config.turn_cfg_use = PJSUA_TURN_CONFIG_USE_CUSTOM
            turn.apply(to: &config.turn_cfg, arena)
        }
        if !configuration.usesSTUN {
            config.sip_stun_use = PJSUA_STUN_USE_DISABLED
            config.media_stun_use = PJSUA_STUN_USE_DISABLED
        }
        config.ka_interval = UInt32(configuration.keepAliveInterval.wholeSeconds)
    }

    /// Removes an account, unregistering it first when it is registered.
    ///
    /// An account with a ``CredentialProvider`` is unregistered before it is removed, and this
    /// waits for that (at most ``Configuration/unregisterTimeout``), so that the provider can
    /// answer the registrar's challenge to the un-REGISTER: the one `pjsua_acc_del()` sends
    /// goes out after the account is gone, when pjsua asks no one (a stored password still
    /// answers it).
    ///
    /// Drives `pjsua_acc_set_registration()` (provider accounts) and `pjsua_acc_del()`.
    public func removeAccount(_ account: Account) async throws {
        var slot = try resolve(account)
        var run = try currentRun()
        if run.credentials.provider(forAccount: account.token) != nil, Self.isRegistered(slot) {
            let watch = hub.subscribe()
            run.credentials.registrationRestarts(account.token)
            if pjsua_acc_set_registration(slot, 0) == pjSuccess {
                await Self.waitForUnregistration(of: [slot], in: watch, timeout: run.settings.unregisterTimeout)
            }
            // The actor ran other work meanwhile: the account (or the engine) may be gone.
            guard let again = try? resolve(account), let current = self.run else { return }
            (slot, run) = (again, current)
        }
        run.withState { if $0.localAccount == account { $0.localAccount = nil } }
        run.credentials.accountRemoved(account.token)
        try check(pjsua_acc_del(slot), "cannot remove \(account)")
        // The slot's voicemail subscription went with the account: a later account in the same
        // slot starts without it, and unsolicited message summaries are refused again once no
        // account asks for them.
        try recordMessageWaiting(false, slot: slot, in: run)
    }

    /// Registers (`enabled: true`) or unregisters (`false`) an account.
    ///
    /// Drives `pjsua_acc_set_registration()`. The outcome arrives as ``Event/registration(account:state:)``.
    public func setRegistration(_ account: Account, enabled: Bool) throws {
        let slot = try resolve(account)
        try currentRun().credentials.registrationRestarts(account.token)
        try check(pjsua_acc_set_registration(slot, enabled ? 1 : 0),
                  "cannot \(enabled ? "register" : "unregister") \(account)")
    }

    /// Sends a fresh REGISTER, optionally with new push parameters (a new PushKit token).
    ///
    /// Drives `pjsua_acc_modify()` (when `push` is given) and `pjsua_acc_set_registration()`.
    public func reRegister(_ account: Account, updatingPush push: PushParameters? = nil) throws {
        let slot = try resolve(account)
        try currentRun().credentials.registrationRestarts(account.token)
        if let push {
            let parameters = try push.contactParameters()
            guard let pool = pjsua_pool_create("acc-modify", 1024, 1024) else {
                throw PJSUAError(.pjsip, "out of memory creating a pool")
            }
            defer { pj_pool_release(pool) }
            try withCStringArena { arena throws(PJSUAError) in
                var config = pjsua_acc_config()
                // One pointer for both calls: the copied header lists (registrationHeaders) link
                // back to their heads inside the struct, which must not move in between.
                try withUnsafeMutablePointer(to: &config) { (config) throws(PJSUAError) in
                    try check(pjsua_acc_get_config(slot, pool, config), "pjsua_acc_get_config")
                    config.pointee.reg_contact_uri_params = arena.pj(parameters)
                    try check(pjsua_acc_modify(slot, config), "cannot update push parameters of \(account)")
                }
            }
        }
        // pjsua_acc_modify already re-registers when the Contact changed; a REGISTER in flight
        // (PJ_EBUSY, PJSIP_EBUSY) carries the new Contact too, and its outcome arrives as an event.
        let status = pjsua_acc_set_registration(slot, 1)
        guard status == pjSuccess || status == cpjsua_status_ebusy || status == cpjsua_status_sip_ebusy else {
            throw PJSUAError(status: status, operation: "cannot re-register \(account)")
        }
    }
}
