import Foundation

/// A JSON value as a tree, for claims, userinfo and introspection results shown to the user.
/// Object members keep the order they are given in.
public indirect enum JSONValue: Equatable, Hashable, Sendable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([Member])

    public struct Member: Equatable, Hashable, Sendable {
        public var key: String
        public var value: JSONValue
        public init(_ key: String, _ value: JSONValue) { self.key = key; self.value = value }
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { members.first { $0.key == key }?.value } else { nil }
    }
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    public var numberValue: Double? { if case .number(let n) = self { n } else { nil } }

    /// Parses JSON text with Foundation's `JSONDecoder`. Object members are sorted by key
    /// (decoding does not keep order); callers order claims for display themselves.
    public init(jsonData: Data) throws {
        self = try JSONDecoder().decode(JSONValue.self, from: jsonData)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else {
            let d = try c.decode([String: JSONValue].self)
            self = .object(d.keys.sorted().map { Member($0, d[$0]!) })
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .number(let n): try c.encode(n)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let members): try c.encode(Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last }))
        }
    }
}
