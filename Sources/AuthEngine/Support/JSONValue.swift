import CJansson
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

/// Why a protocol document is not a usable JSON object.
public enum JSONObjectFailure: Error, Equatable {
    /// Not JSON (RFC 8259), not UTF-8, trailing bytes, nested too deeply, or not an object.
    case malformed
    /// A member name appears twice in one object (at any depth).
    case duplicateMember(String)
}

/// Parses `data` as one JSON object (RFC 8259) for the engine, strictly.
///
/// Duplicate member names are **rejected**, in every document the engine reads from a
/// provider: JOSE headers and JWT claims (RFC 7515 §4 and RFC 7519 §4 allow only rejecting or
/// taking the lexically last; a header `{"alg":"RS256","alg":"none"}` or two `sub` claims are
/// ambiguous, and another party may have read the other value), and — deliberately, as
/// hardening (RFC 8259 §4: behaviour is unpredictable; catalogue PARSE-09) — token, device,
/// introspection and error responses, discovery metadata, JWK Sets and UserInfo. No real
/// provider needs duplicates, and a silent choice would hide an attack or a broken proxy.
/// Foundation cannot be used for this: `JSONDecoder` keeps the first value and
/// `JSONSerialization` the last, both silently; so the parse is done by jansson with
/// `JSON_REJECT_DUPLICATES`, which compares names byte for byte.
///
/// Names that differ in bytes but are canonically equivalent Unicode (`"caf\u{E9}"`,
/// `"cafe\u{301}"`) are one key of a Swift `[String: JSONValue]`; they are rejected as a
/// duplicate too, rather than merged.
///
/// Also refused as ``JSONObjectFailure/malformed``: invalid UTF-8, `\u0000` in a string, bytes
/// after the value, nesting deeper than ``maximumJSONDepth``, numbers out of `Double` range
/// (`1e400`), and a top-level value that is not an object.
public func parseJSONObject(_ data: Data) -> Result<[String: JSONValue], JSONObjectFailure> {
    var error = json_error_t()
    let root: OpaquePointer? = data.withUnsafeBytes { bytes in
        guard let base = bytes.baseAddress, bytes.count > 0 else { return nil }
        return OpaquePointer(json_loadb(base.assumingMemoryBound(to: CChar.self), bytes.count, authdeck_json_decode_flags(), &error))
    }
    guard let root else {
        if authdeck_json_error_code(&error) == json_error_duplicate_key {
            let text = withUnsafeBytes(of: error.text) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            return .failure(.duplicateMember(duplicateName(inJanssonMessage: text)))
        }
        return .failure(.malformed)
    }
    defer { authdeck_json_decref(UnsafeMutablePointer(root)) }
    let value: JSONValue
    do {
        value = try jsonValue(UnsafeMutablePointer(root), depth: 0)
    } catch {
        return .failure(error)
    }
    guard case .object(let object) = value else { return .failure(.malformed) }
    return .success(object)
}

/// Deepest nesting accepted (protocol documents nest a few levels: `address`, `keys[]`, `cnf`).
let maximumJSONDepth = 64

/// jansson reports `duplicate object key near '"alg"'`: the quoted name, or "" when unreadable.
private func duplicateName(inJanssonMessage text: String) -> String {
    guard let start = text.firstIndex(of: "'"), let end = text.lastIndex(of: "'"), start < end else { return "" }
    var name = String(text[text.index(after: start)..<end])
    if name.hasPrefix("\""), name.hasSuffix("\""), name.count >= 2 { name = String(name.dropFirst().dropLast()) }
    return name
}

private func jsonValue(_ json: UnsafeMutablePointer<json_t>, depth: Int) throws(JSONObjectFailure) -> JSONValue {
    guard depth < maximumJSONDepth else { throw .malformed }
    switch authdeck_json_typeof(json) {
    case JSON_OBJECT:
        var object: [String: JSONValue] = [:]
        var iterator = json_object_iter(json)
        while let current = iterator {
            guard let key = json_object_iter_key(current), let member = json_object_iter_value(current) else { throw .malformed }
            let length = json_object_iter_key_len(current)
            let name = String(decoding: UnsafeRawBufferPointer(start: key, count: length), as: UTF8.self)
            // jansson already refused byte-equal duplicates; a collision here is a canonically
            // equivalent spelling of a name already present.
            guard object.updateValue(try jsonValue(member, depth: depth + 1), forKey: name) == nil else { throw .duplicateMember(name) }
            iterator = json_object_iter_next(json, current)
        }
        return .object(object)
    case JSON_ARRAY:
        var array: [JSONValue] = []
        let count = json_array_size(json)
        array.reserveCapacity(count)
        for index in 0..<count {
            guard let element = json_array_get(json, index) else { throw .malformed }
            array.append(try jsonValue(element, depth: depth + 1))
        }
        return .array(array)
    case JSON_STRING:
        guard let text = json_string_value(json) else { throw .malformed }
        return .string(String(decoding: UnsafeRawBufferPointer(start: text, count: json_string_length(json)), as: UTF8.self))
    case JSON_INTEGER:
        return .number(Double(json_integer_value(json)))
    case JSON_REAL:
        let number = json_real_value(json)
        guard number.isFinite else { throw .malformed }
        return .number(number)
    case JSON_TRUE:
        return .bool(true)
    case JSON_FALSE:
        return .bool(false)
    case JSON_NULL:
        return .null
    default:
        throw .malformed
    }
}

/// ``parseJSONObject(_:)`` for a response body: `.protocolViolation(.duplicateMember(name:context:))`
/// or `.protocolViolation(.malformedJSON(context:))`.
func readJSONObject(_ data: Data, context: String) throws(AuthError) -> [String: JSONValue] {
    switch parseJSONObject(data) {
    case .success(let object): return object
    case .failure(.duplicateMember(let name)): throw .protocolViolation(.duplicateMember(name: name, context: context))
    case .failure(.malformed): throw .protocolViolation(.malformedJSON(context: context))
    }
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
