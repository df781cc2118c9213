import FoundationEssentials
import TextSupport

/// What a URL the user configures (an issuer, an endpoint, a request URL) must be, checked on
/// the text as typed, before `URL(string:)` gets to percent-encode a stray newline into it.
/// One validator per rule, each named after its clause; `validateConfigured` runs them in order
/// and reports the first violation. (Kept apart from URLPolicy.swift so the engine's runtime
/// rules and these configuration rules change independently.)
extension URLPolicy {
    /// Which rules apply.
    public enum ConfiguredURLRole: Sendable, Equatable {
        /// An issuer identifier (RFC 8414 §2, OIDC Discovery §3): https (or loopback http), no
        /// query, no fragment.
        case issuer
        /// An endpoint (RFC 6749 §3.1, §3.2): may have a query, must not have a fragment.
        case endpoint
        /// A URL a request is sent to (`authdeck api`): the general rules only.
        case request
    }

    /// Why a configured URL is refused. Each case says what was found; `description` says what is
    /// wrong, `hint` what to do.
    public enum ConfiguredURLViolation: Error, Sendable, Equatable, CustomStringConvertible {
        /// Whitespace or a control character; `what` names it and where ("a trailing newline").
        case whitespaceOrControl(what: String)
        /// Not an absolute URL with a host.
        case notAbsolute
        /// `user:password@` in the authority (RFC 3986 §3.2.1: deprecated; it would be stored in
        /// providers.json and printed by `provider show`).
        case userInfo
        /// A port outside 1…65535 (RFC 3986 §3.2.3, a TCP port is 16 bits).
        case portOutOfRange(String)
        /// A query component where none is allowed (issuer: RFC 8414 §2).
        case query(String)
        /// A fragment component (issuer: RFC 8414 §2; endpoints: RFC 6749 §3.1).
        case fragment(String)
        /// Plain http on a host that is not a loopback IP literal.
        case plainHTTP
        /// Another scheme than https (or loopback http).
        case scheme(String)

        public var description: String {
            switch self {
            case .whitespaceOrControl(let what): "contains \(what)"
            case .notAbsolute: "is not an absolute URL (expected https://…)"
            case .userInfo: "contains user information (user:password@); it would be stored in providers.json and printed by 'provider show'"
            case .portOutOfRange(let port): "has port \(port), outside 1–65535"
            case .query(let query): "has a query ('?\(query)'); an issuer identifier has none (RFC 8414 §2)"
            case .fragment(let fragment): "has a fragment ('#\(fragment)'), which an issuer or endpoint must not have (RFC 8414 §2, RFC 6749 §3.1)"
            case .plainHTTP: "uses plain http on a non-loopback host; tokens would travel unencrypted"
            case .scheme(let scheme): "uses the scheme '\(scheme)'; it must be an https:// URL"
            }
        }

        public var hint: String {
            switch self {
            case .whitespaceOrControl: "Remove it (a URL copied with its line ending, or quoted with spaces, gets one)."
            case .notAbsolute: "Give the whole URL, e.g. https://login.example.com/realms/main."
            case .userInfo: "Remove 'user:password@'; a client secret goes in with --client-secret-stdin."
            case .portOutOfRange: "Use the provider's real port (at most 65535), or none for 443."
            case .query: "Give the issuer exactly as the provider's discovery document names it (its \"issuer\" value), without '?…'."
            case .fragment: "Give the URL exactly as the provider documents it, without '#…'."
            case .plainHTTP: "Use the https:// URL (plain http is accepted only on a loopback address: 127.0.0.1 or [::1], not the name localhost)."
            case .scheme: "Use the provider's https:// URL."
            }
        }
    }

