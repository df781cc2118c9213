import CredentialStore
import Foundation

/// What is wrong with a JSON file that did not decode: empty, not JSON, cut short, written twice,
/// the wrong shape, or one record that does not decode. The JSON itself is judged by Foundation's
/// parser (`JSONSerialization`) and the decoder's `DecodingError`, never by a parser of our own.
enum JSONDamage {
    /// The damage of `data`, which `decodingError` says did not decode.
    static func classify(_ data: Data, decodingError: any Error) -> SecretStoreError.CorruptionReason {
        if data.allSatisfy(isWhitespace) { return .empty }
        if parses(data) { return shape(of: decodingError) }
        if isSeveralDocuments(data) { return .multipleJSONDocuments }
        let parserError = parseError(data)
        if isUnexpectedEnd(parserError) { return .truncatedJSON }
        return .notJSON(parserError.map(position) ?? "unreadable")
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }

    static func parses<D: DataProtocol>(_ data: D) -> Bool {
        (try? JSONSerialization.jsonObject(with: Data(data), options: [.fragmentsAllowed])) != nil
    }

    private static func parseError(_ data: Data) -> NSError? {
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return nil
        } catch {
            return error as NSError
        }
    }

    /// Foundation reports a document that ends inside a value as "Unexpected end of file".
    private static func isUnexpectedEnd(_ error: NSError?) -> Bool {
        guard let error else { return false }
        let text = (error.userInfo[NSDebugDescriptionErrorKey] as? String ?? error.localizedDescription).lowercased()
        return text.contains("end of file") || text.contains("unexpected end") || text.contains("premature end")
    }

    /// The parser's words (a position, "Invalid value around character 6."), with anything it
    /// quotes from the file left out: a damaged secrets file must not leak into a message.
    private static func position(_ error: NSError) -> String {
        let text = error.userInfo[NSDebugDescriptionErrorKey] as? String ?? error.localizedDescription
        let unquoted = text.replacingOccurrences(of: #"(['"]).*?\1"#, with: "…", options: .regularExpression)
        return unquoted.count > 120 ? String(unquoted.prefix(120)) + "…" : unquoted
    }

    /// True when the bytes are two or more whole JSON documents one after another (`cat a a`):
    /// a prefix ending where a document may end (`]` or `}` followed, after white space, by `[`
    /// or `{`) parses, and so does the rest. At most 64 candidate cuts are tried.
    static func isSeveralDocuments(_ data: Data) -> Bool {
        let bytes = [UInt8](data)
        var candidates = 0
        var lastSignificant: UInt8?
        for (index, byte) in bytes.enumerated() {
            if isWhitespace(byte) { continue }
            defer { lastSignificant = byte }
            guard byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{"),
                  lastSignificant == UInt8(ascii: "]") || lastSignificant == UInt8(ascii: "}") else { continue }
            candidates += 1
            if candidates > 64 { return false }
            if parses(bytes[..<index]) && (parses(bytes[index...]) || isSeveralDocuments(Data(bytes[index...]))) { return true }
        }
        return false
    }

    /// Valid JSON that does not decode: the wrong shape at the top, or one record at fault.
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
