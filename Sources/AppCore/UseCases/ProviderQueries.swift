import Secrets
import AuthEngine
import CredentialStore
import FoundationEssentials

/// OIDC Core §5.3 userinfo of an account, with a token valid for at least 10 s; its `sub` must
/// equal the account's (§5.3.2). A signed answer (`application/jwt`) is verified with the
/// provider's JWKS (signature, `iss`, `aud`) and its claims are shown.
public struct ShowUserInfo: Sendable {
    let env: AppEnvironment
    public init(_ env: AppEnvironment) { self.env = env }

    public func run(_ id: AccountID) async throws(AppError) -> JSONValue {
        let account = try await ProviderAccess(env: env).account(id)
        let issued = try await TokenForScripts(env).accessToken(id, minimumValidity: .seconds(TokenUse.minimumValidity))
        let token = issued.value
        // RFC 9449 §7.1: a DPoP token goes with a proof (`Authorization: DPoP`), never as Bearer.
        var http = env.http(account.provider)
        if issued.tokenType.equalsIgnoringASCIICase("DPoP") { http = http.withDPoP(try DPoPProof(env).signer(id), accessToken: token) }
        do {
            // OIDC Core §5.3.2: a signed answer is verified with the provider's keys, like an ID token.
            let jwksCache = ProviderAccess(env: env).jwksCache(account.provider, metadata: account.metadata)
            let verifier = SignedUserInfoVerifier(crypto: env.crypto, jwksCache: jwksCache)
            let response = try await fetchUserInfo(metadata: account.metadata, client: account.client, accessToken: token,
                                                   expectedSubject: account.record.subject, subjectClaim: account.provider.subjectClaim ?? "sub",
                                                   http: http, now: env.now(), verifyingSigned: verifier)
            return .object(response.claims)
        } catch {
            throw ErrorMapping.appError(error)
        }
    }
}

/// RFC 7662 introspection of an account's default access token: the members of an active
/// answer, only `{"active": false}` for an inactive one (``IntrospectionResponse/shownMembers(now:)``).
public struct IntrospectAccessToken: Sendable {
    let env: AppEnvironment
    public init(_ env: AppEnvironment) { self.env = env }

    public func run(_ id: AccountID) async throws(AppError) -> JSONValue {
        let account = try await ProviderAccess(env: env).account(id)
        do {
            guard let entry = try env.credentials.store().load(Accounts.key(account.record)).defaultAccessToken else {
                throw AppError(title: "No access token stored", disposition: .needsSignIn)
            }
            // RFC 7662 §2.1: the client authenticates as at the token endpoint (a federated assertion read now).
            let client = try await ClientCredentials(env).authenticated(account.client, provider: account.provider, metadata: account.metadata)
            let response = try await introspectToken(metadata: account.metadata, client: client,
                                                     token: .accessToken(AccessToken(entry.token.exposedValue)),
                                                     http: env.http(account.provider), now: env.now())
            return .object(response.shownMembers(now: env.now()))
        } catch {
            throw BareStatusAdvice.advise(error, at: .introspection(publicClient: account.client.isPublic))
        }
    }
}

/// The stored tokens of an account for the Raw tab (shown masked until revealed): the store only,
/// no refresh, no network.
public struct StoredTokens: Sendable {
    let env: AppEnvironment
    public init(_ env: AppEnvironment) { self.env = env }

    /// One stored token with its label ("access token", "refresh token", "ID token", …).
    public struct Entry: Equatable, Sendable {
        public var label: String
        public var value: Redacted<StoredTokenKind>
        public init(label: String, value: Redacted<StoredTokenKind>) {
            self.label = label
            self.value = value
        }
    }

    public func run(_ id: AccountID) throws(AppError) -> [Entry] {
        let record = try Accounts(env: env).record(id)
        let secrets: AccountSecrets
        do { secrets = try env.credentials.store().load(Accounts.key(record)) } catch { throw ErrorMapping.appError(error) }
        var entries: [Entry] = []
        func add(_ label: String, _ value: String) { entries.append(Entry(label: label, value: Redacted(value))) }
        if let access = secrets.defaultAccessToken { add("access token", access.token.exposedValue) }
        for (resource, entry) in secrets.resourceAccessTokens.sorted(by: { $0.key < $1.key }) {
            add("access token (\(resource))", entry.token.exposedValue)
        }
        if let refresh = secrets.refreshToken { add("refresh token", refresh.exposedValue) }
        if let idToken = secrets.idToken { add("ID token", idToken.exposedValue) }
        return entries
    }
}

/// The kind label of a stored token shown in the Raw tab.
public enum StoredTokenKind: SecretKind {
    public static let label = "StoredToken"
}

/// What a provider's discovery document says (OIDC Discovery 1.0 §3, RFC 8414 §2), for
/// `provider show`: from the process memo or the document cache, else fetched. Configured
/// endpoints are laid over it as sign-in uses them; ``ProviderConfig/endpoints`` says which are
/// configured.
public struct ShowProviderDiscovery: Sendable {
    let env: AppEnvironment
    public init(_ env: AppEnvironment) { self.env = env }

    /// The metadata sign-in would use for `id`; nil for a provider without an issuer (manual
    /// endpoints: nothing to discover).
    /// - Throws: unknown provider; discovery errors (mapped).
    public func run(_ id: ProviderID) async throws(AppError) -> AuthorizationServerMetadata? {
        let access = ProviderAccess(env: env)
        let provider = try access.provider(id)
        guard provider.issuer != nil else { return nil }
        return try await access.metadata(provider)
    }
}
