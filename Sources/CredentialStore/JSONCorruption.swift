import FoundationEssentials
import StrictJSON

extension SecretStoreError.CorruptionReason {
    /// The damage of a file that ``parseJSON(_:)`` refused with `error`: empty; cut short inside
    /// a value (`.truncatedJSON`); one whole document followed by another (`.multipleJSONDocuments`,
    /// `cat a a`); else `.notJSON` with where the parser stopped (and the name of a member given
    /// twice). Never any of the file's other text (it may hold a secret).
    public init(syntax error: JSONSyntaxError, in data: Data) {
        switch error.kind {
        case .empty: self = .empty
        case .prematureEnd: self = .truncatedJSON
        case .trailingData:
            self = Self.isSeveralDocuments(data, firstEndsBefore: error.position)
                ? .multipleJSONDocuments : .notJSON("more text after the JSON value, \(error.location)")
        case .duplicateMember(let name): self = .notJSON("member \"\(name)\" appears twice, \(error.location)")
        case .invalid: self = .notJSON("invalid at \(error.location)")
        }
    }

    /// The damage of valid JSON that is not the shape written: one record (`.undecodableRecord`:
    /// its index and the field path inside it, `accessTokens[0].expiresAt`) of the top-level list
    /// (`records` nil) or of the list in the top-level member `records`; else `.wrongShape` with
    /// the path.
    public init(shape error: JSONShapeError, records: String? = nil) {
        var path = error.path[...]
        if let records {
            guard case .member(let name)? = path.first, name.utf8.elementsEqual(records.utf8) else {
                self = .wrongShape(error.description)
                return
            }
            path = path.dropFirst()
        }
        if case .index(let index)? = path.first {
            let field = JSONShapeError.text(path.dropFirst())
            self = .undecodableRecord(index: index, field: field.isEmpty ? error.expected : field)
        } else {
            self = .wrongShape(error.description)
        }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }

    /// True when the bytes are two or more whole JSON documents one after another: the parser
    /// found one complete value and then more text (`.trailingData`, stopping at byte `position`,
    /// just after the first byte it could not take); the rest, from the last `[` or `{` at or
    /// before that byte, parses (or is itself several documents). Each step starts strictly
    /// later in the data, and at most 64 steps are taken.
    static func isSeveralDocuments(_ data: Data, firstEndsBefore position: Int, depth: Int = 0) -> Bool {
        guard depth < 64 else { return false }
        let bytes = [UInt8](data)
        var start = min(max(position, 1), bytes.count) - 1
        while start > 0, bytes[start] != UInt8(ascii: "["), bytes[start] != UInt8(ascii: "{") { start -= 1 }
        guard start > 0, bytes[..<start].contains(where: { !isWhitespace($0) }) else { return false }
        let rest = Data(bytes[start...])
        switch parseJSON(rest, maximumDepth: maximumStoredJSONDepth) {
        case .success: return true
        case .failure(let error):
            guard error.kind == .trailingData, error.position > 0, error.position < rest.count else { return false }
            return isSeveralDocuments(rest, firstEndsBefore: error.position, depth: depth + 1)
        }
    }
}
