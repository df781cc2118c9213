import CJansson
import FoundationEssentials

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
    switch parseJSON(data) {
    case .success(.object(let object)): return .success(object)
    case .success: return .failure(.malformed)
    case .failure(let error):
        if case .duplicateMember(let name) = error.kind { return .failure(.duplicateMember(name)) }
        return .failure(.malformed)
    }
}

/// Where and why ``parseJSON(_:)`` refused a document. Never carries the document's text (a
/// damaged secrets file must not leak into a message), except a duplicated member *name*.
public struct JSONSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Error, Equatable, Sendable {
        /// No bytes, or only white space.
        case empty
        /// The text ends inside a value (a write cut short).
        case prematureEnd
        /// One complete value, then more bytes (`cat a a`, or garbage after the value).
        case trailingData
        /// A member name appears twice in one object (byte-equal, or canonically equivalent).
        case duplicateMember(String)
        /// Anything else: bad syntax, invalid UTF-8, `\u0000`, nesting deeper than 64, a
        /// number out of `Double` range, or a top level that is neither object nor array.
        case invalid
    }

    public var kind: Kind
    /// 1-based line and column, and 0-based byte offset, where the parser stopped (jansson's
    /// `json_error_t`; 0 when unknown).
    public var line: Int
    public var column: Int
    public var position: Int

    public init(kind: Kind, line: Int = 0, column: Int = 0, position: Int = 0) {
        self.kind = kind
        self.line = line
        self.column = column
        self.position = position
    }

    /// "line 3, column 7" (or "byte 12" when the line is unknown).
    public var location: String { line > 0 ? "line \(line), column \(column)" : "byte \(position)" }

    public var description: String {
        switch kind {
        case .empty: "empty"
        case .prematureEnd: "ends inside a value (\(location))"
        case .trailingData: "more text after the JSON value (\(location))"
        case .duplicateMember(let name): "member \"\(name)\" appears twice (\(location))"
        case .invalid: "not valid JSON at \(location)"
        }
    }
}

/// Parses `data` as one JSON text (RFC 8259) whose top level is an object or an array,
/// strictly, with the rules of ``parseJSONObject(_:)`` (duplicate names rejected, valid UTF-8,
/// no `\u0000`, nothing after the value, at most `maximumDepth` levels: ``maximumJSONDepth`` for a
/// document from outside, ``maximumStoredJSONDepth`` for authdeck's own files).
/// - Returns: the value, or where and why it was refused.
public func parseJSON(_ data: Data, maximumDepth: Int = maximumJSONDepth) -> Result<JSONValue, JSONSyntaxError> {
    do throws(JSONSyntaxError) { return .success(try parseJSONValue(data, maximumDepth: maximumDepth)) } catch { return .failure(error) }
}

/// ``parseJSON(_:)`` as a throwing function, for the token path: no `Result<JSONValue,
/// JSONSyntaxError>` in the caller, whose metadata (a generic type with an `Error` requirement)
/// the Swift runtime instantiates with a conformance lookup the first time (PERFORMANCE.md).
/// - Throws: ``JSONSyntaxError`` where and why the document was refused.
public func parseJSONValue(_ data: Data, maximumDepth: Int = maximumJSONDepth) throws(JSONSyntaxError) -> JSONValue {
    // RFC 8259 §8.1: a parser may ignore a leading byte order mark (an editor may add one to a
    // file the user edited by hand); it is never written.
    if data.starts(with: [0xEF, 0xBB, 0xBF]) { return try parseJSONValue(data.dropFirst(3), maximumDepth: maximumDepth) }
    if data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { throw JSONSyntaxError(kind: .empty) }
    var error = json_error_t()
    let root: OpaquePointer? = data.withUnsafeBytes { bytes in
        guard let base = bytes.baseAddress, bytes.count > 0 else { return nil }
        return OpaquePointer(json_loadb(base.assumingMemoryBound(to: CChar.self), bytes.count, authdeck_json_decode_flags(), &error))
    }
    guard let root else {
        let kind: JSONSyntaxError.Kind
        switch authdeck_json_error_code(&error) {
        case json_error_duplicate_key:
            let text = withUnsafeBytes(of: error.text) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            kind = .duplicateMember(duplicateName(inJanssonMessage: text))
        case json_error_premature_end_of_input: kind = .prematureEnd
        case json_error_end_of_input_expected: kind = .trailingData
        default: kind = .invalid
        }
        throw JSONSyntaxError(kind: kind, line: Int(error.line), column: Int(error.column), position: Int(error.position))
    }
    defer { authdeck_json_decref(UnsafeMutablePointer(root)) }
    do throws(JSONSyntaxError.Kind) {
        return try jsonValue(UnsafeMutablePointer(root), depth: 0, maximumDepth: maximumDepth)
    } catch {
        throw JSONSyntaxError(kind: error)
    }
}

