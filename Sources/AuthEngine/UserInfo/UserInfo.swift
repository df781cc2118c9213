import FoundationEssentials

/// A UserInfo response (OIDC Core §5.3.2): `sub` plus every claim as sent.
public struct UserInfoResponse: Sendable, Equatable {
    /// `sub`, equal to the ID token's.
    public var subject: String
    /// All claims, for display (absent claims are simply absent, UI-05).
    public var claims: [String: JSONValue]

    public init(subject: String, claims: [String: JSONValue]) {
        self.subject = subject
        self.claims = claims
    }
}

/// `GET userinfo_endpoint` with `Authorization: Bearer <access token>` (OIDC Core §5.3.1,
/// RFC 6750 §2.1); the token never goes in the query. Redirects are not followed.
/// - Throws: `.unsupported(.missingEndpoint("userinfo_endpoint") / .insecureURL)`.
public func makeUserInfoRequest(metadata: AuthorizationServerMetadata, client: ClientConfiguration,
                                accessToken: AccessToken) throws(AuthError) -> HTTPRequest {
    guard let endpoint = metadata.userinfoEndpoint else { throw .unsupported(.missingEndpoint("userinfo_endpoint")) }
    try URLPolicy.requireSecure(endpoint)
    let headers = client.merging([HTTPHeader("Accept", "application/json"), HTTPHeader("Authorization", "Bearer " + accessToken.exposedValue)])
    return HTTPRequest(method: .get, url: endpoint, headers: headers, followRedirects: false)
}

/// Processes a UserInfo response: 401 with `WWW-Authenticate: Bearer error="invalid_token"`
/// (RFC 6750 §3) → `.errorResponse(invalid_token)`; `application/jwt` → unsupported here (it
/// needs the provider's keys: ``verifySignedUserInfo(_:expectedSubject:options:crypto:now:jwksCache:)``,
/// UI-07); JSON whose `subjectClaim` (`sub`, OIDC Core §5.3.2; GitHub's `GET /user`: `id`, read
/// by ``userInfoSubject(_:claim:)``) equals `expectedSubject` (UI-03, UI-04).
/// - Throws: `.errorResponse`, `.httpStatus`, `.unsupported(.signedUserInfo)`,
///   `.protocolViolation(.unexpectedContentType / .malformedJSON / .missingField(subjectClaim) / .userInfoSubjectMismatch)`.
public func processUserInfoResponse(_ response: HTTPResponse, expectedSubject: String, subjectClaim: String = "sub",
                                    now: Date) throws(AuthError) -> UserInfoResponse {
    if response.headers["www-authenticate"] != nil, response.status == 401 || response.status == 403 {
        let error = BearerChallenge.challenges(in: response).challenges.lazy.compactMap(\.error).first
        throw .errorResponse(OAuthErrorResponse(code: OAuthErrorCode(rawValue: error ?? "invalid_token"), status: response.status))
    }
    guard (200..<300).contains(response.status) else {
        throw .httpStatus(HTTPStatusFailure(status: response.status, url: "userinfo_endpoint",
                                            retryAfter: retryDelay(response, now: now)))
    }
    if response.mediaType == "application/jwt" { throw .unsupported(.signedUserInfo) }
    guard response.mediaType == "application/json" else {
        throw .protocolViolation(.unexpectedContentType(expected: "application/json", actual: response.mediaType))
    }
    let object = try readJSONObject(response.body, context: "UserInfo response")
    guard let subject = userInfoSubject(object, claim: subjectClaim) else { throw .protocolViolation(.missingField(subjectClaim)) }
    guard subject.exactlyEquals(expectedSubject) else {
        throw .protocolViolation(.userInfoSubjectMismatch(expected: expectedSubject, actual: subject))
    }
    return UserInfoResponse(subject: subject, claims: object)
}

/// The account's subject in a userinfo answer: the member `claim` as a non-empty string, or as a
/// non-negative integer written in decimal (GitHub's `id`: `5834210`, never `5834210.0`); nil
/// when absent or of another type.
public func userInfoSubject(_ object: [String: JSONValue], claim: String) -> String? {
    switch object.member(claim) {
    case .string(let text) where !text.isEmpty: return text
    case .number(let number) where number >= 0 && number.rounded() == number && number < 9_007_199_254_740_992: return String(Int64(number))
    default: return nil
    }
}

