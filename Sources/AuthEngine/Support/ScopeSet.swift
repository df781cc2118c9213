/// A set of OAuth scopes in the order first seen (RFC 6749 §3.3: space-delimited, case-sensitive
/// strings; order carries no meaning, repeats none). The one place scope strings are split.
public struct ScopeSet: Equatable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The scopes, each once, in the order first seen.
    public private(set) var values: [String]

    /// From scope values, each of which may itself hold several space-delimited scopes
    /// (`--scope 'openid email'`).
    public init(_ values: [String] = []) {
        self.values = []
        for value in values { append(contentsOf: value.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).map(String.init)) }
    }

    /// A `scope` parameter as sent by a server: space-delimited (RFC 6749 §3.3), or
    /// comma-separated as GitHub sends it.
    public init(parsing text: String) {
        self.values = []
        append(contentsOf: text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init))
    }

    private mutating func append(contentsOf scopes: [String]) {
        for scope in scopes where !scope.isEmpty && !values.contains(where: { $0.utf8.elementsEqual(scope.utf8) }) { values.append(scope) }
    }

    /// This set with `other`'s scopes added after its own.
    public func adding(_ other: ScopeSet) -> ScopeSet {
        var copy = self
        copy.append(contentsOf: other.values)
        return copy
    }

    /// Whether `scope` is in the set (compared code unit for code unit).
    public func contains(_ scope: String) -> Bool { values.contains { $0.utf8.elementsEqual(scope.utf8) } }

    public var isEmpty: Bool { values.isEmpty }

    /// The wire form: space-delimited.
    public var description: String { values.joined(separator: " ") }

    public init(from decoder: any Decoder) throws { self.init(try decoder.singleValueContainer().decode([String].self)) }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(values)
    }
}
