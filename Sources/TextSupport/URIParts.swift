/// An absolute URI with an authority (`scheme://[userinfo@]host[:port][/path][?query][#fragment]`)
/// split as RFC 3986 §3 splits it, without percent-decoding: the one parser of URLs that arrive
/// from outside and decide where a secret goes (the git and docker credential helpers' requests,
/// a resource's URL).
///
/// Strict where browsers and HTTP libraries differ from each other: the authority ends at the
/// first `/`, `?` or `#` (§3.2), so `https://evil.test?.gcr.io` is the host `evil.test`; a `\`,
/// a space or a control character anywhere, more than one `@`, a `%` in the host (no
/// percent-encoded host is compared) or a port that is not a number up to 65535 make no URI.
/// The scheme and the host are lower-cased (§3.1, §3.2.2: case-insensitive).
public struct URIParts: Equatable, Sendable {
    /// §3.1, lower case.
    public var scheme: String
    /// §3.2.1: what precedes `@` in the authority, as written (nil: none; `""` for `https://@host`).
    public var userinfo: String?
    /// §3.2.2, lower case: a registered name, an IPv4 address or an IP literal with its brackets (`[::1]`).
    public var host: String
    /// §3.2.3, digits only (nil: none, or an empty port as in `host:`).
    public var port: String?
    /// §3.3, as written (`""` or starting with `/`).
    public var path: String
    /// §3.4, without its `?`.
    public var query: String?
    /// §3.5, without its `#`.
    public var fragment: String?

    /// `host` or `host:port`: the authority without its userinfo.
    public var hostAndPort: String { port.map { "\(host):\($0)" } ?? host }

    /// RFC 6454 §4: `scheme://host:port`, the port always written (the scheme's default for `http`
    /// and `https` when the URI names none), so two origins compare code unit for code unit.
    public var origin: String {
        let defaultPort = scheme.utf8.elementsEqual("https".utf8) ? "443" : scheme.utf8.elementsEqual("http".utf8) ? "80" : ""
        return "\(scheme)://\(host):\(port ?? defaultPort)"
    }

    /// The URI as written, without its userinfo (safe to show when the userinfo held a password).
    public var withoutUserinfo: String {
        "\(scheme)://\(hostAndPort)\(path)" + (query.map { "?\($0)" } ?? "") + (fragment.map { "#\($0)" } ?? "")
    }

    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        // No byte of a URI is a space, a control character or a `\` (§2; a `\` is `/` to WHATWG parsers and not to others).
        guard !bytes.contains(where: { $0 <= 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\\") }) else { return nil }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0, Self.isAlpha(bytes[0]),
              bytes[..<colon].allSatisfy({ Self.isAlpha($0) || Self.isDigit($0)
                  || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }),
              bytes[(colon + 1)...].starts(with: "//".utf8) else { return nil }
        let authorityStart = colon + 3
        let authorityEnd = bytes[authorityStart...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? bytes.endIndex
        var authority = bytes[authorityStart..<authorityEnd]
        let ats = authority.indices.filter { authority[$0] == UInt8(ascii: "@") }
        guard ats.count <= 1 else { return nil }
        if let at = ats.first {
            userinfo = String(decoding: authority[..<at], as: UTF8.self)
            authority = authority[(at + 1)...]
        } else {
            userinfo = nil
        }
        // The host: an IP literal in brackets, else up to the last `:`.
        let hostBytes: ArraySlice<UInt8>
        let portBytes: ArraySlice<UInt8>?
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            hostBytes = authority[...close]
            let rest = authority[(close + 1)...]
            guard rest.isEmpty || rest.first == UInt8(ascii: ":") else { return nil }
            portBytes = rest.isEmpty ? nil : rest.dropFirst()
            guard hostBytes.dropFirst().dropLast().allSatisfy({ Self.isHex($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }),
                  hostBytes.count > 2 else { return nil }
        } else if let lastColon = authority.lastIndex(of: UInt8(ascii: ":")) {
            hostBytes = authority[..<lastColon]
            portBytes = authority[(lastColon + 1)...]
        } else {
            hostBytes = authority
            portBytes = nil
        }
        // reg-name = *( unreserved / sub-delims ) here: no pct-encoded host, no `:` `@` `[` `]` left in it.
        guard !hostBytes.isEmpty, hostBytes.first == UInt8(ascii: "[") || hostBytes.allSatisfy(Self.isRegNameByte) else { return nil }
        if let portBytes, !portBytes.isEmpty {
            guard portBytes.count <= 5, portBytes.allSatisfy(Self.isDigit), let number = Int(String(decoding: portBytes, as: UTF8.self)),
                  number <= 65535 else { return nil }
            port = String(decoding: portBytes, as: UTF8.self)
        } else {
            port = nil
        }
        scheme = String(decoding: bytes[..<colon], as: UTF8.self).asciiLowercased
        host = String(decoding: hostBytes, as: UTF8.self).asciiLowercased
        let rest = bytes[authorityEnd...]
        let queryStart = rest.firstIndex(of: UInt8(ascii: "?"))
        let fragmentStart = rest.firstIndex(of: UInt8(ascii: "#"))
        let pathEnd = [queryStart, fragmentStart].compactMap { $0 }.min() ?? rest.endIndex
        path = String(decoding: rest[..<pathEnd], as: UTF8.self)
        if let queryStart, fragmentStart.map({ queryStart < $0 }) ?? true {
            query = String(decoding: bytes[(queryStart + 1)..<(fragmentStart ?? bytes.endIndex)], as: UTF8.self)
        } else {
            query = nil
        }
        fragment = fragmentStart.map { String(decoding: bytes[($0 + 1)...], as: UTF8.self) }
    }

    /// `host` or `host:port` as a client names a server (git's `host=`), parsed as this URI's authority would be; nil
    /// when it is not exactly one (a userinfo, a path, a query, a fragment, anything the authority cannot hold).
    public static func hostAndPort(_ text: String, scheme: String = "https") -> URIParts? {
        guard let parts = URIParts("\(scheme)://\(text)"), parts.userinfo == nil, parts.path.isEmpty, parts.query == nil,
              parts.fragment == nil, parts.hostAndPort.utf8.elementsEqual(text.asciiLowercased.utf8) else { return nil }
        return parts
    }

    static func isAlpha(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
    static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    static func isHex(_ byte: UInt8) -> Bool { isDigit(byte) || ((byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "f")) }
    /// RFC 3986 §2.3 unreserved and §2.2 sub-delims.
    static func isRegNameByte(_ byte: UInt8) -> Bool {
        isAlpha(byte) || isDigit(byte) || "-._~!$&'()*+,;=".utf8.contains(byte)
    }
}

extension StringProtocol {
    /// ASCII letters in lower case, every other byte as it is (no locale, no Unicode case mapping).
    public var asciiLowercased: String {
        String(decoding: utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
    }
}
