import AuthEngine
import CredentialStore
import FoundationEssentials
import QuickToken

/// A token for scripts (`authdeck token`, `api`, the TUI's copy): the stored one while it stays
/// valid for the asked time, else a refreshed one (``RefreshAccount``, under the lock). The hot
/// path: the account record, one store read, no network.
///
/// Rules: an account marked "needs sign-in" hands out nothing (its grant is gone, its stored
/// token is dead at the provider); an account whose last refresh has an unknown outcome
/// (``AccountRecord/refreshSentAt``: the provider may have rotated the grant and revoked the
/// stored access token) refreshes first instead of handing out the stored token; a `minimumValidity` longer than the token's whole lifetime is
/// reduced to half the lifetime, with a warning, instead of refreshing on every call.
public struct TokenForScripts: Sendable {
    let env: AppEnvironment
    public init(_ env: AppEnvironment) { self.env = env }

    /// A token and what to say about it.
    public struct Issued<Token: Sendable>: Sendable {
        /// The token, redacted until the front end's last step prints or copies it.
        public var value: Token
        /// `Bearer`, or the type the provider named.
        public var tokenType: String
        public var expiresAt: Date?
        /// For stderr with `--min-valid`: a `--min-valid` that had to be reduced, …
        public var warnings: [String]
        /// For stderr always: why the refresh on the way refused its new ID token (the access
        /// token handed out is the refresh's, the previous ID token is kept); nil when none.
        public var refusedIDToken: String? = nil

        public init(value: Token, tokenType: String, expiresAt: Date?, warnings: [String], refusedIDToken: String? = nil) {
            self.value = value
            self.tokenType = tokenType
            self.expiresAt = expiresAt
            self.warnings = warnings
            self.refusedIDToken = refusedIDToken
        }
    }

    /// The access token (default, or for `resource`) valid for at least `minimumValidity`.
    /// `notices`: what a refresh on the way says (``RefreshNotice``).
    /// - Throws: `.needsSignIn` (no account grant, `invalid_grant`), store and refresh errors.
    public func accessToken(_ id: AccountID, minimumValidity: Duration, resource: String? = nil,
                            notices: (@Sendable (RefreshNotice) -> Void)? = nil) async throws(AppError) -> Issued<AccessToken> {
        try await accessToken(Accounts(env: env).record(id), minimumValidity: minimumValidity, resource: resource, notices: notices)
    }

    /// ``accessToken(_:minimumValidity:resource:notices:)`` for a record the caller has just read
    /// (`authdeck token` resolves the account from the files it read once): no second read of
    /// `accounts.json` on the hot path.
    public func accessToken(_ record: AccountRecord, minimumValidity: Duration, resource: String? = nil,
                            notices: (@Sendable (RefreshNotice) -> Void)? = nil) async throws(AppError) -> Issued<AccessToken> {
        let accounts = Accounts(env: env)
        let id = record.id
        if record.needsSignInSince != nil { throw Accounts.needsSignIn(record) }
        var warnings: [String] = []
        var validity = minimumValidity.timeInterval
        if let info = record.accessTokens.first(where: { $0.resource == resource }), let expiresAt = info.expiresAt {
            let lifetime = expiresAt.timeIntervalSince(info.issuedAt)
            if lifetime > 0, validity >= lifetime {
                warnings.append("--min-valid \(Int(validity))s is not less than the token's whole lifetime (\(Int(lifetime))s);"
                    + " using \(Int(lifetime / 2))s")
                validity = lifetime / 2
            }
        }
        let key = Accounts.key(record)
        let store = try env.credentials.store()
        func stored() throws(AppError) -> StoredAccessTokenEntry? {
            do { return try store.load(key).accessToken(for: resource) } catch { throw ErrorMapping.appError(error) }
        }
        func fresh(_ entry: StoredAccessTokenEntry) -> Bool {
            TokenFreshness.isFresh(expiresAt: entry.expiresAt?.timeIntervalSince1970, now: env.now().timeIntervalSince1970, validity: validity)
        }
        if record.refreshSentAt == nil, let entry = try stored(), fresh(entry) {
            return Issued(value: AccessToken(entry.token.exposedValue), tokenType: entry.tokenType ?? "Bearer",
                          expiresAt: entry.expiresAt, warnings: warnings)
        }
        do {
            _ = try await RefreshAccount(env).run(record, resource: resource, minimumValidity: .seconds(validity), force: false, notices: notices)
        } catch {
            // A refresh whose new ID token was refused has already stored the access token of its
            // (answered, settled) token response and kept the previous ID token (`RefreshAccount`):
            // the access token is good, so hand it out and say what was refused.
            guard let latest = try? accounts.record(id), latest.refreshSentAt == nil, latest.needsSignInSince == nil,
                  let problem = latest.idTokenProblem, let entry = try stored(),
                  fresh(entry) else { throw error }
            return Issued(value: AccessToken(entry.token.exposedValue), tokenType: entry.tokenType ?? "Bearer", expiresAt: entry.expiresAt,
                          warnings: warnings, refusedIDToken: "the refreshed ID token was refused (the previous one is kept): \(problem)")
        }
        guard let entry = try stored() else {
            throw AppError(title: "No access token for \(resource ?? "the default resource")", detail: "", disposition: .needsSignIn)
        }
        return Issued(value: AccessToken(entry.token.exposedValue), tokenType: entry.tokenType ?? "Bearer",
                      expiresAt: entry.expiresAt, warnings: warnings)
    }

