import AuthEngine
import FoundationEssentials

extension SignIn {
    /// Stores a grant obtained outside authdeck's own flows, as a sign-in would: for the refresh
    /// storm benchmark, whose 200 accounts come from the bundled provider's `mint-grants` fixture
    /// (`Tests/IdentityProvider`), not from 200 browser sign-ins. The token response is parsed by
    /// the engine (RFC 6749 §5.1), its ID token is required and verified against the provider's
    /// JWKS (OIDC Core §3.1.3.7: signature, `iss`, `aud`, `exp`, `iat`, `at_hash`; no `nonce`, as
    /// there was no authorization request, like the device grant), then ``finish`` stores it.
    /// - Parameters:
    ///   - providerID: a configured provider; the grant must come from its issuer.
    ///   - tokenResponse: the token endpoint's JSON body (`access_token`, `token_type`,
    ///     `expires_in` seconds from now, `refresh_token`, `id_token`, `scope`).
    /// - Returns: the stored account, as ``run(_:progress:)`` returns it.
    /// - Throws: ``AppError``: unknown provider, unusable response, no or a refused ID token, the
    ///   store's errors.
    ///
    /// Benchmark SPI, not the shipped API: only `@_spi(Benchmark) import AppCore` (the storm driver
    /// and its tests) sees it; no module in Sources imports it.
    @_spi(Benchmark) public func adoptGrant(_ providerID: ProviderID, tokenResponse: Data) async throws(AppError) -> SignInOutcome {
        let access = ProviderAccess(env: env)
        let provider = try access.provider(providerID)
        do {
            let metadata = try await access.metadata(provider)
            let client = try access.client(provider, metadata: metadata)
            try env.credentials.prepareForWrite()
            let scopes = ScopeSet(provider.scopes)
            let parsed = try parseTokenResponse(HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: tokenResponse),
                                                now: env.now())
            let tokens = TokenSet(response: parsed, requestedScopes: scopes.values, now: env.now())
            guard let raw = tokens.idToken else {
                throw AppError(title: "The grant has no ID token", detail: "An adopted grant must name its user with an ID token.",
                               specReference: "OIDC Core §3.1.3.3")
            }
            let options = IDTokenValidationOptions(deviceGrantFor: metadata, client: client, tokens: tokens)
            let verified = try await validateIDToken(raw, options: options, crypto: env.crypto, now: env.now(),
                                                     jwksCache: access.jwksCache(provider, metadata: metadata))
            return try await finish(provider: provider, metadata: metadata, client: client, alias: nil,
                                    requestedScopes: scopes, tokens: tokens, idToken: verified)
        } catch {
            throw ErrorMapping.appError(error)
        }
    }
}
