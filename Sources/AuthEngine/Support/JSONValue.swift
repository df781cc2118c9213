@_exported import StrictJSON
import FoundationEssentials
import TextSupport

// JSONValue and the strict parser live in StrictJSON (shared with the credential store and the
// metadata files); re-exported so that every user of the engine sees them.

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

    /// A non-negative integer sent as a JSON number or a numeric string (Entra v1 `expires_in`),
    /// at most 2^31 − 1 (68 years of seconds) in either form.
    func lenientInteger(_ name: String) throws(AuthError) -> Int? {
        guard let value = member(name) else { return nil }
        switch value {
        case .number(let number) where number >= 0 && number <= Double(Int32.max) && number.rounded() == number:
            return Int(number)
        case .string(let text):
            if let number = Int(text.trimmingWhitespace()), number >= 0, number <= Int(Int32.max) { return number }
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
