import FoundationEssentials
import StrictJSON

extension SecretStoreError.CorruptionReason {
    /// The damage of a file that ``parseJSON(_:)`` refused with `error`: empty; cut short inside
    /// a value (`.truncatedJSON`); one whole document followed by another that parses too
    /// (`.multipleJSONDocuments`, `cat a a`); else `.notJSON` with where the parser stopped (and
    /// the name of a member given twice). Never any of the file's other text.
    public init(syntax error: JSONSyntaxError, in data: Data) {
        switch error.kind {
        case .empty: self = .empty
        case .prematureEnd: self = .truncatedJSON
        case .trailingData:
            self = Self.isSecondDocument(after: error.position, in: data) ? .multipleJSONDocuments : .notJSON(error.description)
        case .duplicateMember, .invalid: self = .notJSON(error.description)
        }
    }

    /// The damage of valid JSON that is not the shape written: a record of the top-level list
    /// `records` (`.undecodableRecord`, its index and the field path inside it), or the wrong
    /// shape elsewhere (`.wrongShape`, with the path).
    public init(shape error: JSONShapeError, records: String) {
        if error.path.count >= 2, case .member(let name) = error.path[0], name.utf8.elementsEqual(records.utf8),
           case .index(let index) = error.path[1] {
            let field = JSONShapeError.text(error.path.dropFirst(2))
            self = .undecodableRecord(index: index, field: field.isEmpty ? error.expected : field)
        } else {
            self = .wrongShape(error.description)
        }
    }

    /// True when the first value ends at a `}` or `]` shortly before `position` (where jansson
    /// stopped, past the first token after the value) and what follows it parses as JSON too.
    private static func isSecondDocument(after position: Int, in data: Data) -> Bool {
        let bytes = [UInt8](data)
        var end = min(position, bytes.count)
        var tried = 0
        while end > 0, tried < 64 {
            let byte = bytes[end - 1]
            if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                tried += 1
                if case .success = parseJSON(Data(bytes[..<end])) {
                    if case .success = parseJSON(Data(bytes[end...])) { return true }
                    if case .failure(let rest) = parseJSON(Data(bytes[end...])), rest.kind == .trailingData {
                        return isSecondDocument(after: end + rest.position, in: data)
                    }
                    return false
                }
            }
            end -= 1
        }
        return false
    }
}
