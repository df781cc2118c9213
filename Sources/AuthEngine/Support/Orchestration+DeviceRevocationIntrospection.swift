import FoundationEssentials

/// Starts the device flow (RFC 8628 §3.1–3.2).
public func startDeviceAuthorization(metadata: AuthorizationServerMetadata, client: ClientConfiguration, scopes: [String],
                                     audience: String? = nil, resources: [String] = [],
                                     http: HTTPClient, now: Date) async throws(AuthError) -> DeviceAuthorization {
    let request = try makeDeviceAuthorizationRequest(metadata: metadata, client: client, scopes: scopes, audience: audience, resources: resources)
    return try processDeviceAuthorizationResponse(try await http.perform(request), metadata: metadata, scopes: scopes, now: now)
}

/// Polls the token endpoint until the device flow ends (RFC 8628 §3.4–3.5), driven by
/// ``nextDevicePollDecision(after:state:now:)``. Time comes from `now`; waiting from `sleep`
/// (seconds), both injected. Cancellation (of the task, or `sleep` throwing) ends with
/// `.transport(.cancelled)`. The returned tokens' ID token, if any, is not validated here: use
/// ``IDTokenValidationOptions/init(deviceGrantFor:client:tokens:)``.
/// - Returns: authorized tokens, a denial, or expiry.
/// - Throws: `.transport(.cancelled)` and the error of a poll that ends the flow (DEV-09).
public func pollDeviceToken(metadata: AuthorizationServerMetadata, client: ClientConfiguration, authorization: DeviceAuthorization,
                            http: HTTPClient, now: @escaping @Sendable () -> Date,
                            sleep: @escaping @Sendable (TimeInterval) async throws -> Void,
                            dpop: DPoPSigner? = nil) async throws(AuthError) -> DeviceFlowOutcome {
    // RFC 9449 §5: every poll carries a fresh proof.
    let http = dpop.map { http.withDPoP($0) } ?? http
    var state = DevicePollingState(authorization: authorization)
    guard var pollAt = state.firstPoll(receivedAt: authorization.receivedAt) else { return .expired }
    let request = try makeDeviceAccessTokenRequest(metadata: metadata, client: client, deviceCode: authorization.response.deviceCode)
    while true {
        let wait = pollAt.timeIntervalSince(now())
        do {
            if wait > 0 { try await sleep(wait) }
            try Task.checkCancellation()
        } catch {
            throw .transport(.cancelled)
        }
        let result: Result<TokenResponse, AuthError>
        do {
            let response = try await http.perform(request)
            result = .success(try parseTokenResponse(response, url: request.url.absoluteString, now: now(), dpopProofSent: dpop != nil))
        } catch {
            if case .transport(.cancelled) = error { throw error }
            result = .failure(error)
        }
        switch nextDevicePollDecision(after: result, state: state, now: now()) {
        case .pollAgain(let at, let next):
            pollAt = at
            state = next
        case .authorized(let response):
            return .authorized(TokenSet(response: response, requestedScopes: authorization.requestedScopes, now: now()))
        case .denied(let error):
            return .denied(error)
        case .expired:
            return .expired
        case .failed(let error):
            throw error
        }
    }
}

/// Revokes a grant's tokens (RFC 7009): the refresh token first (at most providers this also
/// ends the access token), then the access token. Each outcome is reported; nothing throws
/// except a missing `revocation_endpoint` (REV-05: local logout still completes). A token whose
/// `token_type_hint` is not in `revocable` (what the provider revokes: Auth0 only refresh
/// tokens) is not sent: its outcome is `.unsupportedTokenType`, as the server would answer.
public func revokeTokens(metadata: AuthorizationServerMetadata, client: ClientConfiguration, tokens: TokenSet, http: HTTPClient,
                         now: Date, revocable: [String] = ["refresh_token", "access_token"]) async throws(AuthError) -> RevocationReport {
    guard metadata.revocationEndpoint != nil else { throw .unsupported(.missingEndpoint("revocation_endpoint")) }
    func revoke(_ token: TokenReference) async -> Result<RevocationOutcome, AuthError> {
        guard revocable.contains(where: { $0.exactlyEquals(token.typeHint) }) else { return .success(.unsupportedTokenType) }
        do {
            let request = try makeRevocationRequest(metadata: metadata, client: client, token: token)
            return .success(try processRevocationResponse(try await http.perform(request), now: now))
        } catch {
            return .failure(error)
        }
    }
    var refreshResult: Result<RevocationOutcome, AuthError>?
    if let refreshToken = tokens.refreshToken { refreshResult = await revoke(.refreshToken(refreshToken)) }
    let accessResult = await revoke(.accessToken(tokens.accessToken))
    return RevocationReport(refreshToken: refreshResult, accessToken: accessResult)
}

/// Introspects a token (RFC 7662) when the provider has an introspection endpoint.
public func introspectToken(metadata: AuthorizationServerMetadata, client: ClientConfiguration, token: TokenReference, http: HTTPClient,
                            now: Date) async throws(AuthError) -> IntrospectionResponse {
    let request = try makeIntrospectionRequest(metadata: metadata, client: client, token: token)
    return try processIntrospectionResponse(try await http.perform(request), now: now)
}