/// The claims of a signed UserInfo response whose signature verified (OIDC Core §5.3.2):
/// `iss` exactly the issuer (Entra `{tenantid}` ← `tid`), `aud` the client id and no untrusted
/// audience, `sub` equal to `expectedSubject`, `exp` (when present) not past.
/// - Throws: `.protocolViolation(.duplicateMember / .malformedJWT / .userInfoIssuerMismatch /
///   .userInfoAudienceMismatch / .missingField("sub") / .userInfoSubjectMismatch / .expired)`.
func checkSignedUserInfoClaims(_ payload: Data, expectedSubject: String, options: IDTokenValidationOptions,
                               now: Date) throws(AuthError) -> UserInfoResponse {
    let object: [String: JSONValue]
    switch parseJSONObject(payload) {
    case .success(let parsed): object = parsed
    case .failure(.duplicateMember(let name)): throw .protocolViolation(.duplicateMember(name: name, context: "signed UserInfo claims"))
    case .failure(.malformed): throw .protocolViolation(.malformedJWT(reason: "the payload is not a JSON object"))
    }
    let issuer = object.member("iss")?.stringValue
    let expectedIssuer = try options.expectedIssuer(tenantID: object.member("tid")?.stringValue)
    guard let issuer, issuer.exactlyEquals(expectedIssuer) else {
        throw .protocolViolation(.userInfoIssuerMismatch(expected: expectedIssuer, actual: issuer))
    }
    let audience: [String] = switch object.member("aud") {
    case .string(let single)?: [single]
    case .array(let values)?: values.count == values.compactMap(\.stringValue).count ? values.compactMap(\.stringValue) : []
    default: []
    }
    guard options.acceptsAudience(audience) else {
        throw .protocolViolation(.userInfoAudienceMismatch(expected: options.clientID, actual: audience))
    }
    let subject = try object.requiredString("sub")
    guard subject.exactlyEquals(expectedSubject) else {
        throw .protocolViolation(.userInfoSubjectMismatch(expected: expectedSubject, actual: subject))
    }
    if let exp = object.member("exp") {
        guard let seconds = exp.numberValue, seconds.isFinite else {
            throw .protocolViolation(.invalidClaim(name: "exp", expected: "a NumericDate number"))
        }
        let expiresAt = Date(timeIntervalSince1970: seconds)
        if now.timeIntervalSince(expiresAt) > options.clampedClockTolerance { throw .protocolViolation(.expired(exp: expiresAt, now: now)) }
    }
    return UserInfoResponse(subject: subject, claims: object)
}

extension UserInfoResponse {
    /// OIDC Core §5.1: `email_verified` is a boolean; the `email` counts as verified only for
    /// JSON `true` (not the string `"true"`, UI-08). Never link accounts by email.
    public var emailIsVerified: Bool { claims["email_verified"] == .bool(true) && claims["email"]?.stringValue != nil }
}

extension IDTokenClaims {
    /// As ``UserInfoResponse/emailIsVerified`` for the ID token's claims.
    public var emailIsVerified: Bool { all["email_verified"] == .bool(true) && all["email"]?.stringValue != nil }
}

/// The claims of a UserInfo-like response whose subject is not yet known (plain OAuth
/// providers such as GitHub's `/user`, where the account id is `sub` or `id`): HTTP 2xx,
/// `application/json`, read with the engine's strict parser (duplicate members refused, as in
/// ``processUserInfoResponse(_:expectedSubject:now:)``).
/// - Throws: `.httpStatus`, `.protocolViolation(.unexpectedContentType / .malformedJSON / .duplicateMember)`.
public func readUserInfoClaims(_ response: HTTPResponse, now: Date) throws(AuthError) -> [String: JSONValue] {
    guard (200..<300).contains(response.status) else {
        throw .httpStatus(HTTPStatusFailure(status: response.status, url: "userinfo_endpoint",
                                            retryAfter: retryDelay(response, now: now)))
    }
    guard response.mediaType == "application/json" else {
        throw .protocolViolation(.unexpectedContentType(expected: "application/json", actual: response.mediaType))
    }
    return try readJSONObject(response.body, context: "UserInfo response")
}
