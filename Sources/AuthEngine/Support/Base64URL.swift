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
        var bytes = [UInt8]()
        bytes.reserveCapacity(string.utf8.count + 2)
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "/"): return nil
            case UInt8(ascii: "-"): bytes.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): bytes.append(UInt8(ascii: "/"))
            default: bytes.append(byte)
            }
        }
        switch bytes.count % 4 {
        case 0: break
        case 2: bytes += [UInt8(ascii: "="), UInt8(ascii: "=")]
        case 3: bytes.append(UInt8(ascii: "="))
        default: return nil
        }
        return Data(base64Encoded: Data(bytes))
    }
}
