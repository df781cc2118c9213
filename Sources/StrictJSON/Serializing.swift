import CJansson
import FoundationEssentials

extension JSONValue {
    /// The value as UTF-8 JSON text (RFC 8259), written by jansson: member names sorted by their
    /// bytes, numbers with an integral value up to 2^53 as integers (`180`, not `180.0`), other
    /// numbers with 17 significant digits (read back to the same `Double`), `/` not escaped,
    /// non-ASCII as UTF-8. Pretty: two-space indentation, one member per line; else compact.
    /// A non-finite number (which JSON cannot express) is written as `null`; U+0000 in a string is
    /// written as `\u0000`, which ``parseJSON(_:)`` refuses (nothing authdeck stores can hold one).
    /// - Returns: the text without a trailing newline.
    public func serialized(pretty: Bool = false) -> Data {
        guard let root = makeJansson() else { return Data("null".utf8) }
        defer { authdeck_json_decref(root) }
        let flags = authdeck_json_encode_flags(pretty ? 1 : 0)
        let size = json_dumpb(root, nil, 0, flags)
        var data = Data(count: size)
        let written = data.withUnsafeMutableBytes { bytes in
            json_dumpb(root, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), size, flags)
        }
        return written == size ? data : Data("null".utf8)
    }

    /// A new jansson tree (reference owned by the caller); nil only when jansson cannot allocate.
    private func makeJansson() -> UnsafeMutablePointer<json_t>? {
        switch self {
        case .null: return json_null()
        case .bool(let value): return value ? json_true() : json_false()
        case .number(let value):
            guard value.isFinite else { return json_null() }
            if value.rounded() == value, abs(value) <= 9_007_199_254_740_992 { return json_integer(json_int_t(value)) }
            return json_real(value)
        case .string(let value):
            // withCString: the UTF-8 bytes (embedded U+0000 included) plus a terminator, never nil.
            return value.withCString { json_stringn($0, value.utf8.count) }
        case .array(let elements):
            guard let array = json_array() else { return nil }
            for element in elements {
                guard let child = element.makeJansson(), json_array_append_new(array, child) == 0 else {
                    authdeck_json_decref(array)
                    return nil
                }
            }
            return array
        case .object(let members):
            guard let object = json_object() else { return nil }
            for (name, member) in members {
                let added: Bool = name.withCString { key in
                    guard let child = member.makeJansson() else { return false }
                    return json_object_setn_new(object, key, name.utf8.count, child) == 0
                }
                guard added else {
                    authdeck_json_decref(object)
                    return nil
                }
            }
            return object
        }
    }
}
