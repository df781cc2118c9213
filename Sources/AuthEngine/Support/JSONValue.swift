import Foundation

/// A JSON value tree (RFC 8259), for claims and members kept for display. Numbers are `Double`.
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    public var stringValue: String? { if case .string(let v) = self { v } else { nil } }
    public var numberValue: Double? { if case .number(let v) = self { v } else { nil } }
    public var boolValue: Bool? { if case .bool(let v) = self { v } else { nil } }
    public var arrayValue: [JSONValue]? { if case .array(let v) = self { v } else { nil } }
    public var objectValue: [String: JSONValue]? { if case .object(let v) = self { v } else { nil } }
    public var isNull: Bool { self == .null }
}

/// Parses `data` as a JSON object; nil when it is not JSON or not an object.
func decodeJSONObject(_ data: Data) -> [String: JSONValue]? {
    guard let value = try? JSONDecoder().decode(JSONValue.self, from: data) else { return nil }
    return value.objectValue
}

extension Dictionary where Key == String, Value == JSONValue {
    /// The member, treating JSON `null` as absent (RFC 6749 TOK-10 leniency).
    func member(_ name: String) -> JSONValue? {
        guard let value = self[name], value != .null else { return nil }
        return value
    }

    func optionalString(_ name: String) throws(AuthError) -> String? {
        guard let value = member(name) else { return nil }
        guard let string = value.stringValue else { throw .protocolViolation(.invalidField(name: name, expected: "a string")) }
        return string
    }

    func requiredString(_ name: String) throws(AuthError) -> String {
        guard let value = try optionalString(name), !value.isEmpty else { throw .protocolViolation(.missingField(name)) }
        return value
    }

    /// A non-negative integer sent as a JSON number or a numeric string (Entra v1 `expires_in`).
    func lenientInteger(_ name: String) throws(AuthError) -> Int? {
        guard let value = member(name) else { return nil }
        switch value {
        case .number(let number) where number >= 0 && number <= Double(Int32.max) && number.rounded() == number:
            return Int(number)
        case .string(let text):
            if let number = Int(text.trimmingCharacters(in: .whitespaces)), number >= 0 { return number }
        default: break
        }
        throw .protocolViolation(.invalidField(name: name, expected: "a non-negative integer number of seconds"))
    }

    /// A boolean (strings "true"/"false" are refused: RFC 7662 §2.2, OIDC Core §5.1).
    func optionalBool(_ name: String) throws(AuthError) -> Bool? {
        guard let value = member(name) else { return nil }
        guard let bool = value.boolValue else { throw .protocolViolation(.invalidField(name: name, expected: "a boolean")) }
        return bool
    }

    func optionalStringArray(_ name: String) throws(AuthError) -> [String]? {
        guard let value = member(name) else { return nil }
        guard let array = value.arrayValue else { throw .protocolViolation(.invalidField(name: name, expected: "an array of strings")) }
        var strings: [String] = []
        for element in array {
            guard let string = element.stringValue else { throw .protocolViolation(.invalidField(name: name, expected: "an array of strings")) }
            strings.append(string)
        }
        return strings
    }
}
