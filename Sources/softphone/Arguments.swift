import SwiftPJSUA

/// A usage error: bad flags or values. The CLI prints it on one line and exits with 2.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    /// Whether the command's usage line should follow the message (e.g. a missing argument).
    let showsUsage: Bool
    init(_ description: String, showsUsage: Bool = false) {
        self.description = description
        self.showsUsage = showsUsage
    }
}

/// The options one subcommand accepts.
struct OptionSpec {
    /// Options that take a value, e.g. `--listen udp:127.0.0.1:5060`.
    var valued: Set<String>
    /// Options that are on when present, e.g. `--json`.
    var flags: Set<String>
    /// How many positional arguments are required and allowed.
    var positionals: ClosedRange<Int> = 0...0
    /// What each positional argument is, for the message when one is missing,
    /// e.g. `"<sip-uri> (the destination to call)"`.
    var positionalNames: [String] = []
    /// Options that take a value and may be given more than once, e.g. `--header 'X-A: 1'`.
    var repeatable: Set<String> = []
}

/// Parsed command-line arguments: hand-written, since no outside package can be fetched.
struct Arguments {
    private(set) var values: [String: String] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []
    private(set) var lists: [String: [String]] = [:]

    /// Parses `arguments` (without the program and subcommand names) against `spec`.
    init(_ arguments: [String], spec: OptionSpec) throws(UsageError) {
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("--") || argument == "-" {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if spec.flags.contains(name) {
                guard inlineValue == nil else { throw UsageError("--\(name) takes no value") }
                flags.insert(name)
            } else if spec.repeatable.contains(name) {
                if let inlineValue {
                    lists[name, default: []].append(inlineValue)
                } else {
                    guard index < arguments.count else { throw UsageError("--\(name) needs a value") }
                    lists[name, default: []].append(arguments[index])
                    index += 1
                }
            } else if spec.valued.contains(name) {
                guard values[name] == nil else { throw UsageError("--\(name) given twice") }
                if let inlineValue {
                    values[name] = inlineValue
                } else {
                    guard index < arguments.count else { throw UsageError("--\(name) needs a value") }
                    values[name] = arguments[index]
                    index += 1
                }
            } else {
                throw UsageError("unknown option --\(name)")
            }
        }
        guard spec.positionals.contains(positionals.count) else {
            if positionals.count > spec.positionals.upperBound {
                throw UsageError("unexpected argument '\(positionals[spec.positionals.upperBound])'")
            }
            let missing = spec.positionalNames.dropFirst(positionals.count).prefix(spec.positionals.lowerBound - positionals.count)
            let what = missing.isEmpty ? "\(spec.positionals.lowerBound - positionals.count) argument(s)" : missing.joined(separator: " and ")
            throw UsageError("missing \(what)", showsUsage: true)
        }
    }

    func has(_ flag: String) -> Bool { flags.contains(flag) }

    func string(_ name: String) -> String? { values[name] }

    /// Every value of a repeatable option, in command-line order.
    func strings(_ name: String) -> [String] { lists[name] ?? [] }

    /// An integer option within `range`, or `default` when absent.
    func integer(_ name: String, in range: ClosedRange<Int>, default value: Int? = nil) throws(UsageError) -> Int? {
        guard let text = values[name] else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("--\(name) must be an integer in \(range.lowerBound)...\(range.upperBound), got '\(text)'")
        }
        return number
    }

    /// A number of seconds (fractions allowed) within `range`, or `default` when absent.
    func seconds(_ name: String, in range: ClosedRange<Double>, default value: Double? = nil) throws(UsageError) -> Double? {
        guard let text = values[name] else { return value }
        guard let number = Double(text), number.isFinite, range.contains(number) else {
            throw UsageError("--\(name) must be a number of seconds in \(range.lowerBound)...\(range.upperBound), got '\(text)'")
        }
        return number
    }
}

extension Arguments {
    /// `text`, an argument naming a SIP URI, as a `PJSUA.SIPURI`, checked before any engine
    /// starts: a bad one is a usage error that says which argument it was.
    static func sipURI(_ text: String, for what: String) throws(UsageError) -> PJSUA.SIPURI {
        do {
            return try PJSUA.SIPURI(text)
        } catch {
            throw UsageError("invalid \(what): \(error.message)")
        }
    }
}