    /// Checks `text` against the rules for `role`; the parsed URL when it passes.
    public static func validateConfigured(_ text: String, role: ConfiguredURLRole) -> Result<URL, ConfiguredURLViolation> {
        if let violation = validateNoWhitespaceOrControl(text) { return .failure(violation) }
        guard let components = URLComponents(string: text), let url = components.url,
              let scheme = components.scheme?.lowercased(), let host = components.host, !host.isEmpty else {
            // URLComponents refuses an out-of-range port outright; say so instead of "not absolute".
            if let port = outOfRangePort(text) { return .failure(.portOutOfRange(port)) }
            return .failure(.notAbsolute)
        }
        if let violation = validateNoUserInfo(components) { return .failure(violation) }
        if let violation = validatePort(components, text: text) { return .failure(violation) }
        if role == .issuer, let violation = validateIssuerHasNoQuery(components) { return .failure(violation) }
        if role != .request, let violation = validateNoFragment(components) { return .failure(violation) }
        if scheme == "https" || isLoopbackHTTP(url) { return .success(url) }
        return .failure(scheme == "http" ? .plainHTTP : .scheme(scheme))
    }

    /// No whitespace or control character anywhere (a URL has none; RFC 3986 §2).
    static func validateNoWhitespaceOrControl(_ text: String) -> ConfiguredURLViolation? {
        let scalars = Array(text.unicodeScalars)
        let index = scalars.firstIndex {
            $0.properties.isWhitespace || $0.properties.generalCategory == .control || $0.properties.generalCategory == .format
        }
        guard let index else {
            return nil
        }
        let scalar = scalars[index]
        let name: String
        switch scalar {
        case "\n": name = "a newline"
        case "\r": name = "a carriage return"
        case "\t": name = "a tab"
        case " ": name = "a space"
        default: name = "the character \(scalar.codePointText)"
        }
        let trailing = scalars[index...].allSatisfy { $0.properties.isWhitespace || $0.properties.generalCategory == .control }
        let place = index == 0 ? "leading " : trailing ? "trailing " : ""
        return .whitespaceOrControl(what: place.isEmpty ? name : (name.hasPrefix("a ") ? "a \(place)" + name.dropFirst(2) : name))
    }

    /// No `userinfo@` (RFC 3986 §3.2.1).
    static func validateNoUserInfo(_ components: URLComponents) -> ConfiguredURLViolation? {
        components.percentEncodedUser != nil || components.percentEncodedPassword != nil ? .userInfo : nil
    }

    /// A port, when given, is 1…65535.
    static func validatePort(_ components: URLComponents, text: String) -> ConfiguredURLViolation? {
        if let port = components.port, !(1...65535).contains(port) { return .portOutOfRange(String(port)) }
        return outOfRangePort(text).map(ConfiguredURLViolation.portOutOfRange)
    }

    /// RFC 8414 §2: "has no query or fragment components".
    static func validateIssuerHasNoQuery(_ components: URLComponents) -> ConfiguredURLViolation? {
        components.percentEncodedQuery.map(ConfiguredURLViolation.query)
    }

    /// RFC 6749 §3.1 / RFC 8414 §2: no fragment.
    static func validateNoFragment(_ components: URLComponents) -> ConfiguredURLViolation? {
        components.percentEncodedFragment.map(ConfiguredURLViolation.fragment)
    }

    /// `text` with any `user:password@` in its authority shown as `***@`, for messages: the
    /// password the user mistakenly put there is not echoed back.
    public static func redactingUserInfo(_ text: String) -> String {
        guard let schemeEnd = text.firstRange(of: "://") else { return text }
        let rest = text[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { "/?#".contains($0) } ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return text }
        return String(text[..<schemeEnd.upperBound]) + "***" + String(text[at...])
    }

    /// The port as written in the authority when it is not 1…65535 (URLComponents may refuse to
    /// parse such a URL at all).
    static func outOfRangePort(_ text: String) -> String? {
        guard let schemeEnd = text.firstRange(of: "://") else { return nil }
        let rest = text[schemeEnd.upperBound...]
        let authority = rest.prefix { !"/?#".contains($0) }
        let hostPort = authority.split(separator: "@").last.map(String.init) ?? String(authority)
        // [v6]:port or host:port
        guard let colon = hostPort.lastIndex(of: ":"), !hostPort[colon...].contains("]") else { return nil }
        let digits = hostPort[hostPort.index(after: colon)...]
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else { return nil }
        if let value = Int(digits), (1...65535).contains(value) { return nil }
        return String(digits)
    }
}
