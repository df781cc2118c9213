import Foundation

/// base64url without padding (RFC 7515 §2, Appendix C) on top of Foundation's base64.
public enum Base64URL {
    public static func encode(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes unpadded base64url; nil when the text holds `=`, `+`, `/` or other invalid characters.
    public static func decode(_ string: String) -> Data? {
        if string.contains("=") || string.contains("+") || string.contains("/") { return nil }
        var base64 = string.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        switch base64.count % 4 {
        case 0: break
        case 2: base64 += "=="
        case 3: base64 += "="
        default: return nil
        }
        return Data(base64Encoded: base64)
    }
}
