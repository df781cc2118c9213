import AuthEngine
import FoundationEssentials

/// What one refresh (RFC 6749 §6) changed, kept with the account's non-secret metadata
/// (``AccountRecord/lastRefreshChanges``, `accounts.json`) and shown by the accounts screen
/// ("Changed on the last refresh"), `authdeck status --changes` and `status --json`
/// (`lastRefreshChanges`). Decided once, by ``between(_:_:resource:refreshTokenRotated:)``,
/// inside ``RefreshAccount``'s last write. Never a token: the refresh token's rotation is a yes
/// or no, claim values are kept short (``valueLimit``) and escaped when shown.
public struct RefreshChanges: Equatable, Sendable {
    /// One claim of a token that was added, removed or whose value changed.
    public struct ClaimChange: Equatable, Sendable {
        public enum Kind: String, Equatable, Sendable { case added, removed, changed }
        public var name: String
        public var kind: Kind
        /// The value before and after as compact JSON text, cut to ``RefreshChanges/valueLimit``
        /// characters ("…" when cut); nil when the claim was absent.
        public var before: String?
        public var after: String?
        public init(name: String, kind: Kind, before: String?, after: String?) {
            self.name = name
            self.kind = kind
            self.before = before
            self.after = after
        }
    }

    /// A token whose expiry moved: before and after (nil: no expiry known).
    public struct ExpiryChange: Equatable, Sendable {
        public enum Token: String, Equatable, Sendable {
            case accessToken = "access token", idToken = "ID token", refreshToken = "refresh token"
        }
        public var token: Token
        public var before: Date?
        public var after: Date?
        public init(token: Token, before: Date?, after: Date?) {
            self.token = token
            self.before = before
            self.after = after
        }
    }

    /// When the refresh's answer was received.
    public var refreshedAt: Date
    /// The resource (RFC 8707) of the token refreshed; nil for the default token.
    public var resource: String?
    /// Scopes of the refreshed token granted now and not before, and held before but not now.
    public var scopesAdded: [String] = []
    public var scopesRemoved: [String] = []
    /// The removed scopes that were asked for at sign-in: a refresh asks for the grant's scope
    /// (RFC 6749 §6: an omitted `scope` is the original grant's), so the provider dropped them.
    public var scopesDroppedByProvider: [String] = []
    /// Claims of the verified ID token (only when a new one was verified) and of a JWT access
    /// token (informational, not verified), without those that differ on every token (``perTokenClaims``).
    public var idTokenClaims: [ClaimChange] = []
    public var accessTokenClaims: [ClaimChange] = []
    /// The expiries that moved: the access token's, the ID token's, the refresh token's.
    public var expiries: [ExpiryChange] = []
    /// Whether the provider sent a new refresh token (rotation); nil when the account has none
    /// (a machine account, a grant without one).
    public var refreshTokenRotated: Bool?
    /// Whether the refresh brought a new ID token that verified.
    public var newIDToken = false

    public init(refreshedAt: Date, resource: String? = nil) {
        self.refreshedAt = refreshedAt
        self.resource = resource
    }

    /// The longest claim value kept, in characters: claims can carry personal data, so only a
    /// short form is kept and shown (the token itself, when stored, is in the credential store).
    public static let valueLimit = 40

    /// Claims that differ on every token by design and so say nothing about the grant: times
    /// (RFC 7519 §4.1.4–4.1.6; the expiries are shown apart), the token's own identifier
    /// (`jti`), the sign-in's `nonce` and the hashes binding it to other values (OIDC Core §3.1.3.6, §3.3.2.11).
    public static let perTokenClaims = ["exp", "iat", "nbf", "jti", "nonce", "at_hash", "c_hash", "s_hash"]

    /// Whether nothing but the access token's own expiry and rotation changed.
    public var isRoutine: Bool {
        scopesAdded.isEmpty && scopesRemoved.isEmpty && idTokenClaims.isEmpty && accessTokenClaims.isEmpty
    }

