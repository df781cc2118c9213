import FoundationEssentials

/// The token request of the authorization code grant (RFC 6749 §4.1.3, RFC 7636 §4.5):
/// `POST` form with `grant_type=authorization_code`, `code`, `redirect_uri` (byte-identical to
/// the authorization request), `code_verifier`, and client authentication. Never follows
/// redirects (TOK-13). `resource` only when the pending request names one
/// (``PendingAuthorization/tokenRequestResource``: a provider made for a protected resource);
/// otherwise none (RFC 8707 §2.2 makes it optional): the code's token is the
/// account's default one (Logto: the opaque token userinfo takes; with `resource` it would be that
/// API's JWT), and each resource's token comes from a refresh with `resource`, as Logto's SDKs do.
/// - Throws: `.unsupported(.missingEndpoint / .insecureURL)`.
public func makeAuthorizationCodeTokenRequest(metadata: AuthorizationServerMetadata, client: ClientConfiguration,
                                              response: ValidatedAuthorizationResponse) throws(AuthError) -> HTTPRequest {
    guard let endpoint = metadata.tokenEndpoint else { throw .unsupported(.missingEndpoint("token_endpoint")) }
    var parameters = [
        FormParameter("grant_type", GrantType.authorizationCode.rawValue),
        FormParameter("code", response.code.exposedValue),
        FormParameter("redirect_uri", response.pending.redirectURI),
        FormParameter("code_verifier", response.pending.codeVerifier.exposedValue),
    ]
    if let resource = response.pending.tokenRequestResource {
        try validateResourceIndicator(resource)
        parameters.append(FormParameter("resource", resource))
    }
    return try client.makeFormRequest(url: endpoint, parameters: parameters)
}

/// Processes the code-exchange response into a ``TokenSet`` received at `now`. When `openid`
/// was requested the `id_token` is required (TOK-09); validate it next with
/// ``validateIDToken(_:keys:options:crypto:now:)``.
/// - Throws: as ``parseTokenResponse(_:url:now:)``, plus `.protocolViolation(.missingField("id_token"))`.
public func processAuthorizationCodeResponse(_ response: HTTPResponse, pending: PendingAuthorization, now: Date,
                                             dpopProofSent: Bool = false) throws(AuthError) -> TokenSet {
    let parsed = try parseTokenResponse(response, now: now, dpopProofSent: dpopProofSent)
    if pending.isOpenID && parsed.idToken == nil { throw .protocolViolation(.missingField("id_token")) }
    return TokenSet(response: parsed, requestedScopes: pending.requestedScopes, now: now)
}
