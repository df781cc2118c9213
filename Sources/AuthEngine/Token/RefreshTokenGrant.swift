import FoundationEssentials

/// The refresh token request (RFC 6749 §6): `grant_type=refresh_token`, `refresh_token`, an
/// optional narrower `scope`, an optional `resource` (RFC 8707 §2.2: one access token per
/// resource), an optional `organization_id` (Logto's organization tokens, scope
/// `urn:logto:scope:organizations`), and client authentication. Never follows redirects.
/// - Throws: `.unsupported(.missingEndpoint("token_endpoint") / .insecureURL / .invalidResourceIndicator)`.
public func makeRefreshTokenRequest(metadata: AuthorizationServerMetadata, client: ClientConfiguration, refreshToken: RefreshToken,
                                    scopes: [String]? = nil, resource: String? = nil,
                                    organizationID: String? = nil) throws(AuthError) -> HTTPRequest {
    guard let endpoint = metadata.tokenEndpoint else { throw .unsupported(.missingEndpoint("token_endpoint")) }
    if let resource { try validateResourceIndicator(resource) }
    var parameters = [FormParameter("grant_type", GrantType.refreshToken.rawValue), FormParameter("refresh_token", refreshToken.exposedValue)]
    if let scopes { parameters.append(FormParameter("scope", scopes.joined(separator: " "))) }
    if let resource { parameters.append(FormParameter("resource", resource)) }
    if let organizationID { parameters.append(FormParameter("organization_id", organizationID)) }
    return try client.makeFormRequest(url: endpoint, parameters: parameters)
}

/// Processes a refresh response into the new ``TokenSet`` (RFC 6749 §6, OIDC Core §12.2):
/// - rotation: a returned `refresh_token` replaces the old one; when none comes back the old
///   one (and its expiry) is kept — never overwritten with an empty value (REF-02/03);
/// - no `id_token` → the previous one is kept (REF-03); a new one must be validated with
///   ``validateRefreshedIDToken(_:original:options:keys:crypto:now:)``;
/// - `scope` absent → the requested narrower scopes, else the previous grant.
/// - Throws: as ``parseTokenResponse(_:url:now:)`` (`invalid_grant` → `.errorResponse`, whose
///   ``AuthError/invalidatesGrant`` is true).
public func processRefreshResponse(_ response: HTTPResponse, previous: TokenSet, requestedScopes: [String]? = nil, now: Date,
                                   dpopProofSent: Bool = false) throws(AuthError) -> TokenSet {
    let parsed = try parseTokenResponse(response, now: now, dpopProofSent: dpopProofSent)
    var tokens = TokenSet(response: parsed, requestedScopes: requestedScopes ?? previous.grantedScopes, now: now)
    if parsed.refreshToken == nil {
        tokens.refreshToken = previous.refreshToken
        tokens.refreshExpiresAt = previous.refreshExpiresAt
    }
    if parsed.idToken == nil { tokens.idToken = previous.idToken }
    return tokens
}

/// Options for a refreshed ID token: like the first one, with `nonce` compared only when
/// present (OIDC Core §12.2, REF-07) and `at_hash` against the new access token.
extension IDTokenValidationOptions {
    public init(refreshOf original: IDTokenClaims, metadata: AuthorizationServerMetadata, client: ClientConfiguration, tokens: TokenSet) {
        self.init(issuer: metadata.issuer, clientID: client.clientID, clientIsPublic: client.isPublic,
                  nonce: original.nonce.map(ExpectedNonce.ifPresent) ?? .none, accessTokenHash: .accessToken(tokens.accessToken),
                  serverAlgorithms: metadata.idTokenSigningAlgValuesSupported)
        trust(client)
    }

    /// Options for the device grant's ID token (RFC 8628 + OIDC Core §3.1.3.7): no nonce was sent.
    public init(deviceGrantFor metadata: AuthorizationServerMetadata, client: ClientConfiguration, tokens: TokenSet) {
        self.init(issuer: metadata.issuer, clientID: client.clientID, clientIsPublic: client.isPublic, nonce: .none,
                  accessTokenHash: .accessToken(tokens.accessToken), serverAlgorithms: metadata.idTokenSigningAlgValuesSupported)
        trust(client)
    }
}

