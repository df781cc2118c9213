import AuthEngine
import CredentialStore
import FoundationEssentials
import Synchronization

/// How every use case reaches a provider: its configuration, its discovery metadata and JWK Set
/// (kept in this process and, between processes, in ``AppEnvironment/cache``), and the client
/// configuration with its stored secret. The only place that runs discovery or fetches a JWKS.
///
/// Cache rules (one each):
/// - a document is used while fresh: `Cache-Control: max-age` within
///   ``ProviderDocumentCache/maxAgeBounds``, else ``ProviderDocumentCache/defaultMaxAge``;
/// - a stale document is fetched again; when that fetch fails (outage), the stale one is used,
///   so a discovery or JWKS outage never blocks a refresh whose keys are known;
/// - a token whose `kid` is not in the JWK Set fetches it again — the first one after any fetch
///   always (a rotation is found however soon after a sign-in), later ones at most once per
///   ``unknownKeyCooldown`` (by any process: the cache file says whether a lookup fetched it);
///   a lookup that fails (JWKS 503) changes nothing, so the next refresh tries again.
struct ProviderAccess: Sendable {
    let env: AppEnvironment

    /// Seconds after a lookup for an unknown `kid` during which another unknown `kid` does not
    /// fetch the JWKS again (``JWKSCache/unknownKeyCooldown``).
    static let unknownKeyCooldown: TimeInterval = JWKSCache.defaultUnknownKeyCooldown

    /// Set (task-local) while an ID token is verified with the keys at hand only: a JWKS fetch
    /// is not made but noted (``NetworkRefused/wanted``) and fails; nothing in the cache changes.
    @TaskLocal static var withoutNetwork: NetworkRefused?

    /// What ``withoutNetwork`` records: whether a fetch was wanted.
    final class NetworkRefused: Sendable {
        private let state = Mutex(false)
        var wanted: Bool { state.withLock { $0 } }
        func note() { state.withLock { $0 = true } }
    }

    /// What a provider request for an account needs: its record, provider, metadata and client.
    struct AccountProvider: Sendable {
        var record: AccountRecord
        var provider: ProviderConfig
        var metadata: AuthorizationServerMetadata
        var client: ClientConfiguration
    }

    /// The account `id` with its provider's metadata and client configuration.
    /// - Throws: unknown account or provider, discovery and store errors.
    func account(_ id: AccountID) async throws(AppError) -> AccountProvider {
        try await account(Accounts(env: env).record(id))
    }

    /// `record`'s provider, metadata and client configuration (`record` as the caller read it:
    /// `providers.json` is read once here, `accounts.json` not at all).
    /// - Throws: unknown provider, another issuer, discovery and store errors.
    func account(_ record: AccountRecord) async throws(AppError) -> AccountProvider {
        let provider = try provider(record.providerID)
        let metadata = try await metadata(provider)
        try Self.checkSameIssuer(record, provider: provider, metadata: metadata)
        return AccountProvider(record: record, provider: provider, metadata: metadata, client: try client(provider, metadata: metadata))
    }

    /// No token goes to another issuer than the one that issued it: a provider removed and added
    /// again under the same name with another issuer (or a hand-edited providers.json) does not
    /// receive the account's refresh token, access token or revocation requests.
    /// - Throws: ``AppError`` naming both issuers.
    static func checkSameIssuer(_ record: AccountRecord, provider: ProviderConfig, metadata: AuthorizationServerMetadata) throws(AppError) {
        guard let issuer = record.issuer, !issuer.utf8.elementsEqual(metadata.issuer.utf8) else { return }
        throw AppError(title: "Provider '\(provider.id)' now names another issuer than the one that issued \(record.displayName)'s tokens",
                       detail: "The account was issued by \(issuer); '\(provider.id)' is configured with \(metadata.issuer). Nothing was"
                           + " sent. Restore the provider's configuration, or sign the account out with 'authdeck logout \(record.id)"
                           + " --local-only' and sign in again.",
                       specReference: "RFC 6749 §10.4")
    }

    /// The configured provider `id`.
    /// - Throws: "Unknown provider" naming the configured ones.
    func provider(_ id: ProviderID) throws(AppError) -> ProviderConfig {
        let providers = try env.files.providers()
        guard let provider = providers.first(where: { $0.id == id }) else { throw Self.unknownProvider(id.rawValue, known: providers) }
        return provider
    }

    /// The one "unknown provider" error (sign-in, refresh, the CLI's `login NAME`).
    static func unknownProvider(_ name: String, known providers: [ProviderConfig]) -> AppError {
        if providers.isEmpty {
            return AppError(title: "No provider is configured",
                            detail: "Add one with 'authdeck provider add NAME --issuer URL --client-id ID' (or --preset; see 'authdeck"
                                + " provider add --help').",
                            disposition: .usage)
        }
        let known = providers.map(\.id.rawValue).joined(separator: ", ")
        return AppError(title: "Unknown provider '\(name)'",
                        detail: known.isEmpty ? "No provider is configured; add one with 'authdeck provider add NAME --issuer URL --client-id ID'."
                                              : "Configured providers: \(known).",
                        disposition: .usage)
    }