    /// The ID token (`token --id-token`), refreshed when it expires within `minimumValidity`.
    /// - Throws: `.needsSignIn` when the grant is gone, or when the provider issues no new ID
    ///   token on refresh (OIDC Core §12.2 makes it optional) and the stored one has expired.
    public func idToken(_ id: AccountID, minimumValidity: Duration,
                        notices: (@Sendable (RefreshNotice) -> Void)? = nil) async throws(AppError) -> Issued<RawIDToken> {
        let accounts = Accounts(env: env)
        var record = try accounts.record(id)
        if record.needsSignInSince != nil { throw Accounts.needsSignIn(record) }
        let store = try env.credentials.store()
        func stored() throws(AppError) -> StoredIDToken? {
            do { return try store.load(Accounts.key(record)).idToken } catch { throw ErrorMapping.appError(error) }
        }
        guard try stored() != nil else {
            throw AppError(title: "\(record.displayName) has no ID token", detail: "The provider did not issue one (no openid scope).")
        }
        func fresh(_ record: AccountRecord, for validity: TimeInterval) -> Bool {
            record.idToken?.expiresAt.map { $0.timeIntervalSince(env.now()) > validity } ?? true
        }
        // As for access tokens: never more than half the token's lifetime.
        var validity = minimumValidity.timeInterval
        if let info = record.idToken, let expiresAt = info.expiresAt, let issuedAt = info.issuedAt {
            validity = min(validity, expiresAt.timeIntervalSince(issuedAt) / 2)
        }
        if !fresh(record, for: validity) || record.refreshSentAt != nil {
            let before = try stored()
            record = try await RefreshAccount(env).run(record, force: true, notices: notices)
            // A new ID token is the freshest there can be, however short its life; none means the
            // provider does not issue one on refresh.
            let renewed = try stored().map { new in before.map { !new.exposedValue.utf8.elementsEqual($0.exposedValue.utf8) } ?? true } ?? false
            guard renewed || fresh(record, for: 0) else {
                throw AppError(title: "The ID token of \(record.displayName) has expired",
                               detail: "The provider issued no new ID token on refresh (OIDC Core §12.2 leaves it optional);"
                                   + " sign in again for a fresh one.",
                               disposition: .needsSignIn)
            }
        }
        guard let raw = try stored() else { throw AppError(title: "\(record.displayName) has no ID token") }
        return Issued(value: RawIDToken(raw.exposedValue), tokenType: "id_token", expiresAt: record.idToken?.expiresAt, warnings: [])
    }
}
