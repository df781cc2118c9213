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
public func makeUserInfoRequest(metadata: AuthorizationServerMetadata, client: ClientConfiguration, accessToken: AccessToken) throws(AuthError) -> HTTPRequest {
    guard let endpoint = metadata.userinfoEndpoint else { throw .unsupported(.missingEndpoint("userinfo_endpoint")) }
    try URLPolicy.requireSecure(endpoint)
    let headers = client.merging([HTTPHeader("Accept", "application/json"), HTTPHeader("Authorization", "Bearer " + accessToken.exposedValue)])
    return HTTPRequest(method: .get, url: endpoint, headers: headers, followRedirects: false)
}

/// Processes a UserInfo response: 401 with `WWW-Authenticate: Bearer error="invalid_token"`
/// (RFC 6750 §3) → `.errorResponse(invalid_token)`; `application/jwt` → unsupported (UI-07);
/// JSON with a `sub` equal to `expectedSubject` (UI-03, UI-04).
/// - Throws: `.errorResponse`, `.httpStatus`, `.unsupported(.signedUserInfo)`,
///   `.protocolViolation(.unexpectedContentType / .malformedJSON / .missingField("sub") / .userInfoSubjectMismatch)`.
public func processUserInfoResponse(_ response: HTTPResponse, expectedSubject: String, now: Date) throws(AuthError) -> UserInfoResponse {
    if let challenge = response.headers["www-authenticate"], response.status == 401 || response.status == 403 {
        throw .errorResponse(OAuthErrorResponse(code: OAuthErrorCode(rawValue: bearerChallengeError(challenge) ?? "invalid_token"),
                                                status: response.status))
    }
    guard (200..<300).contains(response.status) else {
        throw .httpStatus(HTTPStatusFailure(status: response.status, url: "userinfo_endpoint",
                                            retryAfter: parseRetryAfter(response.headers["retry-after"], now: now)))
    }
    if response.mediaType == "application/jwt" { throw .unsupported(.signedUserInfo) }
    guard response.mediaType == "application/json" else {
        throw .protocolViolation(.unexpectedContentType(expected: "application/json", actual: response.mediaType))
    }
    let object = try readJSONObject(response.body, context: "UserInfo response")
    let subject = try object.requiredString("sub")
    guard subject.exactlyEquals(expectedSubject) else {
        throw .protocolViolation(.userInfoSubjectMismatch(expected: expectedSubject, actual: subject))
    }
    return UserInfoResponse(subject: subject, claims: object)
}

/// The `error` attribute of a `WWW-Authenticate: Bearer …` challenge (RFC 6750 §3).
func bearerChallengeError(_ header: String) -> String? {
    guard let range = header.firstRange(of: "error=\"") else { return nil }
    let rest = header[range.upperBound...]
    guard let end = rest.firstIndex(of: "\"") else { return nil }
    return String(rest[..<end])
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
                                            retryAfter: parseRetryAfter(response.headers["retry-after"], now: now)))
    }
    guard response.mediaType == "application/json" else {
        throw .protocolViolation(.unexpectedContentType(expected: "application/json", actual: response.mediaType))
    }
    return try readJSONObject(response.body, context: "UserInfo response")
}
