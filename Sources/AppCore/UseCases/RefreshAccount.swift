import AuthEngine
import CredentialStore
import Foundation

/// Refreshes an account's access token (RFC 6749 §6), the default one or the one for a
/// `resource` (RFC 8707 §2.2). The rule, in order:
/// 1. take the account's cross-process lock;
/// 2. re-read the stored secrets and record inside it (another process may have rotated them);
/// 3. unless forced, send nothing when the token now stays valid for `minimumValidity`;
/// 4. send the refresh request;
/// 5. persist the rotated refresh token and the new access token at once — the provider has
///    issued them, so they are kept even when the new ID token then fails its checks;
/// 6. verify a new ID token (OIDC Core §12.2); on failure keep the previous one and report;
/// 7. publish (return) the new record.
/// `invalid_grant` is persisted as "needs sign-in" for every process; never retried here.
public struct RefreshAccount: Sendable {
    let env: AppEnvironment
    public init(_ env: AppEnvironment) { self.env = env }

    /// - Parameters:
    ///   - resource: the resource indicator of the token to refresh; nil for the default token.
    ///   - minimumValidity: how long the token must stay valid to skip the request (default:
    ///     the policy's refresh leeway); only when `force` is false.
    ///   - force: always send a request (`authdeck refresh`, `r` in the TUI).
    /// - Returns: the updated record.
    /// - Throws: ``AppError``: `.needsSignIn` (no refresh token, `invalid_grant`), `.transient`, …
    public func run(_ id: AccountID, resource: String? = nil, minimumValidity: Duration? = nil, force: Bool) async throws(AppError) -> AccountRecord {
        let accounts = Accounts(env: env)
        do {
            let account = try await ProviderAccess(env: env).account(id)
            let (record, provider, metadata, client) = (account.record, account.provider, account.metadata, account.client)
            let store = try env.credentials.store()
            let policy = env.policy
            let env = self.env
            return try await store.withAccountLock(Accounts.key(record)) { () async throws -> AccountRecord in
                let key = Accounts.key(record)
                let current = try store.load(key)
                var latest = try accounts.record(id)
                let validity = minimumValidity.map(\.timeInterval) ?? policy.refreshLeeway
                if !force, latest.needsSignInSince == nil, let expiresAt = current.accessToken(for: resource)?.expiresAt,
                   expiresAt.timeIntervalSince(env.now()) > validity {
                    return latest
                }
                guard let tokens = TokenConversions.tokenSet(current, resource: resource, record: latest), tokens.refreshToken != nil else {
                    throw AppError(title: "No refresh token for \(latest.displayName)",
                                   detail: "The provider issued none (ask for the offline_access scope, or check the provider's settings); its access token works until it expires, then sign in again: authdeck login \(latest.providerID).",
                                   disposition: .needsSignIn)
                }
                let request = try makeRefreshTokenRequest(metadata: metadata, client: client, refreshToken: tokens.refreshToken!, resource: resource)
                // RFC 9449 §5: a key-bound grant is refreshed only with a proof from the same (stored) key.
                let dpop = try DPoPAccess.signer(env: env, secrets: current)
                if dpop == nil, tokens.tokenType.equalsIgnoringASCIICase("DPoP") { throw DPoPAccess.keyMissing(latest) }
                let http = dpop.map { env.http(provider).withDPoP($0) } ?? env.http(provider)
                let response: HTTPResponse
                do throws(TransportError) { response = try await http.send(request) } catch { throw AuthError.transport(error) }
                var refreshed = try processRefreshResponse(response, previous: tokens, now: env.now(), dpopProofSent: dpop != nil)
                try DPoP.checkTokenType(refreshed.tokenType, proofSent: dpop != nil, setting: provider.dpop ?? .auto)
                let newIDToken = refreshed.idToken != tokens.idToken ? refreshed.idToken : nil
                refreshed.idToken = tokens.idToken
                // Persist the rotated tokens before anything else can fail.
                var secrets = TokenConversions.merge(refreshed, into: current, resource: resource)
                try store.save(secrets, for: key)
                TokenConversions.apply(refreshed, resource: resource, to: &latest)
                latest.needsSignInSince = nil
                try env.files.saveAccount(latest)
                guard let newIDToken else { return latest }
                do {
                    let verified = try await verifyRefreshedIDToken(newIDToken, original: TokenConversions.storedClaims(current), tokens: refreshed,
                                                                    metadata: metadata, client: client, provider: provider)
                    secrets.idToken = StoredIDToken(newIDToken.exposedValue)
                    try store.save(secrets, for: key)
                    latest.idToken = TokenConversions.idTokenInfo(verified)
                    latest.idTokenProblem = nil
                } catch {
                    // The previous verified ID token stays; the account says why the new one was refused.
                    latest.idTokenProblem = ErrorMapping.appError(error).description
                    try env.files.saveAccount(latest)
                    throw error
                }
                try env.files.saveAccount(latest)
                return latest
            }
        } catch {
            // Only the provider ending the grant (invalid_grant, another identity) is kept for
            // every process; a local condition (no refresh token, a secret not in this store) is
            // reported, never stored.
            if let authError = error as? AuthError, authError.invalidatesGrant { accounts.markNeedsSignIn(id) }
            throw ErrorMapping.appError(error)
        }
    }

    private func verifyRefreshedIDToken(_ raw: RawIDToken, original: IDTokenClaims?, tokens: TokenSet, metadata: AuthorizationServerMetadata,
                                        client: ClientConfiguration, provider: ProviderConfig) async throws(AuthError) -> VerifiedIDToken {
        let options = original.map { IDTokenValidationOptions(refreshOf: $0, metadata: metadata, client: client, tokens: tokens) }
            ?? IDTokenValidationOptions(deviceGrantFor: metadata, client: client, tokens: tokens)
        let verified = try await validateIDToken(raw, options: options, crypto: env.crypto, now: env.now(),
                                                 jwksCache: ProviderAccess(env: env).jwksCache(provider, metadata: metadata))
        if let original { try checkRefreshedIdentity(verified.claims, original: original) }
        return verified
    }
}

extension Duration {
    /// The duration in seconds.
    public var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