    /// Discovery metadata (or the manual endpoints) with the provider's overrides applied.
    /// - Throws: discovery errors (mapped), `.unsupported(.missingEndpoint)` without issuer and token endpoint.
    func metadata(_ provider: ProviderConfig) async throws(AppError) -> AuthorizationServerMetadata {
        let now = env.now()
        if let known = env.memo.metadata.withLock({ $0[provider.id] }), known.config == provider, now < known.until { return known.metadata }
        do {
            let endpoints = provider.endpoints
            var metadata: AuthorizationServerMetadata
            if let issuer = provider.issuer {
                metadata = try await discovered(provider, issuer: issuer.absoluteString)
            } else {
                guard let token = endpoints.token else { throw AuthError.unsupported(.missingEndpoint("token_endpoint")) }
                metadata = try .manual(issuer: endpoints.authorization?.absoluteString ?? token.absoluteString,
                                       authorizationEndpoint: endpoints.authorization,
                                       tokenEndpoint: token, jwksURI: endpoints.jwks)
            }
            metadata = try metadata.overriding(
                authorizationEndpoint: endpoints.authorization, tokenEndpoint: endpoints.token, jwksURI: endpoints.jwks,
                revocationEndpoint: endpoints.revocation, introspectionEndpoint: endpoints.introspection,
                deviceAuthorizationEndpoint: endpoints.deviceAuthorization, endSessionEndpoint: endpoints.endSession,
                userinfoEndpoint: endpoints.userinfo)
            let result = metadata
            let memo = ProcessMemo.Metadata(config: provider, metadata: result, until: now.addingTimeInterval(ProcessMemo.metadataLifetime))
            env.memo.metadata.withLock { $0[provider.id] = memo }
            return result
        } catch {
            throw ErrorMapping.appError(error)
        }
    }

    /// The provider's discovery answer read with its settings (OIDC Discovery §4; Entra's
    /// `{tenantid}` issuer only for a provider marked `multiTenantEntra` or a Microsoft login host).
    /// The one reading of a discovery answer: the fetch below, its cache, and the probe of `provider add`.
    /// - Throws: as ``Discovery/processResponse(_:expectedIssuer:requestURL:kind:multiTenantEntra:)``.
    /// The document read with the provider's rules. A provider for a protected resource reads its
    /// server's document from where sign-in found it, with `S256` required and the RFC 9207 `iss`
    /// required on every authorization response whatever the document says.
    static func readDiscovery(_ response: HTTPResponse, provider: ProviderConfig, issuer: String,
                              requestURL: URL) throws(AuthError) -> AuthorizationServerMetadata {
        var metadata = try Discovery.processResponse(response, expectedIssuer: issuer, requestURL: requestURL,
                                                     kind: provider.protectedResource?.discovery ?? .openIDConnect,
                                                     multiTenantEntra: provider.multiTenantEntra ?? false)
        if provider.protectedResource != nil {
            try Discovery.requireS256(metadata)
            metadata.authorizationResponseIssParameterSupported = true
        }
        return metadata
    }

    private func discovered(_ provider: ProviderConfig, issuer: String) async throws(AuthError) -> AuthorizationServerMetadata {
        var request = try Discovery.makeRequest(issuer: issuer, kind: provider.protectedResource?.discovery ?? .openIDConnect)
        // Found through a resource: no redirect followed (a redirect to another host is a mix-up).
        if provider.protectedResource != nil { request.followRedirects = false }
        let url = request.url.absoluteString
        let now = env.now()
        let cached = env.cache.load(provider.id, .discovery).flatMap { $0.url == url ? $0 : nil }
        func fromCache(_ document: CachedDocument) -> AuthorizationServerMetadata? {
            let response = HTTPResponse(status: 200, headers: ["content-type": "application/json"], body: Data(document.body.utf8))
            return try? Self.readDiscovery(response, provider: provider, issuer: issuer, requestURL: request.url)
        }
        if let cached, cached.isFresh(at: now), let metadata = fromCache(cached) { return metadata }
        let response: HTTPResponse
        do {
            response = try await env.http(provider).send(request)
        } catch {
            if let cached, error != .cancelled, let metadata = fromCache(cached) { return metadata }
            throw .transport(error)
        }
        if response.status >= 500, let cached, let metadata = fromCache(cached) { return metadata }
        let metadata = try Self.readDiscovery(response, provider: provider, issuer: issuer, requestURL: request.url)
        env.cache.save(provider.id, CachedDocument(
            kind: .discovery, url: url, body: String(decoding: response.body, as: UTF8.self), fetchedAt: now,
            maxAgeSeconds: ProviderDocumentCache.freshness(cacheControl: response.headers["cache-control"])))
        return metadata
    }

