import FoundationEssentials

/// base64url without padding (RFC 7515 §2, Appendix C) on top of Foundation's base64.
///
/// The alphabet swap (`-`↔`+`, `_`↔`/`) and the padding are done on the UTF-8 bytes: the
/// `replacingOccurrences` version went through NSString and was most of the cost of parsing a
/// JWS (PERFORMANCE.md, signature verification).
public enum Base64URL {
    public static func encode(_ data: Data) -> String {
        var bytes = Array(data.base64EncodedData())
        var end = bytes.count
        while end > 0, bytes[end - 1] == UInt8(ascii: "=") { end -= 1 }
        bytes.removeSubrange(end...)
        for i in bytes.indices {
            switch bytes[i] {
            case UInt8(ascii: "+"): bytes[i] = UInt8(ascii: "-")
            case UInt8(ascii: "/"): bytes[i] = UInt8(ascii: "_")
            default: break
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Decodes unpadded base64url; nil when the text holds `=`, `+`, `/` or other invalid characters.
    public static func decode(_ string: String) -> Data? {
        var text = string
        return text.withUTF8 { decode(utf8: $0) }
    }

    /// Each byte of base64url text as the byte Foundation's (standard alphabet) decoder reads: `-`
    /// and `_` swapped for `+` and `/`; 0 for `=`, `+`, `/` (not base64url, refused) and NUL.
    private static let standardAlphabet: [UInt8] = (0 ... 255).map { value -> UInt8 in
        switch UInt8(value) {
        case UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "/"): 0
        case UInt8(ascii: "-"): UInt8(ascii: "+")
        case UInt8(ascii: "_"): UInt8(ascii: "/")
        default: UInt8(value)
        }
    }

    /// ``decode(_:)`` of UTF-8 bytes (a part of a compact JWS, without copying it to a `String`):
    /// the alphabet swapped and the padding added in one buffer, then Foundation's decoder.
    public static func decode(utf8 text: UnsafeBufferPointer<UInt8>) -> Data? {
        let padding: Int
        switch text.count % 4 {
        case 0: padding = 0
        case 2: padding = 2
        case 3: padding = 1
        default: return nil
        }
        var standard = Data(count: text.count + padding)
        let valid = standard.withUnsafeMutableBytes { output -> Bool in
            standardAlphabet.withUnsafeBufferPointer { table in
                var refused = false
                for index in 0 ..< text.count {
                    let byte = table[Int(text[index])]
                    output[index] = byte
                    refused = refused || byte == 0
                }
                for index in text.count ..< output.count { output[index] = UInt8(ascii: "=") }
                return !refused
            }
        }
        guard valid else { return nil }
        return Data(base64Encoded: standard)
    }
}
