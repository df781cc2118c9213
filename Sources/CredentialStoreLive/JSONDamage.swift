import CredentialStore
import FoundationEssentials
import StrictJSON

/// What is wrong with a JSON file that did not read: empty, not JSON, cut short, written twice,
/// the wrong shape, or one record that does not read. The JSON is judged by StrictJSON's parser
/// (jansson: ``JSONSyntaxError``) and the shape by ``JSONShapeError``; neither quotes the file's
/// text (it may hold a secret), only positions, field paths and a duplicated member's name.
enum JSONDamage {
    /// The damage of `data`, which ``parseJSON(_:)`` refused with `error`.
    static func classify(_ error: JSONSyntaxError, data: Data) -> SecretStoreError.CorruptionReason {
        switch error.kind {
        case .empty: return .empty
        case .prematureEnd: return .truncatedJSON
        case .trailingData: return isSeveralDocuments(data, firstEndsBefore: error.position) ? .multipleJSONDocuments : .notJSON("more text after the JSON value, \(error.location)")
        case .duplicateMember(let name): return .notJSON("member \"\(name)\" appears twice, \(error.location)")
        case .invalid: return .notJSON("invalid at \(error.location)")
        }
    }

    /// Valid JSON that is not what authdeck writes: the wrong shape at the top (or outside any
    /// record), or one record at fault (its index and the field's path inside it,
    /// `accessTokens[0].expiresAt`).
    static func classify(_ error: JSONShapeError) -> SecretStoreError.CorruptionReason {
        if case .index(let index)? = error.path.first {
            return .undecodableRecord(index: index, field: JSONShapeError.text(error.path.dropFirst()))
        }
        return .wrongShape(error.description)
    }

    /// Reads `data` as one JSON document through `read`.
    /// - Throws: ``SecretStoreError/corrupt(file:reason:)`` naming `file` and the damage.
    static func read<Value>(_ data: Data, file: String, _ read: (JSONValue) throws(JSONShapeError) -> Value) throws(SecretStoreError) -> Value {
        let value: JSONValue
        do {
            value = try parseJSONValue(data)
        } catch {
            throw .corrupt(file: file, reason: classify(error, data: data))
        }
        do {
            return try read(value)
        } catch {
            throw .corrupt(file: file, reason: classify(error))
        }
    }

    /// The damage of `data`, which a `Decodable` type (`decodingError`) did not decode: the
    /// syntax as judged by ``parseJSON(_:)``, else the decoder's shape error (for the secret files
    /// still read with `JSONDecoder`).
    static func classify(_ data: Data, decodingError: any Error) -> SecretStoreError.CorruptionReason {
        if case .failure(let error) = parseJSON(data) { return classify(error, data: data) }
        return shape(of: decodingError)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }

    /// True when the bytes are two or more whole JSON documents one after another (`cat a a`):
    /// the parser found one complete value and then more text (`.trailingData`, stopping at
    /// byte `position`, just after the first byte it could not take); the rest, from the last
    /// `[` or `{` at or before that byte, parses (or is itself several documents; at most 64 deep).
    static func isSeveralDocuments(_ data: Data, firstEndsBefore position: Int, depth: Int = 0) -> Bool {
        guard depth < 64 else { return false }
        let bytes = [UInt8](data)
        var start = min(max(position, 1), bytes.count) - 1
        while start > 0, bytes[start] != UInt8(ascii: "["), bytes[start] != UInt8(ascii: "{") { start -= 1 }
        guard start > 0, bytes[..<start].contains(where: { !isWhitespace($0) }) else { return false }
        let rest = Data(bytes[start...])
        switch parseJSON(rest) {
        case .success: return true
        case .failure(let error):
            guard error.kind == .trailingData, error.position > 0, error.position < rest.count else { return false }
            return isSeveralDocuments(rest, firstEndsBefore: error.position, depth: depth + 1)
        }
    }

    /// A `DecodingError`: the wrong shape at the top, or one record at fault.
    private static func shape(of error: any Error) -> SecretStoreError.CorruptionReason {
        guard let error = error as? DecodingError else { return .wrongShape(String(describing: type(of: error))) }
        var path: [any CodingKey]
        var what: String
        switch error {
        case .typeMismatch(let type, let context):
            path = context.codingPath
            what = "expected \(type)"
        case .valueNotFound(let type, let context):
            path = context.codingPath
            what = "missing \(type)"
        case .keyNotFound(let key, let context):
            path = context.codingPath + [key]
            what = "missing key '\(key.stringValue)'"
        case .dataCorrupted(let context):
            path = context.codingPath
            what = "invalid value"
        @unknown default:
            return .wrongShape("does not decode")
        }
        if let first = path.first, let index = first.intValue {
            return .undecodableRecord(index: index, field: path.dropFirst().map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: "."))
        }
        if path.isEmpty { return .wrongShape(what) }
        return .wrongShape("\(what) at '\(path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: "."))'")
    }
}
