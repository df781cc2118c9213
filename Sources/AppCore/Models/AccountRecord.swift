import AuthEngine
import CredentialStore
import FoundationEssentials

/// The shape of an access token as received (never verified: access tokens are for their API).
public enum AccessTokenFormat: String, Equatable, Sendable {
    /// A compact JWS (RFC 7515, three parts): decoded for information only.
    case jwt
    /// A compact JWE (RFC 7516, five parts): encrypted for its audience; never decoded as a JWS
    /// (Auth0 without `audience`).
    case encrypted
    /// Anything else (not a JWT): only its issuer can read it (introspection).
    case opaque

    /// Classifies a token by its compact serialization: five non-empty dot-separated parts is a
    /// JWE, three that decode as a JWS a JWT, else opaque.
    public static func classify(_ token: String) -> AccessTokenFormat {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 5 && !parts[0].isEmpty { return .encrypted }
        if parts.count == 3, (try? CompactJWS(parsing: token)) != nil { return .jwt }
        return .opaque
    }

    /// "JWT", "encrypted (JWE)", "opaque".
    public var label: String {
        switch self {
        case .jwt: "JWT"
        case .encrypted: "encrypted (JWE)"
        case .opaque: "opaque"
        }
    }
}

/// What is known about one access token (one per resource or audience), without the token.
public struct AccessTokenInfo: Equatable, Sendable {
    /// The RFC 8707 `resource` or Auth0 `audience` it was issued for; `nil` for the default token.
    public var resource: String?
    /// Absolute expiry (from `expires_in` and the clock at receipt); `nil` when the server gave none.
    public var expiresAt: Date?
    /// When it was issued (the clock at receipt); with `expiresAt` gives the lifetime for bars.
    public var issuedAt: Date
    /// `token_type` as received (`Bearer`, `DPoP`).
    public var tokenType: String
    /// Granted scopes for this token (RFC 6749 §5.1 `scope`, or as requested when absent).
    public var scopes: [String]
    /// Decoded JWT header and claims, informational only (access tokens are opaque to clients);
    /// `nil` for an opaque token.
    public var informationalClaims: JSONValue?
    /// JWT, encrypted (JWE) or opaque; nil in records written before it was kept.
    public var format: AccessTokenFormat?

    public init(resource: String? = nil, expiresAt: Date?, issuedAt: Date, tokenType: String = "Bearer", scopes: [String],
                informationalClaims: JSONValue? = nil) {
        self.resource = resource
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
        self.tokenType = tokenType
        self.scopes = scopes
        self.informationalClaims = informationalClaims
    }
}

/// How an ID token was checked (OIDC Core §3.1.3.7).
public enum SignatureStatus: Equatable, Sendable {
    /// Signature and claims verified with this key.
    case verified(algorithm: String, keyID: String?)
    /// Not verified, and why (shown as such; never presented as verified).
    case notVerified(reason: String)
}

/// The ID token's decoded parts for display, after verification.
public struct IDTokenInfo: Equatable, Sendable {
    public var header: JSONValue
    public var claims: JSONValue
    public var signature: SignatureStatus
    public var expiresAt: Date?
    public var issuedAt: Date?
    public init(header: JSONValue, claims: JSONValue, signature: SignatureStatus, expiresAt: Date?, issuedAt: Date?) {
        self.header = header
        self.claims = claims
        self.signature = signature
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
    }
}

/// One signed-in account's non-secret metadata (JSON under `$XDG_STATE_HOME/authdeck`, mapped in
/// `AccountRecord+JSON.swift`). The
/// tokens themselves live only in the credential store.
public struct AccountRecord: Equatable, Sendable, Identifiable {
    public var id: AccountID
    public var providerID: ProviderID
    public var issuer: String?
    /// `sub` (OIDC Core §2), or the provider's user id for non-OIDC providers (GitHub).
    public var subject: String
    public var displayName: String
    public var username: String?
    public var email: String?
    /// `email_verified` and Apple's `is_private_email` from the sign-in that sent the email (a
    /// boolean, or for `ProviderConfig.booleanStringClaims` also the string "true"/"false").
    public var emailVerified: Bool?
    public var isPrivateEmail: Bool?
    /// The name given with `--name` at sign-in.
    public var alias: String?
    public var requestedScopes: [String]
    /// Scopes granted with the default access token, and before the last refresh (for the diff).
    public var grantedScopes: [String]
    public var previousGrantedScopes: [String]?
    /// The default access token first, then one per resource / audience.
    public var accessTokens: [AccessTokenInfo]
    public var hasRefreshToken: Bool
    /// `refresh_expires_in` (Keycloak) / `refresh_token_expires_in` (GitHub) as an absolute time.
    public var refreshTokenExpiresAt: Date?
    public var idToken: IDTokenInfo?
    public var signedInAt: Date
    public var lastRefreshAt: Date?
    /// Where the secrets live (`secret-service`, `vault`, `plaintext`, `memory`).
    public var storage: SecretStoreKind
    /// When a refresh learned that the grant is gone (`invalid_grant`: revoked, expired, reused).
    /// Kept in the file so that every process (the TUI, `status`) shows "needs sign-in" at once;
    /// cleared by a successful sign-in or refresh.
    /// What the provider's last token response got wrong that was tolerated (a missing
    /// `token_type`, an unusable `expires_in`), one line each; nil when nothing.
    public var tokenWarnings: [String]?
    /// Why the last refreshed ID token was refused (the previous verified one is kept); nil when
    /// the last one verified.
    public var idTokenProblem: String?
    public var needsSignInSince: Date?
    /// Set (under the account lock, in the file) just before a refresh request is sent, cleared
    /// when its answer is handled: when the lock is free and this is still set, the process that
    /// sent it died or gave up waiting, and whether the provider rotated the refresh token is
    /// unknown (`status`: "refresh outcome unknown"; `token` refreshes instead of handing out the
    /// stored access token). Absent in files written before it existed (decodes as nil).
    public var refreshSentAt: Date?

