import AuthEngine
import FoundationEssentials

// Reading and checking a preset file (format: presets/README.md). Every refusal names the file and
// the field.

extension ProviderPreset {
    static let rootFields: Set<String> = [
        "name", "displayName", "domain", "tenant", "audience", "identity", "revocation", "logout", "note", "provider", "sources",
    ]
    static let parameterFields: Set<String> = ["meaning", "example", "default", "required"]
    /// Set by `makeProvider`, never by a file.
    static let reservedProviderFields: Set<String> = ["id", "clientID", "preset"]

    /// Parses and checks one preset file; `file` names it in errors (`built-in:auth0` or a path).
    /// The `provider` object is decoded once with example values, so a field of the wrong type is
    /// refused here and not at `provider add`.
    /// - Throws: ``PresetError`` naming the first bad field.
    public static func parse(_ data: Data, file: String) throws(PresetError) -> ProviderPreset {
        func fail(_ field: String, _ problem: String) -> PresetError { PresetError(file: file, field: field, problem: problem) }
        let root: [String: JSONValue]
        switch parseJSON(data) {
        case .success(.object(let object)): root = object
        case .success: throw fail("", "must be a JSON object")
        // RFC 8259 §4: a name twice in one object is ambiguous (refused, never one kept silently).
        case .failure(let error):
            if case .duplicateMember(let name) = error.kind { throw fail(name, "appears twice in one object; keep one") }
            throw fail("", "not valid JSON")
        }
        if let unknown = root.keys.sorted().first(where: { !rootFields.contains($0) }) {
            throw fail(unknown, "unknown field (known: \(rootFields.sorted().joined(separator: ", ")))")
        }
        func string(_ key: String, in object: [String: JSONValue], path: String, required: Bool) throws(PresetError) -> String? {
            guard let value = object[key] else {
                if required { throw fail(path, "missing field") }
                return nil
            }
            guard case .string(let s) = value, !s.isEmpty else { throw fail(path, "must be a non-empty string") }
            return s
        }
        func choice<E: RawRepresentable & CaseIterable>(_ key: String, _: E.Type) throws(PresetError) -> E where E.RawValue == String {
            let text = try string(key, in: root, path: key, required: true)!
            guard let value = E(rawValue: text) else {
                throw fail(key, "'\(text)' is not one of \(E.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return value
        }
        func parameter(_ key: String) throws(PresetError) -> Parameter? {
            guard let value = root[key] else { return nil }
            guard case .object(let object) = value else { throw fail(key, "must be an object") }
            if let unknown = object.keys.sorted().first(where: { !parameterFields.contains($0) }) {
                throw fail("\(key).\(unknown)", "unknown field (known: \(parameterFields.sorted().joined(separator: ", ")))")
            }
            let meaning = try string("meaning", in: object, path: "\(key).meaning", required: true)!
            let example = try string("example", in: object, path: "\(key).example", required: false)
            let defaultValue = try string("default", in: object, path: "\(key).default", required: false)
            var required = false
            if let r = object["required"] {
                guard case .bool(let flag) = r else {
                    throw fail("\(key).required", "must be true or false")
                }
                required = flag
            }
            if required && defaultValue != nil { throw fail("\(key).required", "a parameter with a default is not required") }
            return Parameter(meaning: meaning, example: example, defaultValue: defaultValue, required: required)
        }

        let name = try string("name", in: root, path: "name", required: true)!
        if name.contains(where: { !($0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-")) }) {
            throw fail("name", "'\(name)' must be lower-case letters, digits and '-'")
        }
        let displayName = try string("displayName", in: root, path: "displayName", required: true)!
        let domain = try parameter("domain")
        let tenant = try parameter("tenant")
        let audience = try parameter("audience")
        let identity = try choice("identity", IdentitySource.self)
        let revocation = try choice("revocation", RevocationStyle.self)
        let logout = try choice("logout", LogoutStyle.self)
        let note = try string("note", in: root, path: "note", required: false)

        guard let providerValue = root["provider"] else { throw fail("provider", "missing field") }
        guard case .object(let provider) = providerValue else { throw fail("provider", "must be an object") }
        try checkProviderFields(provider, file: file)
        for (placeholder, declared) in [("{domain}", domain), ("{tenant}", tenant)] where declared == nil {
            if JSONTree.containsString(providerValue, placeholder) {
                throw fail("provider", "uses \(placeholder) but the preset declares no \(placeholder.dropFirst().dropLast())")
            }
        }

        guard let sourcesValue = root["sources"] else { throw fail("sources", "missing field (the documentation URL of each fact)") }
        guard case .object(let sourceObject) = sourcesValue, !sourceObject.isEmpty else {
            throw fail("sources", "must be a non-empty object of field path → documentation URL")
        }
        var sources: [String: String] = [:]
        for key in sourceObject.keys.sorted() {
            guard let url = sourceObject[key]?.stringValue, url.hasPrefix("https://"), URL(string: url) != nil else {
                throw fail("sources.\(key)", "must be an https documentation URL")
            }
            guard fieldExists(key, in: root) else { throw fail("sources.\(key)", "names no field of this file") }
            sources[key] = url
        }

        let preset = ProviderPreset(name: name, displayName: displayName, domain: domain, tenant: tenant, audience: audience, identity: identity,
                                    revocation: revocation, logout: logout, note: note, sources: sources, template: providerValue)
        // One trial build with the examples, so a field of the wrong type is refused now.
        let filled = JSONTree.mapStrings(providerValue) { text in
            text.replacing("{domain}", with: domain?.example ?? domain?.defaultValue ?? "example.com")
                .replacing("{tenant}", with: tenant?.example ?? tenant?.defaultValue ?? "example")
        }
        _ = try decodeProvider(filled, id: ProviderID(name), clientID: "client", file: file)
        return preset
    }

    /// Member names of `provider` must be `ProviderConfig` fields (nested structs too: `endpoints`).
    /// The names come from the type itself (`Mirror`), so a new field needs no change here.
    static func checkProviderFields(_ provider: [String: JSONValue], file: String) throws(PresetError) {
        let sample = ProviderConfig(id: ProviderID("sample"), issuer: nil, clientID: "sample")
        func check(_ object: [String: JSONValue], against value: Any, path: String) throws(PresetError) {
            let children = Mirror(reflecting: value).children
            let known = Dictionary(children.compactMap { child in child.label.map { ($0, child.value) } }, uniquingKeysWith: { a, _ in a })
            for key in object.keys.sorted() {
                let field = "\(path).\(key)"
                if path == "provider" && reservedProviderFields.contains(key) {
                    throw PresetError(file: file, field: field, problem: "is set by 'provider add', not by a preset")
                }
                guard let child = known[key] else {
                    let names = known.keys.filter { path != "provider" || !reservedProviderFields.contains($0) }.sorted()
                    throw PresetError(file: file, field: field, problem: "unknown field (known: \(names.joined(separator: ", ")))")
                }
                if case .object(let nested)? = object[key], Mirror(reflecting: child).displayStyle == .struct {
                    try check(nested, against: child, path: field)
                }
            }
        }
        try check(provider, against: sample, path: "provider")
    }

    /// Whether a dotted path (`provider.endpoints.token`) names a member present in `root`.
    static func fieldExists(_ path: String, in root: [String: JSONValue]) -> Bool {
        var current = JSONValue.object(root)
        for part in path.split(separator: ".", omittingEmptySubsequences: false) {
            guard case .object(let object) = current, let next = object[String(part)] else { return false }
            current = next
        }
        return true
    }
}