/// OIDC Core §12.2: a refreshed ID token is validated like the first one, and its `iss`,
/// `sub`, `aud` and `azp` must equal the original's (byte for byte; `aud` as a set), an
/// `auth_time` must not be earlier than the original authentication's, and a `nonce`, if present
/// at all, must be the original's (so none is allowed when the original had none).
/// A later `auth_time` is accepted: §12.2 wants the original authentication's time, but providers
/// (django-oauth-toolkit among them) report the user's latest sign-in there, so that signing the
/// same user in elsewhere would otherwise end every older grant. The identity (`iss`, `sub`, `aud`,
/// `azp`) is what protects the account; a time going backwards is still refused.
/// - Throws: everything ``validateIDToken(_:keys:options:crypto:now:)`` throws, plus
///   `.protocolViolation(.refreshedIDTokenIssuerMismatch / .refreshedIDTokenSubjectMismatch /
///   .refreshedIDTokenAudienceMismatch / .refreshedIDTokenAuthorizedPartyMismatch /
///   .refreshedIDTokenAuthTimeMismatch / .nonceMismatch)`.
public func validateRefreshedIDToken(_ raw: RawIDToken, original: IDTokenClaims, options: IDTokenValidationOptions, keys: JWKSet,
                                     crypto: CryptoProvider, now: Date) throws(AuthError) -> VerifiedIDToken {
    let verified = try validateIDToken(raw, keys: keys, options: options, crypto: crypto, now: now)
    try checkRefreshedIdentity(verified.claims, original: original)
    return verified
}

/// A refreshed ID token with keys from `jwksCache` (re-fetched as
/// ``validateIDToken(_:options:crypto:now:jwksCache:)`` says), validated as ``validateRefreshedIDToken(_:original:options:keys:crypto:now:)``
/// says against `original`; without one (a device-flow grant that had no ID token, a plain
/// OAuth grant) it is validated as a device grant's first ID token, with no identity to compare.
/// - Parameter tokens: the refreshed token set (its access token for `at_hash`).
/// - Throws: what the two validations throw.
public func validateRefreshedIDToken(_ raw: RawIDToken, original: IDTokenClaims?, metadata: AuthorizationServerMetadata, client: ClientConfiguration,
                                     tokens: TokenSet, crypto: CryptoProvider, now: Date,
                                     jwksCache: JWKSCache) async throws(AuthError) -> VerifiedIDToken {
    let options = original.map { IDTokenValidationOptions(refreshOf: $0, metadata: metadata, client: client, tokens: tokens) }
        ?? IDTokenValidationOptions(deviceGrantFor: metadata, client: client, tokens: tokens)
    let verified = try await validateIDToken(raw, options: options, crypto: crypto, now: now, jwksCache: jwksCache)
    if let original { try checkRefreshedIdentity(verified.claims, original: original) }
    return verified
}

/// The identity comparison of OIDC Core §12.2 (see ``validateRefreshedIDToken(_:original:options:keys:crypto:now:)``).
/// - Throws: `.protocolViolation(.refreshedIDToken…Mismatch / .nonceMismatch)`.
public func checkRefreshedIdentity(_ claims: IDTokenClaims, original: IDTokenClaims) throws(AuthError) {
    guard claims.issuer.exactlyEquals(original.issuer) else {
        throw .protocolViolation(.refreshedIDTokenIssuerMismatch(expected: original.issuer, actual: claims.issuer))
    }
    guard claims.subject.exactlyEquals(original.subject) else {
        throw .protocolViolation(.refreshedIDTokenSubjectMismatch(expected: original.subject, actual: claims.subject))
    }
    guard claims.audience.allSatisfy({ original.audience.containsExactly($0) }),
          original.audience.allSatisfy({ claims.audience.containsExactly($0) }) else {
        throw .protocolViolation(.refreshedIDTokenAudienceMismatch(expected: original.audience, actual: claims.audience))
    }
    guard claims.authorizedParty.exactlyEquals(original.authorizedParty) else {
        throw .protocolViolation(.refreshedIDTokenAuthorizedPartyMismatch(expected: original.authorizedParty, actual: claims.authorizedParty))
    }
    if let authTime = claims.authTime, let originalAuthTime = original.authTime, authTime < originalAuthTime {
        throw .protocolViolation(.refreshedIDTokenAuthTimeMismatch(expected: originalAuthTime, actual: authTime))
    }
    if let nonce = claims.nonce, !nonce.exactlyEquals(original.nonce ?? "") || original.nonce == nil {
        throw .protocolViolation(.nonceMismatch(expected: original.nonce, actual: nonce))
    }
}