    /// RFC 9449: the RFC 7638 thumbprint of the account's DPoP key (its proofs are sent with every
    /// token request); nil when no key was made. Whether the provider bound the access token to it
    /// is the token's `token_type` (``isSenderConstrained``).
    public var dpopThumbprint: String?
    /// A machine account (RFC 6749 §4.4 client credentials): the client itself, no person; a new
    /// token is another client-credentials request. nil or false: a person's account.
    public var isMachine: Bool?
    /// What the last refresh of the default access token changed (scopes, claims, expiries,
    /// rotation); nil before the first refresh and in files written before it was kept.
    public var lastRefreshChanges: RefreshChanges?
    /// When the last refreshes were answered, oldest first, at most ``recentRefreshesKept`` (the
    /// accounts screen's time line marks them); nil before the first.
    public var recentRefreshes: [Date]?
    public static let recentRefreshesKept = 5

    /// Whether an expired access token can be renewed without a sign-in: a refresh token, or a
    /// machine account (a new client-credentials request).
    public var renewable: Bool { hasRefreshToken || isMachine == true }

    /// Whether the provider bound the access token to the key: its `token_type` is `DPoP`
    /// (RFC 9449 §5), whatever was offered — a proof answered with `Bearer` (Auth0's default for an
    /// API) is not sender-constrained.
    public var isSenderConstrained: Bool {
        dpopThumbprint != nil && (defaultAccessToken?.tokenType.equalsIgnoringASCIICase("DPoP") ?? false)
    }

    /// The issuer shown for the account: nil for a provider configured by endpoints (GitHub: no
    /// issuer, not OpenID Connect), whose record keeps its authorization endpoint in ``issuer``
    /// only for ``ProviderAccess``'s check that tokens go back where they came from.
    public func shownIssuer(provider: ProviderConfig?) -> String? {
        if let provider, provider.issuer == nil { return nil }
        return issuer
    }

    /// The granted scopes as a line of text, or what an empty grant means (a GitHub App's user
    /// token has no scopes: the app's permissions apply).
    public var grantedScopesText: String {
        guard !grantedScopes.isEmpty else { return "none named by the provider (its own settings decide, as a GitHub App's permissions do)" }
        return grantedScopes.joined(separator: " ")
    }

    /// The key's thumbprint when the access token is bound to it (what `status` and the accounts
    /// screen show as "token binding"); nil for a Bearer token.
    public var boundDPoPThumbprint: String? { isSenderConstrained ? dpopThumbprint : nil }

    public init(id: AccountID, providerID: ProviderID, issuer: String?, subject: String, displayName: String,
                username: String? = nil, email: String? = nil, alias: String? = nil, requestedScopes: [String],
                grantedScopes: [String], previousGrantedScopes: [String]? = nil, accessTokens: [AccessTokenInfo],
                hasRefreshToken: Bool, refreshTokenExpiresAt: Date? = nil, idToken: IDTokenInfo? = nil,
                signedInAt: Date, lastRefreshAt: Date? = nil, storage: SecretStoreKind) {
        self.id = id
        self.providerID = providerID
        self.issuer = issuer
        self.subject = subject
        self.displayName = displayName
        self.username = username
        self.email = email
        self.alias = alias
        self.requestedScopes = requestedScopes
        self.grantedScopes = grantedScopes
        self.previousGrantedScopes = previousGrantedScopes
        self.accessTokens = accessTokens
        self.hasRefreshToken = hasRefreshToken
        self.refreshTokenExpiresAt = refreshTokenExpiresAt
        self.idToken = idToken
        self.signedInAt = signedInAt
        self.lastRefreshAt = lastRefreshAt
        self.storage = storage
    }

    /// The default access token's info (`resource == nil`), if any.
    public var defaultAccessToken: AccessTokenInfo? { accessTokens.first { $0.resource == nil } ?? accessTokens.first }

    /// The default access token's expiry (`defaultAccessToken`), not the earliest of all.
    public var accessTokenExpiresAt: Date? { defaultAccessToken?.expiresAt }

    /// Scopes added and removed by the last refresh (`nil` when there was none).
    public var scopeChange: (added: [String], removed: [String])? {
        guard let previous = previousGrantedScopes else { return nil }
        return (grantedScopes.filter { !previous.contains($0) }, previous.filter { !grantedScopes.contains($0) })
    }
}

extension AccessTokenInfo {
    /// The text for a token sent without `expires_in`: GitHub's OAuth-app tokens do not expire
    /// (they stay valid until revoked; https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps),
    /// elsewhere the expiry is unknown.
    public static func noExpiryText(provider: ProviderConfig?) -> String {
        provider?.revocationStyle == .githubApplicationToken ? "does not expire" : "no expiry given"
    }
}
