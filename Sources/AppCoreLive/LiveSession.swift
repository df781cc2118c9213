import AppCore
import AuthEngine
import AuthEngineLive
import CredentialStore
import CredentialStoreLive
import Foundation
import Synchronization

/// The live session operations behind ``SessionClient``: the engine over libcurl and libcrypto,
/// the loopback listener, the browser, and the credential store. Shared by the TUI and the CLI
/// (no second implementation of any flow).
///
/// Every operation that changes tokens takes the account's cross-process lock, re-reads the
/// store inside it, and persists rotated tokens before it reports success.
public final class LiveSession: Sendable {
    public let files: ConfigFiles
    public let policy: ExpiryPolicy
    let environment: [String: String]
    let now: @Sendable () -> Date
    let crypto: CryptoProvider
    let browser: BrowserLauncher
    /// How long the browser flow waits for the redirect, in seconds (RFC 8252 §8.3: bounded).
    let browserTimeout: Double
    private let selection: Result<StoreSelection, SecretStoreError>
    private let store: (any SecretStore)?
    private let metadataCache = Mutex<[ProviderID: AuthorizationServerMetadata]>([:])
    private let jwksCaches = Mutex<[ProviderID: JWKSCache]>([:])

    /// - Parameters:
    ///   - environment: the process environment (XDG paths, `AUTHDECK_STORE`, `$BROWSER`, …).
    ///   - vaultLimits: Argon2id limits for a new vault (tests use cheaper ones).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment, now: @escaping @Sendable () -> Date = { Date() },
                policy: ExpiryPolicy = .standard, vaultLimits: VaultSecretStore.KDFLimits = .moderate, browserTimeout: Double = 300) {
        self.environment = environment
        self.now = now
        self.policy = policy
        self.browserTimeout = browserTimeout
        let paths = XDGPaths(environment: environment)
        files = ConfigFiles(paths: paths)
        crypto = OpenSSLCrypto.live
        browser = BrowserLauncher(environment: environment)
        do {
            let chosen = try LiveSecretStores.select(environment: environment, configured: files.recordedStore()?.kind)
            if chosen.reason != .environment { try? files.recordStore(chosen) }
            selection = .success(chosen)
            store = LiveSecretStores.make(chosen.kind, paths: paths, environment: environment, vaultLimits: vaultLimits)
        } catch {
            selection = .failure(error)
            store = nil
        }
    }

    /// The backend in use, for the header badge and `status`.
    public var storeInfo: StoreInfo {
        switch selection {
        case .success(let chosen): StoreInfo(backend: chosen.kind.rawValue, isInsecure: chosen.kind.isInsecure)
        case .failure: StoreInfo(backend: "unavailable", isLocked: true)
        }
    }

    func secretStore() throws(AppError) -> any SecretStore {
        switch selection {
        case .success: return store!
        case .failure(let error): throw ErrorMapping.appError(error)
        }
    }

    /// Opens the store once (the vault asks for its passphrase here, before any screen is drawn).
    public func unlock() -> AppError? {
        do {
            _ = try secretStore().listAccounts()
            return nil
        } catch let error as AppError {
            return error
        } catch {
            return ErrorMapping.appError(error)
        }
    }

    // MARK: - The SessionClient

    public var sessionClient: SessionClient {
        SessionClient(
            load: { [self] in load() },
            saveActiveAccount: { [self] id in
                do {
                    try files.saveActiveAccount(id)
                    return .success(id)
                } catch {
                    return .failure(ErrorMapping.appError(error))
                }
            },
            signIn: { [self] request, progress in await signIn(request, progress: progress) },
            refresh: { [self] id, manual in await refresh(id, resource: nil, minimumValidity: nil, force: manual) },
            signOut: { [self] id, options, step in await signOut(id, options: options, step: step) },
            userinfo: { [self] id in await userinfo(id) },
            introspect: { [self] id in await introspect(id) }
        )
    }

    public func load() -> Result<LoadedSnapshot, AppError> {
        do {
            return .success(LoadedSnapshot(
                providers: try files.providers(), accounts: try files.accounts(),
                activeAccountID: try files.activeAccount(), store: storeInfo))
        } catch {
            return .failure(ErrorMapping.appError(error))
        }
    }

    // MARK: - Providers

    func provider(_ id: ProviderID) throws(AppError) -> ProviderConfig {
        let providers: [ProviderConfig]
        do { providers = try files.providers() } catch { throw ErrorMapping.appError(error) }
        guard let provider = providers.first(where: { $0.id == id }) else {
            let known = providers.map(\.id.rawValue).joined(separator: ", ")
            throw AppError(title: "Unknown provider '\(id)'",
                           detail: known.isEmpty ? "No provider is configured; add one with 'authdeck provider add'." : "Configured providers: \(known).")
        }
        return provider
    }

    func http(_ provider: ProviderConfig) -> HTTPClient {
        CurlHTTPClient.live(configuration: CurlHTTPConfiguration(caBundlePath: provider.caBundlePath))
    }

    /// Discovery (cached for this process) with the provider's endpoint overrides applied, or
    /// the manual endpoints of a provider without discovery.
    func metadata(_ provider: ProviderConfig) async throws(AuthError) -> AuthorizationServerMetadata {
        if let cached = metadataCache.withLock({ $0[provider.id] }) { return cached }
        let endpoints = provider.endpoints
        var metadata: AuthorizationServerMetadata
        if let issuer = provider.issuer {
            metadata = try await fetchMetadata(issuer: issuer.absoluteString, http: http(provider))
        } else {
            guard let token = endpoints.token else { throw .unsupported(.missingEndpoint("token_endpoint")) }
            metadata = try .manual(issuer: endpoints.authorization?.absoluteString ?? token.absoluteString, authorizationEndpoint: endpoints.authorization,
                                   tokenEndpoint: token, jwksURI: endpoints.jwks)
        }
        metadata = try metadata.overriding(
            revocationEndpoint: endpoints.revocation, introspectionEndpoint: endpoints.introspection,
            deviceAuthorizationEndpoint: endpoints.deviceAuthorization, endSessionEndpoint: endpoints.endSession,
            userinfoEndpoint: endpoints.userinfo)
        let result = metadata
        metadataCache.withLock { $0[provider.id] = result }
        return result
    }

    func jwksCache(_ provider: ProviderConfig, metadata: AuthorizationServerMetadata) -> JWKSCache {
        jwksCaches.withLock { caches in
            if let cache = caches[provider.id] { return cache }
            let cache = JWKSCache(metadata: metadata, http: http(provider))
            caches[provider.id] = cache
            return cache
        }
    }

    func client(_ provider: ProviderConfig) throws(AppError) -> ClientConfiguration {
        var authentication = ClientAuthentication.none
        if provider.clientAuthentication != .none {
            let stored: AccountSecrets?
            do { stored = try secretStore().loadIfPresent(.providerClient(provider.id.rawValue)) } catch { throw ErrorMapping.appError(error) }
            guard let secret = stored?.clientSecret else {
                throw AppError(title: "No client secret stored for '\(provider.id)'",
                               detail: "Store it with 'authdeck provider add \(provider.id) … --client-secret-stdin'.")
            }
            let clientSecret = ClientSecret(secret.exposedValue)
            authentication = provider.clientAuthentication == .clientSecretBasic ? .clientSecretBasic(clientSecret) : .clientSecretPost(clientSecret)
        }
        return ClientConfiguration(
            clientID: provider.clientID, authentication: authentication,
            extraHeaders: provider.extraHeaders.sorted { $0.key < $1.key }.map { HTTPHeader($0.key, $0.value) },
            extraAuthorizationParameters: provider.extraAuthorizationParameters.sorted { $0.key < $1.key }.map { FormParameter($0.key, $0.value) })
    }

    /// Stores a provider's client secret (read from stdin by the CLI, never from argv).
    public func saveClientSecret(_ secret: String, for provider: ProviderID) -> AppError? {
        do {
            try secretStore().save(AccountSecrets(clientSecret: StoredClientSecret(secret)), for: .providerClient(provider.rawValue))
            return nil
        } catch let error as AppError {
            return error
        } catch {
            return ErrorMapping.appError(error)
        }
    }

    /// Deletes a provider's stored client secret (absent is not an error); for
    /// `authdeck provider remove`, so no secret outlives its provider.
    public func removeClientSecret(for provider: ProviderID) -> AppError? {
        do {
            try secretStore().delete(.providerClient(provider.rawValue))
            return nil
        } catch let error as AppError {
            return error
        } catch {
            return ErrorMapping.appError(error)
        }
    }

    // MARK: - Accounts

    func record(_ id: AccountID) throws(AppError) -> AccountRecord {
        let accounts: [AccountRecord]
        do { accounts = try files.accounts() } catch { throw ErrorMapping.appError(error) }
        guard let record = accounts.first(where: { $0.id == id }) else {
            throw AppError(title: "Unknown account '\(id)'", detail: "See 'authdeck status' for the signed-in accounts.")
        }
        return record
    }

    static func key(_ record: AccountRecord) -> AccountKey {
        AccountKey(provider: record.providerID.rawValue, account: record.subject)
    }

    // MARK: - Sign-in

    public func signIn(_ request: SignInRequest, progress: @escaping @Sendable (SignInProgress) -> Void) async -> Result<AccountRecord, AppError> {
        do {
            let provider = try provider(request.providerID)
            progress(.discovering)
            let metadata = try await metadataOrThrow(provider)
            let client = try client(provider)
            var scopes = provider.scopes
            // `--scope 'openid evil'` is two scopes (RFC 6749 §3.3: space-delimited); none repeats.
            for scope in request.extraScopes.flatMap({ $0.split(whereSeparator: \.isWhitespace).map(String.init) }) where !scopes.contains(scope) {
                scopes.append(scope)
            }
            let audience = request.audience ?? provider.audience
            let resources = request.resources.isEmpty ? provider.resources : request.resources
            let tokens: TokenSet
            let verified: VerifiedIDToken?
            switch request.flow {
            case .browser:
                (tokens, verified) = try await browserFlow(provider: provider, metadata: metadata, client: client, scopes: scopes,
                                                           audience: audience, resources: resources, noBrowser: request.noBrowser, progress: progress)
            case .device:
                (tokens, verified) = try await deviceFlow(provider: provider, metadata: metadata, client: client, scopes: scopes, progress: progress)
            }
            progress(.verifying)
            return .success(try await finishSignIn(provider: provider, metadata: metadata, client: client, request: request,
                                                   requestedScopes: scopes, tokens: tokens, idToken: verified))
        } catch {
            return .failure(ErrorMapping.appError(error))
        }
    }

    func metadataOrThrow(_ provider: ProviderConfig) async throws(AppError) -> AuthorizationServerMetadata {
        do { return try await metadata(provider) } catch { throw ErrorMapping.appError(error) }
    }

    func browserFlow(provider: ProviderConfig, metadata: AuthorizationServerMetadata, client: ClientConfiguration, scopes: [String],
                     audience: String?, resources: [String], noBrowser: Bool,
                     progress: @escaping @Sendable (SignInProgress) -> Void) async throws -> (TokenSet, VerifiedIDToken?) {
        let listener = try LoopbackRedirectListener(path: "/callback")
        defer { listener.close() }
        let pending = try makeAuthorizationRequest(
            metadata: metadata, client: client,
            request: AuthorizationRequest(scopes: scopes, redirectURI: listener.redirectURI, audience: audience, resources: resources),
            crypto: crypto)
        let opened = noBrowser ? false : await browser.open(pending.authorizationURL)
        progress(.waitingForBrowser(url: pending.authorizationURL, browserOpened: opened))
        let callback = try await listener.waitForCallback(timeout: browserTimeout) { callback in
            decideRedirectCallback(callback, pending: pending, metadata: metadata).verdict
        }
        let validated = try validateAuthorizationResponse(callback: callback, pending: pending, metadata: metadata)
        progress(.exchangingCode)
        let result = try await completeAuthorizationCodeGrant(
            metadata: metadata, client: client, response: validated, http: http(provider), crypto: crypto,
            jwksCache: jwksCache(provider, metadata: metadata), now: now())
        return (result.tokens, result.idToken)
    }

    func deviceFlow(provider: ProviderConfig, metadata: AuthorizationServerMetadata, client: ClientConfiguration, scopes: [String],
                    progress: @escaping @Sendable (SignInProgress) -> Void) async throws -> (TokenSet, VerifiedIDToken?) {
        let http = http(provider)
        let authorization = try await startDeviceAuthorization(metadata: metadata, client: client, scopes: scopes, http: http, now: now())
        let response = authorization.response
        progress(.deviceCode(DeviceCodeDisplay(
            userCode: response.userCode, verificationURI: response.verificationURI, verificationURIComplete: response.verificationURIComplete,
            expiresAt: authorization.expiresAt, interval: Double(response.interval))))
        progress(.devicePending)
        let outcome = try await pollDeviceToken(
            metadata: metadata, client: client, authorization: authorization, http: http, now: now,
            sleep: { seconds in try await Task.sleep(for: .milliseconds(Int(seconds * 1000))) })
        switch outcome {
        case .authorized(let tokens):
            guard let raw = tokens.idToken else { return (tokens, nil) }
            let options = IDTokenValidationOptions(deviceGrantFor: metadata, client: client, tokens: tokens)
            let verified = try await validateIDToken(raw, options: options, crypto: crypto, now: now(), jwksCache: jwksCache(provider, metadata: metadata))
            return (tokens, verified)
        case .denied(let error):
            throw AuthError.errorResponse(error)
        case .expired:
            throw AppError(title: "The device code expired", detail: "Nobody approved the sign-in in time; start it again.",
                           specReference: "RFC 8628 §3.5 expired_token")
        }
    }

    func finishSignIn(provider: ProviderConfig, metadata: AuthorizationServerMetadata, client: ClientConfiguration, request: SignInRequest,
                      requestedScopes: [String], tokens: TokenSet, idToken: VerifiedIDToken?) async throws -> AccountRecord {
        var subject = idToken?.claims.subject
        var claims = idToken?.claims.all ?? [:]
        if subject == nil, metadata.userinfoEndpoint != nil {
            // Plain OAuth 2.0 (no ID token): the identity comes from userinfo when there is one.
            let userinfo = try await fetchUserInfoWithoutIDToken(metadata: metadata, client: client, tokens: tokens, provider: provider)
            subject = userinfo.subject
            claims = userinfo.claims
        }
        guard let subject, !subject.isEmpty else {
            throw AppError(title: "Cannot tell who signed in", detail: "The provider returned no ID token and has no userinfo endpoint.",
                           specReference: "OIDC Core §2")
        }
        let id = AccountID(provider: provider.id, subject: subject)
        let store = try secretStore()
        let key = AccountKey(provider: provider.id.rawValue, account: subject)
        let storage = store.kind.rawValue
        let record = AccountRecord(
            id: id, providerID: provider.id, issuer: metadata.issuer, subject: subject,
            displayName: TokenConversions.displayName(claims, subject: subject),
            // GitHub's `GET /user` (no OIDC) names the user `login` (providers.md).
            username: claims["preferred_username"]?.stringValue ?? claims["login"]?.stringValue, email: claims["email"]?.stringValue, alias: request.alias,
            requestedScopes: requestedScopes, grantedScopes: tokens.grantedScopes,
            accessTokens: [TokenConversions.accessTokenInfo(tokens, resource: nil)], hasRefreshToken: tokens.refreshToken != nil,
            refreshTokenExpiresAt: tokens.refreshExpiresAt, idToken: idToken.map(TokenConversions.idTokenInfo),
            signedInAt: tokens.receivedAt, storage: storage)
        try await store.withAccountLock(key) { () async throws -> Void in
            // Persist the secrets first, then the metadata that points at them.
            try store.save(TokenConversions.merge(tokens, into: AccountSecrets(), resource: nil), for: key)
            try files.saveAccount(record)
            // The first account (or one replacing a vanished active account) becomes active.
            let active = try files.activeAccount()
            let accounts = try files.accounts()
            if active == nil || !accounts.contains(where: { $0.id == active }) { try files.saveActiveAccount(id) }
        }
        return record
    }

    func fetchUserInfoWithoutIDToken(metadata: AuthorizationServerMetadata, client: ClientConfiguration, tokens: TokenSet,
                                     provider: ProviderConfig) async throws -> (subject: String, claims: [String: JSONValue]) {
        let request = try makeUserInfoRequest(metadata: metadata, client: client, accessToken: tokens.accessToken)
        let response: HTTPResponse
        do { response = try await http(provider).send(request) } catch { throw AuthError.transport(error) }
        guard response.status == 200, let claims = try? JSONDecoder().decode([String: JSONValue].self, from: response.body),
              let subject = claims["sub"]?.stringValue ?? claims["id"].map({ value -> String in
                  if case .number(let n) = value { return String(Int(n)) }
                  return value.stringValue ?? ""
              }) else {
            throw AppError(title: "Userinfo did not identify the account", detail: "HTTP \(response.status)", specReference: "OIDC Core §5.3.2")
        }
        return (subject, claims)
    }

    // MARK: - Refresh and tokens

    /// Refreshes the account's access token (the default one, or the one for `resource`), under
    /// the account's cross-process lock. When another process refreshed while this one waited for
    /// the lock, and the token now stays valid for `minimumValidity` seconds (default: the
    /// policy's leeway), nothing is sent: one refresh request per expiry, never a reused refresh
    /// token (rotation with reuse detection revokes the whole grant).
    public func refresh(_ id: AccountID, resource: String?, minimumValidity: Double?, force: Bool = true) async -> Result<AccountRecord, AppError> {
        do {
            var record = try record(id)
            let provider = try provider(record.providerID)
            let store = try secretStore()
            let key = Self.key(record)
            let metadata = try await metadataOrThrow(provider)
            let client = try client(provider)
            record = try await store.withAccountLock(key) { () async throws -> AccountRecord in
                // Re-read inside the lock: another process may have rotated the tokens already.
                let current = try store.load(key)
                var latest = try self.record(id)
                let validity = minimumValidity ?? policy.refreshLeeway
                if !force, let expiresAt = current.accessToken(for: resource)?.expiresAt, expiresAt.timeIntervalSince(now()) > validity {
                    return latest
                }
                guard let tokens = TokenConversions.tokenSet(current, resource: resource, record: latest), tokens.refreshToken != nil else {
                    throw AppError(title: "No refresh token for \(latest.displayName)", detail: "Sign in again.", disposition: .needsSignIn)
                }
                let result = try await refreshTokens(
                    metadata: metadata, client: client, tokens: tokens, originalIDToken: TokenConversions.storedClaims(current),
                    resource: resource, http: http(provider), crypto: crypto, jwksCache: jwksCache(provider, metadata: metadata), now: now())
                // Persist the rotated tokens before anyone is told.
                try store.save(TokenConversions.merge(result.tokens, into: current, resource: resource), for: key)
                let info = TokenConversions.accessTokenInfo(result.tokens, resource: resource)
                latest.accessTokens.removeAll { $0.resource == resource }
                latest.accessTokens.append(info)
                latest.accessTokens.sort { ($0.resource ?? "") < ($1.resource ?? "") }
                if resource == nil {
                    latest.previousGrantedScopes = latest.grantedScopes
                    latest.grantedScopes = result.tokens.grantedScopes
                }
                latest.hasRefreshToken = true
                if let refreshExpiresAt = result.tokens.refreshExpiresAt { latest.refreshTokenExpiresAt = refreshExpiresAt }
                if let verified = result.idToken { latest.idToken = TokenConversions.idTokenInfo(verified) }
                latest.lastRefreshAt = result.tokens.receivedAt
                latest.needsSignInSince = nil
                try files.saveAccount(latest)
                return latest
            }
            return .success(record)
        } catch {
            let appError = ErrorMapping.appError(error)
            if appError.disposition == .needsSignIn, var record = try? self.record(id), record.needsSignInSince == nil {
                // Every process sees it from now on (status exits 3, the TUI shows "needs sign-in").
                record.needsSignInSince = now()
                try? files.saveAccount(record)
            }
            return .failure(appError)
        }
    }

    /// A token for scripts (`authdeck token`): the stored one when it stays valid for
    /// `minimumValidity` seconds, else a refreshed one (under the lock).
    public func accessToken(_ id: AccountID, minimumValidity: Double, resource: String?) async -> Result<(token: AccessToken, expiresAt: Date?), AppError> {
        do {
            let record = try record(id)
            let store = try secretStore()
            let key = Self.key(record)
            if let entry = try store.load(key).accessToken(for: resource),
               entry.expiresAt.map({ $0.timeIntervalSince(now()) > minimumValidity }) ?? true {
                return .success((AccessToken(entry.token.exposedValue), entry.expiresAt))
            }
            _ = try await refresh(id, resource: resource, minimumValidity: minimumValidity, force: false).get()
            guard let entry = try store.load(key).accessToken(for: resource) else {
                throw AppError(title: "No access token for \(resource ?? "the default resource")", disposition: .needsSignIn)
            }
            return .success((AccessToken(entry.token.exposedValue), entry.expiresAt))
        } catch {
            return .failure(ErrorMapping.appError(error))
        }
    }

    /// The stored ID token (for `authdeck token --id-token`).
    public func idToken(_ id: AccountID) -> Result<RawIDToken, AppError> {
        do {
            let record = try record(id)
            guard let raw = try secretStore().load(Self.key(record)).idToken else {
                throw AppError(title: "\(record.displayName) has no ID token", detail: "The provider did not issue one (no openid scope).")
            }
            return .success(RawIDToken(raw.exposedValue))
        } catch {
            return .failure(ErrorMapping.appError(error))
        }
    }

    // MARK: - On request

    public func userinfo(_ id: AccountID) async -> Result<JSONValue, AppError> {
        do {
            let record = try record(id)
            let provider = try provider(record.providerID)
            let metadata = try await metadataOrThrow(provider)
            let token = try await accessToken(id, minimumValidity: 10, resource: nil).get().token
            let response = try await fetchUserInfo(metadata: metadata, client: try client(provider), accessToken: token,
                                                   expectedSubject: record.subject, http: http(provider), now: now())
            return .success(.object(response.claims))
        } catch {
            return .failure(ErrorMapping.appError(error))
        }
    }

    public func introspect(_ id: AccountID) async -> Result<JSONValue, AppError> {
        do {
            let record = try record(id)
            let provider = try provider(record.providerID)
            let metadata = try await metadataOrThrow(provider)
            guard let entry = try secretStore().load(Self.key(record)).defaultAccessToken else {
                throw AppError(title: "No access token stored", disposition: .needsSignIn)
            }
            let response = try await introspectToken(metadata: metadata, client: try client(provider),
                                                     token: .accessToken(AccessToken(entry.token.exposedValue)), http: http(provider), now: now())
            return .success(.object(response.all))
        } catch {
            return .failure(ErrorMapping.appError(error))
        }
    }

    // MARK: - Sign-out

    /// Revokes (refresh token, then access token, RFC 7009), optionally ends the provider session
    /// (RP-Initiated Logout 1.0, through the browser and a loopback listener), then deletes the
    /// local secrets — unless revocation failed and the user asked to keep them.
    /// - Returns: whether the account was removed locally.
    public func signOut(_ id: AccountID, options: SignOutOptions, step: @escaping @Sendable (SignOutStepResult) -> Void) async -> Bool {
        let record: AccountRecord
        let store: any SecretStore
        do {
            record = try self.record(id)
            store = try secretStore()
        } catch {
            step(SignOutStepResult(.deleteLocalSecrets, .failed(ErrorMapping.appError(error))))
            return false
        }
        let key = Self.key(record)
        let secrets = (try? store.loadIfPresent(key)) ?? nil
        var revocationFailed = false
        var provider: (metadata: AuthorizationServerMetadata, client: ClientConfiguration)?
        if options.localOnly {
            step(SignOutStepResult(.revokeRefreshToken, .skipped("--local-only")))
        } else if let secrets, let tokens = TokenConversions.tokenSet(secrets, resource: nil, record: record) {
            do {
                let config = try self.provider(record.providerID)
                let metadata = try await metadataOrThrow(config)
                let client = try client(config)
                provider = (metadata, client)
                revocationFailed = await revoke(tokens: tokens, metadata: metadata, client: client, provider: config, step: step)
            } catch {
                revocationFailed = true
                step(SignOutStepResult(.revokeRefreshToken, .failed(ErrorMapping.appError(error))))
            }
        }
        if revocationFailed && options.keepSecretsIfRevocationFails {
            step(SignOutStepResult(.deleteLocalSecrets, .skipped("kept: revocation failed and you asked to keep them")))
            return false
        }
        // Local secrets go before the (browser, possibly slow) end of the provider session, so an
        // interrupted sign-out never leaves revoked tokens behind as if they were valid.
        do {
            try await store.withAccountLock(key) { () async throws -> Void in
                try store.delete(key)
                try files.removeAccount(id)
                if try files.activeAccount() == id { try files.saveActiveAccount(nil) }
            }
            step(SignOutStepResult(.deleteLocalSecrets, .done("deleted from \(store.kind.rawValue)")))
        } catch {
            step(SignOutStepResult(.deleteLocalSecrets, .failed(ErrorMapping.appError(error))))
            return false
        }
        if options.endSession, let provider {
            await endSession(metadata: provider.metadata, client: provider.client, step: step)
        }
        return true
    }

    /// Reports each revocation step; returns whether any failed.
    func revoke(tokens: TokenSet, metadata: AuthorizationServerMetadata, client: ClientConfiguration, provider: ProviderConfig,
                step: @Sendable (SignOutStepResult) -> Void) async -> Bool {
        let report: RevocationReport
        do {
            report = try await revokeTokens(metadata: metadata, client: client, tokens: tokens, http: http(provider), now: now())
        } catch {
            step(SignOutStepResult(.revokeRefreshToken, .skipped("the provider has no revocation endpoint (RFC 7009); tokens stay valid until they expire")))
            return false
        }
        func outcome(_ result: Result<RevocationOutcome, AuthError>) -> (SignOutStepResult.Outcome, Bool) {
            switch result {
            case .success(.revoked): return (.done("revoked"), false)
            case .success(.unsupportedTokenType): return (.skipped("the provider cannot revoke this token type; it expires on its own"), false)
            case .success(.serviceUnavailable):
                return (.failed(AppError(title: "Revocation not confirmed (HTTP 503)", detail: "The token must be assumed still valid.",
                                         specReference: "RFC 7009 §2.2.1", disposition: .transient(retryAfter: nil))), true)
            case .failure(let error): return (.failed(ErrorMapping.appError(error)), true)
            }
        }
        var failed = false
        if let refresh = report.refreshToken {
            let (result, didFail) = outcome(refresh)
            step(SignOutStepResult(.revokeRefreshToken, result))
            failed = failed || didFail
        } else {
            step(SignOutStepResult(.revokeRefreshToken, .skipped("no refresh token")))
        }
        let (result, didFail) = outcome(report.accessToken)
        step(SignOutStepResult(.revokeAccessToken, result))
        return failed || didFail
    }

    /// RP-Initiated Logout 1.0 through the browser. The URL carries `client_id`,
    /// `post_logout_redirect_uri` and `state`, but no `id_token_hint`: a browser is started with
    /// the URL in its argv, where any local user can read it, and no token goes into argv.
    func endSession(metadata: AuthorizationServerMetadata, client: ClientConfiguration, step: @Sendable (SignOutStepResult) -> Void) async {
        guard metadata.endSessionEndpoint != nil else {
            step(SignOutStepResult(.endSession, .skipped("the provider has no end_session_endpoint")))
            return
        }
        do {
            let listener = try LoopbackRedirectListener(path: "/logout-callback")
            defer { listener.close() }
            let pending = try makeEndSessionRequest(metadata: metadata, client: client, idTokenHint: nil,
                                                    postLogoutRedirectURI: listener.redirectURI, crypto: crypto)
            guard await browser.open(pending.url) else {
                step(SignOutStepResult(.endSession, .skipped("no browser to open the provider's logout page")))
                return
            }
            let callback = try await listener.waitForCallback(timeout: min(browserTimeout, 120)) { callback in
                decideEndSessionCallback(callback, pending: pending).verdict
            }
            try validateEndSessionCallback(callback, pending: pending)
            step(SignOutStepResult(.endSession, .done("provider session ended")))
        } catch let error as LoopbackListenerError {
            let appError: AppError = switch error {
            case .timedOut: AppError(title: "The provider's logout page did not redirect back in time",
                                     detail: "Local secrets are already deleted; the provider session may still be open.",
                                     specReference: "RP-Initiated Logout 1.0 §3")
            case .cancelled: AppError(title: "Ending the provider session was cancelled",
                                      detail: "Local secrets are already deleted.", disposition: .cancelled)
            default: ErrorMapping.appError(error)
            }
            step(SignOutStepResult(.endSession, .failed(appError)))
        } catch {
            step(SignOutStepResult(.endSession, .failed(ErrorMapping.appError(error))))
        }
    }
}

