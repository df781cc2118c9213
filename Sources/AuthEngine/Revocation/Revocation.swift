import FoundationEssentials

/// A token to revoke or introspect, kept redacted.
public enum TokenReference: Sendable, Equatable {
    case accessToken(AccessToken)
    case refreshToken(RefreshToken)

    /// `token_type_hint` (RFC 7009 §2.1, RFC 7662 §2.1).
    public var typeHint: String {
        switch self {
        case .accessToken: "access_token"
        case .refreshToken: "refresh_token"
        }
    }

    var exposedValue: String {
        switch self {
        case .accessToken(let token): token.exposedValue
        case .refreshToken(let token): token.exposedValue
        }
    }
}

/// RFC 7009 §2.1: `POST revocation_endpoint` with `token`, `token_type_hint` and client authentication.
/// - Throws: `.unsupported(.missingEndpoint("revocation_endpoint") / .insecureURL)`.
public func makeRevocationRequest(metadata: AuthorizationServerMetadata, client: ClientConfiguration,
                                  token: TokenReference) throws(AuthError) -> HTTPRequest {
    guard let endpoint = metadata.revocationEndpoint else { throw .unsupported(.missingEndpoint("revocation_endpoint")) }
    return try client.makeFormRequest(url: endpoint, parameters: [
        FormParameter("token", token.exposedValue), FormParameter("token_type_hint", token.typeHint),
    ])
}

/// How a revocation ended (RFC 7009 §2.2, §2.2.1).
public enum RevocationOutcome: Sendable, Equatable {
    /// HTTP 200 (any body, also for unknown or already-invalid tokens): revoked.
    case revoked
    /// `unsupported_token_type`: the server cannot revoke this kind (access tokens at Auth0); it will expire.
    case unsupportedTokenType
    /// HTTP 503: not confirmed; the token must be assumed still valid. Retry after `retryAfter` seconds.
    case serviceUnavailable(retryAfter: TimeInterval?)
}

/// Processes a revocation response.
/// - Throws: `.errorResponse` (e.g. `invalid_client`), `.httpStatus` for other statuses.
public func processRevocationResponse(_ response: HTTPResponse, now: Date) throws(AuthError) -> RevocationOutcome {
    if response.status == 200 { return .revoked }
    let retryAfter = retryDelay(response, now: now)
    var errorBody: OAuthErrorResponse?
    if case .members(let object) = decodeOAuthBody(response) { errorBody = oauthError(in: object, response: response, now: now) }
    if errorBody?.code == .unsupportedTokenType { return .unsupportedTokenType }
    if response.status == 503 { return .serviceUnavailable(retryAfter: retryAfter) }
    if let errorBody { throw .errorResponse(errorBody) }
    throw .httpStatus(HTTPStatusFailure(status: response.status, url: "revocation_endpoint", retryAfter: retryAfter))
}

/// The result of revoking a grant's tokens: the refresh token first, then the access token.
public struct RevocationReport: Sendable, Equatable {
    public var refreshToken: Result<RevocationOutcome, AuthError>?
    public var accessToken: Result<RevocationOutcome, AuthError>

    public init(refreshToken: Result<RevocationOutcome, AuthError>?, accessToken: Result<RevocationOutcome, AuthError>) {
        self.refreshToken = refreshToken
        self.accessToken = accessToken
    }
}
