import AuthEngine
import FoundationEssentials

/// A provider preset: the documented endpoints and quirks of one identity provider, as data.
/// File format: `presets/README.md`; built-ins are `presets/*.json` (embedded in
/// ``BuiltInPresets``), overridden or extended by `$XDG_CONFIG_HOME/authdeck/presets/*.json`.
///
/// `provider` holds ``ProviderConfig`` fields by their Swift names (any field, so a field added to
/// `ProviderConfig` is a preset field with no change here); its strings may use the placeholders
/// `{domain}` and `{tenant}`.
public struct ProviderPreset: Sendable, Equatable {
    /// What `--domain` or `--tenant` means for this preset.
    public struct Parameter: Sendable, Equatable {
        /// e.g. "the tenant domain".
        public var meaning: String
        public var example: String?
        /// Used when the option is not given.
        public var defaultValue: String?
        /// Whether `provider add` refuses to run without the option (never with a default).
        public var required: Bool
    }

    /// Where the identity comes from.
    public enum IdentitySource: String, Sendable, CaseIterable {
        /// The ID token (OIDC Core §2), with userinfo for extra claims.
        case idToken
        /// The userinfo endpoint (OIDC Core §5.3) only.
        case userinfo
        /// A provider API call (the `userinfo` endpoint override names it; GitHub `GET /user`).
        case api
    }

    public var name: String
    public var displayName: String
    public var domain: Parameter?
    public var tenant: Parameter?
    /// What the API audience (`ProviderConfig.audience`, Auth0's `audience` parameter) means for
    /// this preset, when the preset asks for one (the TUI's form shows the field only then; the
    /// CLI's `--audience` works for any provider).
    public var audience: Parameter?
    public var identity: IdentitySource
    public var revocation: RevocationStyle
    public var logout: LogoutStyle
    /// Printed after `provider add` (``note(for:)``).
    public var note: String?

    /// The note for `provider` as added: its `; `-separated parts less one that says to add an
    /// option the provider has already (`add --audience` with an audience, `add --resource` with
    /// a resource), the preset's name ("Auth0: ") kept in front; nil when nothing is left.
    public func note(for provider: ProviderConfig) -> String? {
        guard let note else { return nil }
        let given = [("add --audience", provider.audience != nil), ("add --resource", !provider.resources.isEmpty)]
        let name = note.firstRange(of: ": ").map { String(note[..<$0.upperBound]) } ?? ""
        let parts = note.dropFirst(name.count).components(separatedBy: "; ").filter { part in !given.contains { $0.1 && part.contains($0.0) } }
        return parts.isEmpty ? nil : name + parts.joined(separator: "; ")
    }
    /// Documentation URL per fact: keys are field paths of the file (`provider.issuer`, `logout`).
    public var sources: [String: String]
    /// The `provider` object of the file (ProviderConfig fields; strings are templates).
    var template: JSONValue
}

/// A parsed JSON value: strings mapped, containers walked, the rest kept.
enum JSONTree {
    /// `value` with `transform` applied to every string inside.
    static func mapStrings(_ value: JSONValue, _ transform: (String) -> String) -> JSONValue {
        switch value {
        case .string(let s): .string(transform(s))
        case .array(let a): .array(a.map { mapStrings($0, transform) })
        case .object(let d): .object(d.mapValues { mapStrings($0, transform) })
        default: value
        }
    }

    /// Whether any string inside `value` contains `needle`.
    static func containsString(_ value: JSONValue, _ needle: String) -> Bool {
        switch value {
        case .string(let s): s.contains(needle)
        case .array(let a): a.contains { containsString($0, needle) }
        case .object(let d): d.values.contains { containsString($0, needle) }
        default: false
        }
    }
}

/// A value a preset asks for when a provider is added (`--domain`, `--tenant`, `--audience` on the
/// command line; the Domain, Tenant and Audience fields of the TUI's form).
public enum PresetParameterName: String, Sendable, Equatable, CaseIterable {
    case domain, tenant, audience
}

/// What is wrong with a value given for a preset parameter (the facts; each front end words it
/// with its own names for the parameter).
public enum PresetParameterProblem: Sendable, Equatable {
    /// Required and not given.
    case missing(meaning: String, example: String?)
    /// Given to a preset that does not use it.
    case notUsed(preset: String)
    /// `http://…` where an https host goes.
    case plainHTTP(value: String)
    /// Not a host name (and port).
    case notAHost(value: String)
    /// Not one path segment.
    case notASegment(value: String)
}

/// Why a preset cannot be used: a bad file (named with the field) or bad `--domain`/`--tenant`.
public struct PresetError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file (`built-in:auth0`, or the user file's path); empty for an option error.
    public var file: String
    /// The field path (`provider.endpoints.token`), or the option (`--domain`).
    public var field: String
    /// The problem in the command line's words (`--preset auth0 needs --domain: …`).
    public var problem: String
    /// For a bad parameter value: which parameter, and what is wrong with it.
    public var parameter: (name: PresetParameterName, problem: PresetParameterProblem)? {
        get { parameterName.flatMap { name in parameterProblem.map { (name, $0) } } }
        set { parameterName = newValue?.name; parameterProblem = newValue?.problem }
    }
    private var parameterName: PresetParameterName?
    private var parameterProblem: PresetParameterProblem?

    public init(file: String, field: String, problem: String) {
        self.file = file
        self.field = field
        self.problem = problem
    }

    init(_ name: PresetParameterName, _ problem: PresetParameterProblem) {
        let option = "--" + name.rawValue
        let text = switch problem {
        case .missing(let meaning, let example): "needs \(option): \(meaning)\(example.map { " (e.g. \(option) \($0))" } ?? "")"
        case .notUsed(let preset): "the preset \(preset) does not use \(option)"
        case .plainHTTP(let value): "\(option) '\(value)' must be an https host; plain http is refused"
        case .notAHost(let value): "\(option) '\(value)' must be a host name (and port), e.g. example.com"
        case .notASegment(let value): "\(option) '\(value)' must be one path segment (no '/', '?', '#', '%', '\\', braces or spaces)"
        }
        self.init(file: "", field: option, problem: text)
        parameter = (name, problem)
    }

    public var description: String {
        if file.isEmpty { return "\(field): \(problem)" }
        return field.isEmpty ? "\(file): \(problem)" : "\(file): \(field): \(problem)"
    }
}