    /// The provider's JWKS cache for this process, seeded from the document cache.
    func jwksCache(_ provider: ProviderConfig, metadata: AuthorizationServerMetadata) -> JWKSCache {
        env.memo.jwks.withLock { caches in
            if let known = caches[provider.id], known.config == provider, known.jwksURI == metadata.jwksURI { return known.cache }
            let cache = makeJWKSCache(provider, metadata: metadata)
            caches[provider.id] = ProcessMemo.JWKS(config: provider, jwksURI: metadata.jwksURI, cache: cache)
            return cache
        }
    }

    private func makeJWKSCache(_ provider: ProviderConfig, metadata: AuthorizationServerMetadata) -> JWKSCache {
        let env = self.env
        let url = metadata.jwksURI?.absoluteString ?? ""
        // A copy dated in the future (the clock was set back) is not trusted as fresh.
        let stored = env.cache.load(provider.id, .jwks).flatMap { $0.url == url && $0.fetchedAt <= env.now() ? $0 : nil }
        let initial = stored.flatMap { document in
            (try? JWKSet(parsing: Data(document.body.utf8))).map {
                JWKSCache.Entry(set: $0, fetchedAt: document.fetchedAt, forKeyLookup: document.forKeyLookup)
            }
        }
        let maximumAge = TimeInterval(stored?.maxAgeSeconds ?? ProviderDocumentCache.defaultMaxAge)
        // An outage keeps the cached keys (JWKSCache); a failed lookup changes nothing, here or in the file.
        return JWKSCache(maximumAge: maximumAge, minimumRefetchAge: Self.unknownKeyCooldown, unknownKeyCooldown: Self.unknownKeyCooldown,
                         initial: initial) {
            (reason: JWKSCache.FetchReason) async throws(AuthError) -> JWKSet in
            if let refused = Self.withoutNetwork {
                refused.note()
                throw .transport(.cancelled)
            }
            let request = try makeJWKSRequest(metadata: metadata)
            let response: HTTPResponse
            do throws(TransportError) { response = try await env.http(provider).send(request) } catch { throw .transport(error) }
            let set = try processJWKSResponse(response, url: request.url)
            env.cache.save(provider.id, CachedDocument(
                kind: .jwks, url: url, body: String(decoding: response.body, as: UTF8.self), fetchedAt: env.now(),
                maxAgeSeconds: ProviderDocumentCache.freshness(cacheControl: response.headers["cache-control"]),
                forKeyLookup: reason == .keyLookup))
            return set
        }
    }

    /// The client configuration: client id, authentication (the stored client secret, or a fresh
    /// `private_key_jwt` assertion signed with the stored key for `metadata`'s server, RFC 7523
    /// §2.2), extra headers and authorization parameters.
    /// - Throws: "No client secret stored" (or no key) for a confidential client without one;
    ///   `private_key_jwt` without `metadata`; store and signing errors.
    func client(_ provider: ProviderConfig, metadata: AuthorizationServerMetadata? = nil) throws(AppError) -> ClientConfiguration {
        var authentication = ClientAuthentication.none
        if provider.clientAuthentication != .none {
            var stored: AccountSecrets?
            do {
                stored = try env.credentials.store().loadIfPresent(.providerClient(provider.id.rawValue))
            } catch {
                throw ErrorMapping.appError(error)
            }
            // Sign in with Apple: mint a fresh client secret before the kept one expires.
            if let source = provider.appleClientSecret { stored = try MintAppleClientSecret(env).renewed(stored, provider: provider, source: source) }
            if provider.clientCredentials?.assertionSource != nil {
                // A federated assertion is read for each token request (``ClientCredentials``), never here.
            } else if provider.clientAuthentication == .privateKeyJWT {
                authentication = .clientAssertion(try ClientKeys(env).assertion(stored, provider: provider, metadata: metadata))
            } else {
                guard let secret = stored?.clientSecret else {
                    throw AppError(title: "No client secret stored for '\(provider.id)'",
                                   detail: "Store it with 'authdeck provider add \(provider.id) … --client-secret-stdin'.")
                }
                let clientSecret = ClientSecret(secret.exposedValue)
                authentication = provider.clientAuthentication == .clientSecretBasic
                    ? .clientSecretBasic(clientSecret) : .clientSecretPost(clientSecret)
            }
        }
        var client = ClientConfiguration(
            clientID: provider.clientID, authentication: authentication,
            extraHeaders: provider.extraHeaders.sorted { $0.key < $1.key }.map { HTTPHeader($0.key, $0.value) },
            extraAuthorizationParameters: provider.extraAuthorizationParameters.sorted { $0.key < $1.key }.map { FormParameter($0.key, $0.value) })
        client.additionalTrustedAudiences = Set(provider.additionalTrustedAudiences ?? [])
        client.multiTenantEntra = provider.multiTenantEntra ?? false
        return client
    }
}
