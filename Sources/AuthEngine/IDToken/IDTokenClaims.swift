import FoundationEssentials

/// The claims of an ID token (OIDC Core §2, RFC 7519 §4.1), typed where the engine checks
/// them; every claim (including these) is also kept in ``all`` for display.
public struct IDTokenClaims: Sendable, Equatable {
    /// `iss`.
    public var issuer: String
    /// `sub`: non-empty, case-sensitive.
    public var subject: String
    /// `aud`: a string or an array of strings, normalised to an array.
    public var audience: [String]
    /// `exp` (NumericDate).
    public var expiresAt: Date
    /// `iat`.
    public var issuedAt: Date
    /// `nbf`.
    public var notBefore: Date?
    /// `auth_time`.
    public var authTime: Date?
    /// `nonce`.
    public var nonce: String?
    /// `azp`.
    public var authorizedParty: String?
    /// `at_hash`.
    public var accessTokenHash: String?
    /// `acr`.
    public var authenticationContextClassReference: String?
    /// `amr`.
    public var authenticationMethodsReferences: [String]?
    /// `tid` (Microsoft Entra tenant id).
    public var tenantID: String?
    /// Every claim as sent.
    public var all: [String: JSONValue]

    /// Reads the claims of a JWT payload.
    /// - Throws: `.protocolViolation(.malformedJWT / .duplicateMember / .missingClaim / .invalidClaim)`
    ///   (two `sub` claims are refused, RFC 7519 §4).
    public init(payload: Data) throws(AuthError) {
        let object: [String: JSONValue]
        switch parseJSONObject(payload) {
        case .success(let parsed): object = parsed
        case .failure(.duplicateMember(let name)): throw .protocolViolation(.duplicateMember(name: name, context: "JWT claims"))
        case .failure(.malformed): throw .protocolViolation(.malformedJWT(reason: "the payload is not a JSON object"))
        }
        func string(_ name: String) throws(AuthError) -> String? {
            guard let value = object.member(name) else { return nil }
            guard let text = value.stringValue else { throw .protocolViolation(.invalidClaim(name: name, expected: "a string")) }
            return text
        }
        func date(_ name: String) throws(AuthError) -> Date? {
            guard let value = object.member(name) else { return nil }
            guard let seconds = value.numberValue, seconds.isFinite else {
                throw .protocolViolation(.invalidClaim(name: name, expected: "a NumericDate number"))
            }
            return Date(timeIntervalSince1970: seconds)
        }
        guard let issuer = try string("iss") else { throw .protocolViolation(.missingClaim("iss")) }
        guard let subject = try string("sub") else { throw .protocolViolation(.missingClaim("sub")) }
        guard !subject.isEmpty else { throw .protocolViolation(.invalidClaim(name: "sub", expected: "a non-empty string")) }
        switch object.member("aud") {
        case .none: throw .protocolViolation(.missingClaim("aud"))
        case .some(.string(let single)): audience = [single]
        case .some(.array(let values)):
            let strings = values.compactMap(\.stringValue)
            guard !strings.isEmpty, strings.count == values.count else {
                throw .protocolViolation(.invalidClaim(name: "aud", expected: "a string or a non-empty array of strings"))
            }
            audience = strings
        default: throw .protocolViolation(.invalidClaim(name: "aud", expected: "a string or a non-empty array of strings"))
        }
        guard let expiresAt = try date("exp") else { throw .protocolViolation(.missingClaim("exp")) }
        guard let issuedAt = try date("iat") else { throw .protocolViolation(.missingClaim("iat")) }
        self.issuer = issuer
        self.subject = subject
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
        notBefore = try date("nbf")
        authTime = try date("auth_time")
        nonce = try string("nonce")
        authorizedParty = try string("azp")
        accessTokenHash = try string("at_hash")
        authenticationContextClassReference = try string("acr")
        authenticationMethodsReferences = object.member("amr")?.arrayValue?.compactMap(\.stringValue)
        tenantID = try string("tid")
        all = object
    }
}