extension LiveSession {
    /// The stored tokens of an account, for the Raw tab (shown masked until revealed). Reads the
    /// store only: no refresh, no network.
    public func storedTokens(_ id: AccountID) -> Result<[(label: String, value: String)], AppError> {
        do {
            let record = try record(id)
            let secrets = try secretStore().load(Self.key(record))
            var entries: [(label: String, value: String)] = []
            if let access = secrets.defaultAccessToken { entries.append(("access token", access.token.exposedValue)) }
            for resource in secrets.resourceAccessTokens.keys.sorted() {
                entries.append(("access token (\(resource))", secrets.resourceAccessTokens[resource]!.token.exposedValue))
            }
            if let refresh = secrets.refreshToken { entries.append(("refresh token", refresh.exposedValue)) }
            if let idToken = secrets.idToken { entries.append(("ID token", idToken.exposedValue)) }
            return .success(entries)
        } catch {
            return .failure(ErrorMapping.appError(error))
        }
    }
}

extension LiveSession {
    /// Forgets the vault's derived key in this process and in the key cache: the next command
    /// asks for the passphrase again. Returns false when the store is not a vault.
    public func lockVault() -> Result<Bool, AppError> {
        do {
            guard let vault = try secretStore() as? VaultSecretStore else { return .success(false) }
            vault.forgetKey()
            return .success(true)
        } catch {
            return .failure(ErrorMapping.appError(error))
        }
    }

    /// Re-encrypts the vault under a new passphrase (one atomic rename): the current one from the
    /// usual source, the new one from the file named by `AUTHDECK_NEW_PASSPHRASE_FILE` (0600) or
    /// asked twice on the terminal.
    public func changeVaultPassphrase() -> Result<Bool, AppError> {
        do {
            guard let vault = try secretStore() as? VaultSecretStore else { return .success(false) }
            let source: PassphraseSource = environment["AUTHDECK_NEW_PASSPHRASE_FILE"].map { .file(path: $0) }
                ?? .terminal(prompt: "New vault passphrase: ")
            try vault.changePassphrase(to: source)
            return .success(true)
        } catch {
            return .failure(ErrorMapping.appError(error))
        }
    }
}