    /// What changed from `old` to `new`, the record before and after a refresh of the token for
    /// `resource` (nil: the default one). `refreshTokenRotated` is decided by the caller, which
    /// holds both refresh tokens (compared code unit for code unit, never kept).
    public static func between(_ old: AccountRecord, _ new: AccountRecord, resource: String?, refreshTokenRotated: Bool?) -> RefreshChanges {
        let oldToken = old.accessTokens.first { $0.resource.exactlyEquals(resource) }
        let newToken = new.accessTokens.first { $0.resource.exactlyEquals(resource) }
        var changes = RefreshChanges(refreshedAt: new.lastRefreshAt ?? newToken?.issuedAt ?? new.signedInAt, resource: resource)
        let before = resource == nil ? old.grantedScopes : oldToken?.scopes ?? []
        let after = resource == nil ? new.grantedScopes : newToken?.scopes ?? []
        changes.scopesAdded = after.filter { !before.containsExactly($0) }
        changes.scopesRemoved = before.filter { !after.containsExactly($0) }
        changes.scopesDroppedByProvider = changes.scopesRemoved.filter { old.requestedScopes.containsExactly($0) }
        if let newIDToken = new.idToken, newIDToken != old.idToken {
            changes.newIDToken = true
            changes.idTokenClaims = claimChanges(old.idToken?.claims, newIDToken.claims)
        }
        changes.accessTokenClaims = claimChanges(jwtClaims(oldToken), jwtClaims(newToken))
        let expiries: [(ExpiryChange.Token, Date?, Date?)] = [
            (.accessToken, oldToken?.expiresAt, newToken?.expiresAt), (.idToken, old.idToken?.expiresAt, new.idToken?.expiresAt),
            (.refreshToken, old.refreshTokenExpiresAt, new.refreshTokenExpiresAt),
        ]
        // Compared in whole seconds, as `accounts.json` keeps them (the new one still has its fraction).
        func second(_ date: Date?) -> Int64? { date.map { Int64($0.timeIntervalSince1970.rounded(.down)) } }
        changes.expiries = expiries.filter { second($0.1) != second($0.2) }.map { ExpiryChange(token: $0.0, before: $0.1, after: $0.2) }
        changes.refreshTokenRotated = refreshTokenRotated
        return changes
    }

    /// The claims of a JWT access token's informational decoding (``AccessTokenInfo/informationalClaims``).
    static func jwtClaims(_ token: AccessTokenInfo?) -> JSONValue? {
        guard case .object(let decoded)? = token?.informationalClaims else { return nil }
        return decoded["claims"]
    }

    /// The top-level claims added, removed or changed (values compared as serialized JSON, byte
    /// for byte), by name; nothing when either side is not a JSON object (no such token before).
    static func claimChanges(_ old: JSONValue?, _ new: JSONValue?) -> [ClaimChange] {
        guard case .object(let before)? = old, case .object(let after)? = new else { return [] }
        let names = Set(before.keys).union(after.keys).filter { !perTokenClaims.containsExactly($0) }.sorted()
        return names.compactMap { name -> ClaimChange? in
            let was = before[name].map(short), now = after[name].map(short)
            switch (before[name], after[name]) {
            case (nil, _?): return ClaimChange(name: name, kind: .added, before: nil, after: now)
            case (_?, nil): return ClaimChange(name: name, kind: .removed, before: was, after: nil)
            case (let a?, let b?) where a.serialized() != b.serialized(): return ClaimChange(name: name, kind: .changed, before: was, after: now)
            default: return nil
            }
        }
    }

    /// A value as compact JSON text, cut to ``valueLimit`` characters.
    static func short(_ value: JSONValue) -> String {
        let text = String(decoding: value.serialized(), as: UTF8.self)
        return text.count <= valueLimit ? text : String(text.prefix(valueLimit - 1)) + "…"
    }
}
