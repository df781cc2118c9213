import FoundationEssentials

/// One challenge of a `WWW-Authenticate` field (RFC 9110 §11.6.1, §11.3):
/// `auth-scheme [ 1*SP ( token68 / #auth-param ) ]`.
public struct AuthenticationChallenge: Sendable, Equatable {
    /// The scheme as sent (`Bearer`, `DPoP`); compare with ``isScheme(_:)`` (case-insensitive, RFC 9110 §11.1).
    public var scheme: String
    /// The `token68` form (RFC 9110 §11.2), when the challenge carries one instead of parameters.
    public var token68: String?
    /// The `auth-param`s in order: names lower-cased (case-insensitive, RFC 9110 §11.2), values
    /// as sent (a `quoted-string` unquoted, its `quoted-pair`s resolved). Each name at most once.
    public var parameters: [(name: String, value: String)]

    public init(scheme: String, token68: String? = nil, parameters: [(name: String, value: String)] = []) {
        self.scheme = scheme
        self.token68 = token68
        self.parameters = parameters
    }

    /// Whether the scheme is `name`, ASCII case ignored.
    public func isScheme(_ name: String) -> Bool { scheme.equalsIgnoringASCIICase(name) }

    /// The parameter `name` (lower case), or nil.
    public func parameter(_ name: String) -> String? { parameters.first { $0.name.exactlyEquals(name) }?.value }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.scheme.exactlyEquals(rhs.scheme) && lhs.token68.exactlyEquals(rhs.token68) && lhs.parameters.count == rhs.parameters.count
            && zip(lhs.parameters, rhs.parameters).allSatisfy { $0.name.exactlyEquals($1.name) && $0.value.exactlyEquals($1.value) }
    }
}

/// Why a `WWW-Authenticate` field value is not a list of challenges (RFC 9110 §11.6.1).
/// `offset` is the byte offset where reading stopped.
public struct ChallengeSyntaxError: Error, Sendable, Equatable {
    public enum Reason: Sendable, Equatable {
        /// A scheme (a `token`) was expected.
        case expectedScheme
        /// A parameter value (a `token` or a `quoted-string`) was expected after `=`.
        case expectedValue
        /// A `quoted-string` has no closing `"`, or a `\` at its end.
        case unterminatedQuotedString
        /// Something other than `,` follows a challenge or a parameter.
        case unexpectedCharacter
        /// RFC 9110 §11.2: "each parameter name MUST only occur once per challenge".
        case repeatedParameter(String)
    }
    public var reason: Reason
    public var offset: Int
}

/// Parses a `WWW-Authenticate` field value into its challenges (RFC 9110 §11.6.1): several
/// challenges per value (a response's several field lines joined with `, `, RFC 9110 §5.3),
/// quoted strings with escapes and commas, `token68`, empty list elements, case-insensitive
/// scheme and parameter names.
/// - Throws: ``ChallengeSyntaxError`` at the first byte that does not fit.
public func parseAuthenticationChallenges(_ fieldValue: String) throws(ChallengeSyntaxError) -> [AuthenticationChallenge] {
    var reader = ChallengeReader(bytes: Array(fieldValue.utf8))
    return try reader.challenges()
}

private struct ChallengeReader {
    let bytes: [UInt8]
    var position = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    private var atEnd: Bool { position >= bytes.count }
    private var current: UInt8? { atEnd ? nil : bytes[position] }

    private func fail(_ reason: ChallengeSyntaxError.Reason) -> ChallengeSyntaxError { ChallengeSyntaxError(reason: reason, offset: position) }

