import CJansson
import FoundationEssentials

extension JSONValue {
    /// The value as UTF-8 JSON text (RFC 8259), written by jansson: member names sorted by their
    /// bytes, numbers with an integral value up to 2^53 as integers (`180`, not `180.0`), other
    /// numbers with as many significant digits as the document's longest shortest-round-trip
    /// number needs (`0.1` stays `0.1`; every number reads back to the same `Double`, 17 digits
    /// at most), `/` not escaped, non-ASCII as UTF-8. Pretty: two-space indentation, one member
    /// per line; else compact. A non-finite number (which JSON cannot express) is written as
    /// `null`; U+0000 in a string is written as `\u0000`, which ``parseJSON(_:)`` refuses
    /// (nothing authdeck stores can hold one).
    /// - Returns: the text without a trailing newline.
    public func serialized(pretty: Bool = false) -> Data {
        var digits = 0
        guard let root = makeJansson(digits: &digits) else { return Data("null".utf8) }
        defer { authdeck_json_decref(root) }
        let text = Self.dump(root, pretty: pretty, digits: max(digits, 1))
        // %.{digits}g of a shortest-round-trip number reads back to it except, rarely, next to a
        // power of two; then the full 17 digits. Integers are written exactly: without a
        // non-integral number (digits 0) there is nothing to check (the check parsed the whole
        // text again: a sixth of `status --json`, PERFORMANCE.md).
        if digits > 0, digits < 17, let text, Self.readBack(text, like: self) != self {
            return Self.dump(root, pretty: pretty, digits: 17) ?? Data("null".utf8)
        }
        return text ?? Data("null".utf8)
    }

    /// `text` parsed again (the parser takes an object or array at the top; a number alone is
    /// read as a `Double`).
    private static func readBack(_ text: Data, like value: JSONValue) -> JSONValue? {
        switch value {
        case .array, .object: try? parseJSONValue(text)
        default: Double(String(decoding: text, as: UTF8.self)).map(JSONValue.number)
        }
    }

    private static func dump(_ root: UnsafeMutablePointer<json_t>, pretty: Bool, digits: Int) -> Data? {
        let flags = authdeck_json_encode_flags(pretty ? 1 : 0, Int32(digits))
        let size = json_dumpb(root, nil, 0, flags)
        var data = Data(count: size)
        let written = data.withUnsafeMutableBytes { bytes in
            json_dumpb(root, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), size, flags)
        }
        return written == size ? data : nil
    }

    /// Significant digits of `value`'s shortest round-trip decimal (Swift's `description`:
    /// `0.1` → 1, `1764585649.123456` → 16, `1e-05` → 1).
    private static func significantDigits(_ value: Double) -> Int {
        let mantissa = value.description.utf8.prefix { $0 != UInt8(ascii: "e") }
        let digits = mantissa.filter { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.drop { $0 == UInt8(ascii: "0") }
        return min(17, max(1, digits.count))
    }

    /// A new jansson tree (reference owned by the caller); nil only when jansson cannot allocate.
    /// `digits` grows to the significant digits the tree's reals need (it stays as it was without reals).
    private func makeJansson(digits: inout Int) -> UnsafeMutablePointer<json_t>? {
        switch self {
        case .null: return json_null()
        case .bool(let value): return value ? json_true() : json_false()
        case .number(let value):
            guard value.isFinite else { return json_null() }
            if value.rounded() == value, abs(value) <= 9_007_199_254_740_992 { return json_integer(json_int_t(value)) }
            digits = max(digits, Self.significantDigits(value))
            return json_real(value)
        case .string(let value):
            // withCString: the UTF-8 bytes (embedded U+0000 included) plus a terminator, never nil.
            return value.withCString { json_stringn($0, value.utf8.count) }
        case .array(let elements):
            guard let array = json_array() else { return nil }
            for element in elements {
                guard let child = element.makeJansson(digits: &digits), json_array_append_new(array, child) == 0 else {
                    authdeck_json_decref(array)
                    return nil
                }
            }
            return array
        case .object(let members):
            guard let object = json_object() else { return nil }
            for (name, member) in members {
                let added: Bool = name.withCString { key in
                    guard let child = member.makeJansson(digits: &digits) else { return false }
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
