import Foundation

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
    public var identity: IdentitySource
    public var revocation: RevocationStyle
    public var logout: LogoutStyle
    /// Printed after `provider add`.
    public var note: String?
    /// Documentation URL per fact: keys are field paths of the file (`provider.issuer`, `logout`).
    public var sources: [String: String]
    /// The `provider` object of the file as JSON (ProviderConfig fields; strings are templates).
    var template: Data
}

/// A parsed JSON value (`JSONSerialization`): strings mapped, containers walked, the rest kept.
enum JSONTree {
    /// `value` with `transform` applied to every string inside.
    static func mapStrings(_ value: Any, _ transform: (String) -> String) -> Any {
        switch value {
        case let s as String: transform(s)
        case let a as [Any]: a.map { mapStrings($0, transform) }
        case let d as [String: Any]: d.mapValues { mapStrings($0, transform) }
        default: value
        }
    }

    /// Whether any string inside `value` contains `needle`.
    static func containsString(_ value: Any, _ needle: String) -> Bool {
        switch value {
        case let s as String: s.contains(needle)
        case let a as [Any]: a.contains { containsString($0, needle) }
        case let d as [String: Any]: d.values.contains { containsString($0, needle) }
        default: false
        }
    }
}

/// Why a preset cannot be used: a bad file (named with the field) or bad `--domain`/`--tenant`.
public struct PresetError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file (`built-in:auth0`, or the user file's path); empty for an option error.
    public var file: String
    /// The field path (`provider.endpoints.token`), or the option (`--domain`).
    public var field: String
    public var problem: String

    public init(file: String, field: String, problem: String) {
        self.file = file
        self.field = field
        self.problem = problem
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
    public func makeProvider(id: ProviderID, clientID: String, domain: String?, tenant: String?) throws(PresetError) -> ProviderConfig {
        let domainValue = try Self.resolve(domain, self.domain, option: "--domain", preset: name, normalize: Self.host)
        let tenantValue = try Self.resolve(tenant, self.tenant, option: "--tenant", preset: name, normalize: Self.segment)
        let object = (try? JSONSerialization.jsonObject(with: template)) ?? [String: Any]()
        let filled = JSONTree.mapStrings(object) { text in
            var text = text
            if let domainValue { text = text.replacing("{domain}", with: domainValue) }
            if let tenantValue { text = text.replacing("{tenant}", with: tenantValue) }
            return text
        }
        var config = try Self.decodeProvider(filled, id: id, clientID: clientID, file: "preset \(name)")
        config.preset = name
        config.revocationStyle = revocation
        config.logoutStyle = logout
        return config
    }

    private static func resolve(_ given: String?, _ parameter: Parameter?, option: String, preset: String,
                                normalize: (String, String) throws(PresetError) -> String) throws(PresetError) -> String? {
        guard let parameter else {
            if given != nil { throw PresetError(file: "", field: option, problem: "the preset \(preset) does not use \(option)") }
            return nil
        }
        if let given, !given.isEmpty { return try normalize(given, option) }
        if let value = parameter.defaultValue { return value }
        if parameter.required {
            let example = parameter.example.map { " (e.g. \(option) \($0))" } ?? ""
            throw PresetError(file: "", field: option, problem: "--preset \(preset) needs \(option): \(parameter.meaning)\(example)")
        }
        return nil
    }

    static func host(_ value: String, _ option: String) throws(PresetError) -> String {
        var host = value
        if host.hasPrefix("http://") {
            throw PresetError(file: "", field: option, problem: "\(option) '\(value)' must be an https host; plain http is refused")
        }
        if host.hasPrefix("https://") { host.removeFirst("https://".count) }
        while host.hasSuffix("/") { host.removeLast() }
        if host.isEmpty || host.contains(where: { "/?#@%\\{}".contains($0) || $0.isWhitespace || Self.isControl($0) }) {
            throw PresetError(file: "", field: option, problem: "\(option) '\(value)' must be a host name (and port), e.g. example.com")
        }
        return host
    }

    static func segment(_ value: String, _ option: String) throws(PresetError) -> String {
        if value.contains(where: { "/?#%\\{}".contains($0) || $0.isWhitespace || Self.isControl($0) }) {
            throw PresetError(file: "", field: option, problem: "\(option) '\(value)' must be one path segment (no '/', '?', '#', '%', '\\', braces or spaces)")
        }
        return value
    }

    /// A C0/C1 control character or DEL (never part of a host or a path segment).
    private static func isControl(_ character: Character) -> Bool {
        character.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// `fields` laid over the default `ProviderConfig(id:issuer:clientID:)` (objects merged member by
    /// member), decoded with `JSONDecoder`: any `ProviderConfig` field works, by its coding key.
    static func decodeProvider(_ fields: Any, id: ProviderID, clientID: String, file: String) throws(PresetError) -> ProviderConfig {
        let base = ProviderConfig(id: id, issuer: nil, clientID: clientID)
        do {
            guard var merged = try JSONSerialization.jsonObject(with: JSONEncoder().encode(base)) as? [String: Any],
                  let overlay = fields as? [String: Any] else {
                throw PresetError(file: file, field: "provider", problem: "must be an object")
            }
            for (key, value) in overlay {
                if let inner = value as? [String: Any], var existing = merged[key] as? [String: Any] {
                    for (k, v) in inner { existing[k] = v }
                    merged[key] = existing
                } else {
                    merged[key] = value
                }
            }
            let data = try JSONSerialization.data(withJSONObject: merged)
            return try JSONDecoder().decode(ProviderConfig.self, from: data)
        } catch let error as PresetError {
            throw error
        } catch let error as DecodingError {
            throw PresetError(file: file, field: "provider" + Self.path(of: error), problem: Self.problem(of: error))
        } catch {
            throw PresetError(file: file, field: "provider", problem: "cannot be read as a provider configuration")
        }
    }

    private static func path(of error: DecodingError) -> String {
        let (codingPath, key): ([any CodingKey], (any CodingKey)?) = switch error {
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .dataCorrupted(let c): (c.codingPath, nil)
        case .keyNotFound(let k, let c): (c.codingPath, k)
        @unknown default: ([], nil)
        }
        return (codingPath + (key.map { [$0] } ?? [])).map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }

    private static func problem(of error: DecodingError) -> String {
        switch error {
        case .typeMismatch(let type, _): "wrong type (expected \(Self.typeName(type)))"
        case .valueNotFound(let type, _): "missing value (expected \(Self.typeName(type)))"
        case .keyNotFound: "missing field"
        case .dataCorrupted(let c): c.debugDescription.isEmpty ? "invalid value" : "invalid value (\(c.debugDescription))"
        @unknown default: "invalid value"
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is [String].Type, is [Any].Type: "an array"
        case is [String: Any].Type, is [String: String].Type: "an object"
        default: "\(type)"
        }
    }
}
