import FoundationEssentials

/// The engine's URL rules (docs/ARCHITECTURE.md, "Refusals"): https everywhere, plain http only on loopback
/// addresses (127.0.0.0/8, `[::1]`) whose traffic never leaves the machine.
public enum URLPolicy {
    /// Whether `host` is a loopback IP literal (127.0.0.0/8 or ::1). `localhost` is not (RFC 8252 §8.3).
    public static func isLoopbackIPLiteral(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bare == "::1" || bare == "0:0:0:0:0:0:0:1" { return true }
        let octets = bare.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets[0] == "127" else { return false }
        return octets.allSatisfy { part in
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCII), let value = Int(part) else { return false }
            return (0...255).contains(value)
        }
    }

    /// Whether `url` is `http://` on a loopback address.
    public static func isLoopbackHTTP(_ url: URL) -> Bool {
        url.scheme?.lowercased() == "http" && url.host.map(isLoopbackIPLiteral) == true
    }

    /// Throws `.unsupported(.insecureURL)` unless `url` is https or loopback http.
    public static func requireSecure(_ url: URL) throws(AuthError) {
        let scheme = url.scheme?.lowercased()
        guard url.host?.isEmpty == false, scheme == "https" || (scheme == "http" && isLoopbackHTTP(url)) else {
            throw .unsupported(.insecureURL(url.absoluteString))
        }
    }

    /// Appends form-encoded parameters to `url`, keeping its existing query (RFC 6749 §3.1).
    /// An endpoint must not have a fragment (RFC 6749 §3.1); one is dropped.
    static func appendingQuery(_ parameters: [FormParameter], to url: URL) -> URL {
        var text = url.absoluteString
        if let hash = text.firstIndex(of: "#") { text = String(text[..<hash]) }
        guard !parameters.isEmpty else { return URL(string: text) ?? url }
        let separator = text.contains("?") ? (text.hasSuffix("?") || text.hasSuffix("&") ? "" : "&") : "?"
        return URL(string: text + separator + FormEncoding.encode(parameters)) ?? url
    }

    /// The names already in `url`'s query.
    static func queryNames(_ url: URL) -> [String] {
        guard let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery else { return [] }
        return FormEncoding.decode(query)?.map(\.name) ?? []
    }
}