/// Deepest nesting accepted in a document from outside (protocol documents nest a few levels:
/// `address`, `keys[]`, `cnf`): 64.
public let maximumJSONDepth = Int(authdeck_json_maximum_depth())

/// Deepest nesting accepted in authdeck's own files (128), which embed outside documents a few
/// levels down (an ID token's claims in `accounts.json`, a discovery document in its cache): a
/// provider's deepest document stored cannot make the file unreadable.
public let maximumStoredJSONDepth = Int(authdeck_json_maximum_stored_depth())

/// jansson reports `duplicate object key near '"alg"'`: the quoted name, or "" when unreadable.
private func duplicateName(inJanssonMessage text: String) -> String {
    guard let start = text.firstIndex(of: "'"), let end = text.lastIndex(of: "'"), start < end else { return "" }
    var name = String(text[text.index(after: start)..<end])
    if name.hasPrefix("\""), name.hasSuffix("\""), name.count >= 2 { name = String(name.dropFirst().dropLast()) }
    return name
}

private func jsonValue(_ json: UnsafeMutablePointer<json_t>, depth: Int, maximumDepth: Int) throws(JSONSyntaxError.Kind) -> JSONValue {
    guard depth < maximumDepth else { throw .invalid }
    switch authdeck_json_typeof(json) {
    case JSON_OBJECT:
        var object: [String: JSONValue] = [:]
        object.reserveCapacity(json_object_size(json))
        var iterator = json_object_iter(json)
        while let current = iterator {
            guard let key = json_object_iter_key(current), let member = json_object_iter_value(current) else { throw .invalid }
            let length = json_object_iter_key_len(current)
            let name = String(decoding: UnsafeRawBufferPointer(start: key, count: length), as: UTF8.self)
            // jansson already refused byte-equal duplicates; a collision here is a canonically
            // equivalent spelling of a name already present.
            let value = try jsonValue(member, depth: depth + 1, maximumDepth: maximumDepth)
            guard object.updateValue(value, forKey: name) == nil else { throw .duplicateMember(name) }
            iterator = json_object_iter_next(json, current)
        }
        return .object(object)
    case JSON_ARRAY:
        var array: [JSONValue] = []
        let count = json_array_size(json)
        array.reserveCapacity(count)
        for index in 0..<count {
            guard let element = json_array_get(json, index) else { throw .invalid }
            array.append(try jsonValue(element, depth: depth + 1, maximumDepth: maximumDepth))
        }
        return .array(array)
    case JSON_STRING:
        guard let text = json_string_value(json) else { throw .invalid }
        return .string(String(decoding: UnsafeRawBufferPointer(start: text, count: json_string_length(json)), as: UTF8.self))
    case JSON_INTEGER:
        return .number(Double(json_integer_value(json)))
    case JSON_REAL:
        let number = json_real_value(json)
        guard number.isFinite else { throw .invalid }
        return .number(number)
    case JSON_TRUE:
        return .bool(true)
    case JSON_FALSE:
        return .bool(false)
    case JSON_NULL:
        return .null
    default:
        throw .invalid
    }
}