    /// RFC 9110 §5.6.2 `tchar`.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// RFC 9110 §11.2 `token68` characters before the trailing `=`s.
    private static func isToken68Character(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "-._~+/".utf8.contains(byte)
        }
    }

    private mutating func skipWhitespace() {
        while let byte = current, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { position += 1 }
    }

    /// OWS, then any number of `,` each followed by OWS (RFC 9110 §5.6.1: empty list elements).
    private mutating func skipSeparators() {
        skipWhitespace()
        while current == UInt8(ascii: ",") {
            position += 1
            skipWhitespace()
        }
    }

    private mutating func token() -> String? {
        let start = position
        while let byte = current, Self.isTokenCharacter(byte) { position += 1 }
        return position > start ? String(decoding: bytes[start..<position], as: UTF8.self) : nil
    }

    private mutating func quotedString() throws(ChallengeSyntaxError) -> String {
        position += 1  // the opening DQUOTE
        var value: [UInt8] = []
        while let byte = current {
            position += 1
            switch byte {
            case UInt8(ascii: "\""): return String(decoding: value, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let escaped = current else { throw fail(.unterminatedQuotedString) }
                value.append(escaped)
                position += 1
            default: value.append(byte)
            }
        }
        throw fail(.unterminatedQuotedString)
    }

    /// At the start of an element after a scheme's parameters: whether it is `token BWS "="`
    /// (another parameter) rather than a new challenge's scheme. Moves nothing.
    private func startsParameter() -> Bool {
        var index = position
        while index < bytes.count, Self.isTokenCharacter(bytes[index]) { index += 1 }
        guard index > position else { return false }
        while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") { index += 1 }
        return index < bytes.count && bytes[index] == UInt8(ascii: "=")
    }

    /// A `token68` that runs to the end of the element (OWS then `,` or the end); moves nothing
    /// unless it is one.
    private mutating func token68() -> String? {
        var index = position
        while index < bytes.count, Self.isToken68Character(bytes[index]) { index += 1 }
        guard index > position else { return nil }
        while index < bytes.count, bytes[index] == UInt8(ascii: "=") { index += 1 }
        var end = index
        while end < bytes.count, bytes[end] == UInt8(ascii: " ") || bytes[end] == UInt8(ascii: "\t") { end += 1 }
        guard end == bytes.count || bytes[end] == UInt8(ascii: ",") else { return nil }
        defer { position = index }
        return String(decoding: bytes[position..<index], as: UTF8.self)
    }

    mutating func challenges() throws(ChallengeSyntaxError) -> [AuthenticationChallenge] {
        var result: [AuthenticationChallenge] = []
        skipSeparators()
        while !atEnd {
            guard let scheme = token() else { throw fail(.expectedScheme) }
            var challenge = AuthenticationChallenge(scheme: scheme)
            let afterScheme = position
            skipWhitespace()
            if position > afterScheme, !atEnd, current != UInt8(ascii: ",") {
                if !startsParameter(), let value = token68() {
                    challenge.token68 = value
                } else {
                    try parameters(into: &challenge)
                }
            }
            skipWhitespace()
            guard atEnd || current == UInt8(ascii: ",") else { throw fail(.unexpectedCharacter) }
            result.append(challenge)
            skipSeparators()
        }
        return result
    }

    /// `#auth-param` up to the next challenge's scheme or the end.
    private mutating func parameters(into challenge: inout AuthenticationChallenge) throws(ChallengeSyntaxError) {
        while true {
            let start = position
            guard let name = token() else { throw fail(.expectedScheme) }
            skipWhitespace()
            guard current == UInt8(ascii: "=") else { throw fail(.unexpectedCharacter) }
            position += 1
            skipWhitespace()
            let value: String
            if current == UInt8(ascii: "\"") {
                value = try quotedString()
            } else if let plain = token() {
                value = plain
            } else {
                throw fail(.expectedValue)
            }
            let lowered = name.lowercased()
            if challenge.parameter(lowered) != nil {
                position = start
                throw fail(.repeatedParameter(lowered))
            }
            challenge.parameters.append((lowered, value))
            // The next element: another parameter of this challenge, or the next challenge.
            let beforeSeparators = position
            skipSeparators()
            guard !atEnd, startsParameter(), position > beforeSeparators, bytes[beforeSeparators..<position].contains(UInt8(ascii: ",")) else {
                position = beforeSeparators
                return
            }
        }
    }
}

/// A `Bearer` (RFC 6750 §3) or `DPoP` (RFC 9449 §7.1) challenge with the parameters a client
/// acts on: `resource_metadata` (RFC 9728 §5.1), `scope`, `error`, `error_description`.
public struct BearerChallenge: Sendable, Equatable {
    /// `Bearer` or `DPoP`, as sent.
    public var scheme: String
    /// RFC 9728 §5.1 `resource_metadata`: the URL of the protected-resource metadata.
    public var resourceMetadata: String?
    /// RFC 6750 §3 `scope`, split on spaces; nil when absent.
    public var scope: [String]?
    /// RFC 6750 §3.1 `error` (`invalid_token`, `insufficient_scope`, …).
    public var error: String?
    /// RFC 6750 §3 `error_description` (server text: escape before showing).
    public var errorDescription: String?

    public init(scheme: String, resourceMetadata: String? = nil, scope: [String]? = nil, error: String? = nil, errorDescription: String? = nil) {
        self.scheme = scheme
        self.resourceMetadata = resourceMetadata
        self.scope = scope
        self.error = error
        self.errorDescription = errorDescription
    }

    /// The `Bearer` and `DPoP` challenges of a response's `WWW-Authenticate` (in order; other
    /// schemes skipped). A value that does not parse gives none (the caller falls back to the
    /// well-known URLs, RFC 9728 §3) and the syntax error.
    public static func challenges(in response: HTTPResponse) -> (challenges: [BearerChallenge], syntaxError: ChallengeSyntaxError?) {
        guard let field = response.headers["www-authenticate"] else { return ([], nil) }
        do {
            let parsed = try parseAuthenticationChallenges(field)
            return (parsed.compactMap(BearerChallenge.init), nil)
        } catch {
            return ([], error)
        }
    }

    /// The challenge's Bearer/DPoP reading, nil for another scheme.
    public init?(_ challenge: AuthenticationChallenge) {
        guard challenge.isScheme("Bearer") || challenge.isScheme("DPoP") else { return nil }
        self.init(scheme: challenge.scheme, resourceMetadata: challenge.parameter("resource_metadata"),
                  scope: challenge.parameter("scope").map { ScopeSet([$0]).values },
                  error: challenge.parameter("error"), errorDescription: challenge.parameter("error_description"))
    }
}

extension Array where Element == BearerChallenge {
    /// The challenge a client follows: the first `Bearer` one carrying `resource_metadata`, else
    /// the first `DPoP` one carrying it, else the first `Bearer`, else the first.
    public var preferred: BearerChallenge? {
        first { $0.scheme.equalsIgnoringASCIICase("Bearer") && $0.resourceMetadata != nil }
            ?? first { $0.resourceMetadata != nil }
            ?? first { $0.scheme.equalsIgnoringASCIICase("Bearer") } ?? first
    }
}
