import FoundationEssentials

/// A protected resource asking for a stronger grant: RFC 9470 §3 (`error="insufficient_user_authentication"` with
/// `acr_values` and/or `max_age`, HTTP 401) or RFC 6750 §3.1 (`error="insufficient_scope"` with `scope`, HTTP 403; MCP's
/// step-up, answered with the union of the held and the asked scopes).
public struct StepUpChallenge: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        /// RFC 9470 §3 `insufficient_user_authentication`.
        case insufficientUserAuthentication = "insufficient_user_authentication"
        /// RFC 6750 §3.1 `insufficient_scope`.
        case insufficientScope = "insufficient_scope"
    }

    public var kind: Kind
    /// RFC 9470 §3 `acr_values`: space-separated, in order of preference; empty when absent.
    public var acrValues: [String]
    /// RFC 9470 §3 `max_age`: seconds the authentication may be old; nil when absent.
    public var maxAge: Int?
    /// RFC 6750 §3 `scope`, split on spaces; empty when absent.
    public var scope: [String]

    public init(kind: Kind, acrValues: [String] = [], maxAge: Int? = nil, scope: [String] = []) {
        self.kind = kind
        self.acrValues = acrValues
        self.maxAge = maxAge
        self.scope = scope
    }

    /// The largest `max_age` taken: ten years in seconds. A larger one (or one that does not fit in an `Int`) is refused.
    public static let maximumMaxAge = 315_360_000
    /// The most `acr_values` or `scope` values taken from one challenge.
    public static let maximumValues = 32

    /// Why a step-up challenge cannot be followed: the parameter and what is wrong with it (server text kept out).
    public struct Invalid: Error, Sendable, Equatable {
        public var parameter: String
        public var problem: String
    }

    /// The first `Bearer` or `DPoP` challenge of a 401 or 403 whose `error` is exactly `insufficient_user_authentication` or
    /// `insufficient_scope` (code unit for code unit); nil for any other answer, or a field that does not parse.
    /// - Throws: ``Invalid`` when that challenge's `max_age` is not 1*DIGIT within ``maximumMaxAge``, or an `acr_values` or
    ///   `scope` value is not RFC 6749 §3.3 `NQCHAR`s (control characters, `"`, `\`, non-ASCII), or there are more than
    ///   ``maximumValues``; an `insufficient_user_authentication` without `acr_values` and `max_age` asks for nothing.
    public static func from(_ response: HTTPResponse) throws(Invalid) -> StepUpChallenge? {
        guard response.status == 401 || response.status == 403 else { return nil }
        guard let field = response.headers["www-authenticate"], let parsed = try? parseAuthenticationChallenges(field) else { return nil }
        for challenge in parsed where challenge.isScheme("Bearer") || challenge.isScheme("DPoP") {
            guard let error = challenge.parameter("error") else { continue }
            let kind: Kind
            if error.exactlyEquals(Kind.insufficientUserAuthentication.rawValue) {
                kind = .insufficientUserAuthentication
            } else if error.exactlyEquals(Kind.insufficientScope.rawValue) {
                kind = .insufficientScope
            } else {
                continue
            }
            var result = StepUpChallenge(kind: kind)
            result.scope = try values(challenge.parameter("scope"), named: "scope")
            if kind == .insufficientUserAuthentication {
                result.acrValues = try values(challenge.parameter("acr_values"), named: "acr_values")
                result.maxAge = try maxAge(challenge.parameter("max_age"))
                if result.acrValues.isEmpty, result.maxAge == nil {
                    throw Invalid(parameter: "acr_values", problem: "neither acr_values nor max_age is given, so nothing says what to ask for")
                }
            }
            return result
        }
        return nil
    }

    /// Space-separated values, each of RFC 6749 §3.3 `NQCHAR` (%x21 / %x23-5B / %x5D-7E), each kept once in order.
    public static func values(_ raw: String?, named name: String) throws(Invalid) -> [String] {
        guard let raw else { return [] }
        var result: [String] = []
        for piece in raw.utf8.split(separator: UInt8(ascii: " ")) {
            guard piece.allSatisfy({ $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) }) else {
                throw Invalid(parameter: name, problem: "a value holds a character outside RFC 6749 §3.3 NQCHAR")
            }
            let value = String(decoding: piece, as: UTF8.self)
            if !result.containsExactly(value) { result.append(value) }
            guard result.count <= maximumValues else { throw Invalid(parameter: name, problem: "more than \(maximumValues) values") }
        }
        return result
    }

    /// RFC 9470 §3 `max_age`: a non-negative integer (1*DIGIT) of seconds, at most ``maximumMaxAge``.
    public static func maxAge(_ raw: String?) throws(Invalid) -> Int? {
        guard let raw else { return nil }
        let digits = Array(raw.utf8)
        guard !digits.isEmpty, digits.count <= 10, digits.allSatisfy({ (0x30...0x39).contains($0) }),
              let seconds = Int(raw), seconds <= maximumMaxAge else {
            throw Invalid(parameter: "max_age", problem: "not a whole number of seconds from 0 to \(maximumMaxAge)")
        }
        return seconds
    }
}
