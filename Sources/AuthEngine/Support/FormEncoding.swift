import FoundationEssentials
import TextSupport

/// One name/value pair of a form body or query (`application/x-www-form-urlencoded`).
public struct FormParameter: Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var value: String
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
    /// Values of credential-bearing names are redacted.
    public var description: String {
        FormEncoding.secretNames.contains(name) ? "\(name)=<redacted>" : "\(name)=\(value)"
    }
}

/// `application/x-www-form-urlencoded` (RFC 6749 Appendix B; WHATWG URL §5): bytes outside
/// `A-Z a-z 0-9 - . _ ~` are percent-encoded as UTF-8, space becomes `+`.
public enum FormEncoding {
    static let secretNames: Set<String> = [
        "code", "code_verifier", "client_secret", "refresh_token", "access_token", "token", "id_token_hint", "device_code", "id_token",
    ]

    /// RFC 3986 §2.3 unreserved characters and the space (written as `+` afterwards).
    private static func isUnreservedOrSpace(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: " "): true
        default: false
        }
    }

    /// Encodes one name or value.
    public static func encode(_ string: String) -> String {
        string.percentEncoded(allowing: isUnreservedOrSpace).replacing(" ", with: "+")
    }

    /// `name=value&…` in order.
    public static func encode(_ parameters: [FormParameter]) -> String {
        parameters.map { encode($0.name) + "=" + encode($0.value) }.joined(separator: "&")
    }

    /// Decodes `name=value&…` in order, repeats kept; nil when a percent-escape is invalid.
    public static func decode(_ string: String) -> [FormParameter]? {
        var result: [FormParameter] = []
        for pair in string.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decodeComponent(String(parts[0])) else { return nil }
            let value = parts.count > 1 ? decodeComponent(String(parts[1])) : ""
            guard let value else { return nil }
            result.append(FormParameter(name, value))
        }
        return result
    }

    private static func decodeComponent(_ string: String) -> String? {
        string.replacing("+", with: " ").percentDecoded
    }

    /// A form body as `Data`.
    static func body(_ parameters: [FormParameter]) -> Data {
        Data(encode(parameters).utf8)
    }
}