extension ProviderPreset {
    /// The provider this preset describes, for `id` and `clientID`, with `--domain` / `--tenant`
    /// (nil: not given) put into the template. The domain is a host (an `https://` prefix and
    /// trailing slashes are dropped; `http://` is refused); the tenant is one path segment.
    /// - Throws: ``PresetError`` (field `--domain` / `--tenant`, or a template field that does not
    ///   decode as the `ProviderConfig` field).
    public func makeProvider(id: ProviderID, clientID: String, domain: String?, tenant: String?,
                             audience: String? = nil) throws(PresetError) -> ProviderConfig {
        let domainValue = try Self.resolve(domain, self.domain, .domain, preset: name, normalize: Self.host)
        let tenantValue = try Self.resolve(tenant, self.tenant, .tenant, preset: name, normalize: Self.segment)
        let audienceValue = try Self.resolve(audience, self.audience, .audience, preset: name) { value, _ throws(PresetError) in value }
        let filled = JSONTree.mapStrings(template) { text in
            var text = text
            if let domainValue { text = text.replacing("{domain}", with: domainValue) }
            if let tenantValue { text = text.replacing("{tenant}", with: tenantValue) }
            return text
        }
        var config = try Self.decodeProvider(filled, id: id, clientID: clientID, file: "preset \(name)")
        config.preset = name
        if let audienceValue { config.audience = audienceValue }
        config.revocationStyle = revocation
        config.logoutStyle = logout
        return config
    }

    private static func resolve(_ given: String?, _ parameter: Parameter?, _ name: PresetParameterName, preset: String,
                                normalize: (String, PresetParameterName) throws(PresetError) -> String) throws(PresetError) -> String? {
        guard let parameter else {
            // The audience is a provider setting of its own (`--audience`), laid over any preset.
            if given != nil, name != .audience { throw PresetError(name, .notUsed(preset: preset)) }
            return nil
        }
        if let given, !given.isEmpty { return try normalize(given, name) }
        if let value = parameter.defaultValue { return value }
        if parameter.required {
            var error = PresetError(name, .missing(meaning: parameter.meaning, example: parameter.example))
            error.problem = "--preset \(preset) " + error.problem
            throw error
        }
        return nil
    }

    static func host(_ value: String, _ name: PresetParameterName) throws(PresetError) -> String {
        var host = value
        if host.hasPrefix("http://") { throw PresetError(name, .plainHTTP(value: value)) }
        if host.hasPrefix("https://") { host.removeFirst("https://".count) }
        while host.hasSuffix("/") { host.removeLast() }
        if host.isEmpty || host.contains(where: { "/?#@%\\{}".contains($0) || $0.isWhitespace || Self.isControl($0) }) {
            throw PresetError(name, .notAHost(value: value))
        }
        return host
    }

    static func segment(_ value: String, _ name: PresetParameterName) throws(PresetError) -> String {
        if value.contains(where: { "/?#%\\{}".contains($0) || $0.isWhitespace || Self.isControl($0) }) {
            throw PresetError(name, .notASegment(value: value))
        }
        return value
    }

    /// A C0/C1 control character or DEL (never part of a host or a path segment).
    private static func isControl(_ character: Character) -> Bool {
        character.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// `fields` laid over the default `ProviderConfig(id:issuer:clientID:)`'s JSON (objects merged
    /// member by member), read with ``ProviderConfig/init(json:path:)``: any `ProviderConfig`
    /// field works, by its member name.
    static func decodeProvider(_ fields: JSONValue, id: ProviderID, clientID: String, file: String) throws(PresetError) -> ProviderConfig {
        guard case .object(var merged) = ProviderConfig(id: id, issuer: nil, clientID: clientID).json, case .object(let overlay) = fields else {
            throw PresetError(file: file, field: "provider", problem: "must be an object")
        }
        for (key, value) in overlay {
            if case .object(let inner) = value, case .object(var existing)? = merged[key] {
                for (k, v) in inner { existing[k] = v }
                merged[key] = .object(existing)
            } else {
                merged[key] = value
            }
        }
        do {
            return try ProviderConfig(json: .object(merged))
        } catch {
            let field = JSONShapeError.text(error.path)
            throw PresetError(file: file, field: field.isEmpty ? "provider" : "provider.\(field)", problem: Self.problem(expected: error.expected))
        }
    }

    /// "wrong type (expected an array)", "invalid value (expected one of none, …)".
    private static func problem(expected: String) -> String {
        if expected.hasPrefix("one of") || expected == "a URL" { return "invalid value (expected \(expected))" }
        // JSON's word for a list, as the messages said before.
        return "wrong type (expected \(expected == "a list" ? "an array" : expected))"
    }
}
