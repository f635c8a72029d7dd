import CPJSUASupport

/// Whether the loaded pjproject library is the one the engine was compiled against (issue 19:
/// a binary built with other settings passes structs of the wrong size across every call and
/// corrupts memory instead of failing). See `LibraryCheck.c` for what can and cannot be told.
enum LibraryCheck {
    /// The version and the sizes that need no running pjsua: checked before `pjsua_create`,
    /// once per process (the loaded library cannot change).
    static let beforeCreate: PJSUAError? = mismatch(version: true, structs: [
        ("pjsua_config", CPJSUA_STRUCT_CONFIG),
        ("pjsua_acc_config", CPJSUA_STRUCT_ACC_CONFIG),
        ("pjsua_media_config", CPJSUA_STRUCT_MEDIA_CONFIG),
    ])

    /// The sizes that need the conference bridge: checked right after `pjsua_init`, before the
    /// engine reads any of them.
    static func afterInit() -> PJSUAError? {
        mismatch(version: false, structs: [("pjsua_conf_port_info", CPJSUA_STRUCT_CONF_PORT_INFO)])
    }

    /// ``PJSUAError/Code/incompatibleLibrary`` naming every difference found, or nil.
    static func mismatch(version: Bool, structs: [(name: String, id: cpjsua_struct)]) -> PJSUAError? {
        var differences: [String] = []
        if version {
            let compiled = String(cString: cpjsua_header_version()), loaded = String(cString: cpjsua_library_version())
            if compiled != loaded { differences.append("version \(loaded), headers \(compiled)") }
        }
        for (name, id) in structs {
            let size = cpjsua_struct_size_of(id)
            if size.library != size.header {
                differences.append("\(name) is \(size.library == 0 ? "unmeasurable" : "\(size.library) bytes"), headers \(size.header)")
            }
        }
        guard !differences.isEmpty else { return nil }
        return PJSUAError(.incompatibleLibrary,
                          "the loaded PJSIP library does not match the headers the engine was compiled against: \(differences.joined(separator: "; "))")
    }
}
