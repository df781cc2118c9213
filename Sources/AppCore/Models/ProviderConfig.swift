import AuthEngine
import FoundationEssentials

/// How the client authenticates at the token endpoint (RFC 6749 §2.3.1). The secret itself
/// lives in the credential store, never in this (non-secret) configuration.
public enum ClientAuthenticationMethod: String, Equatable, Sendable, CaseIterable {
    /// `none`: a public native client (RFC 8252 §8.4).
    case none
    case clientSecretBasic = "client_secret_basic"
    case clientSecretPost = "client_secret_post"
    /// A JWT signed with the client's own key (RFC 7523 §2.2, OIDC Core §9); the key lives in
    /// the credential store under the provider's ``AccountKey/providerClient(_:)`` key.
    case privateKeyJWT = "private_key_jwt"
}

/// How sign-out revokes a provider's tokens.
public enum RevocationStyle: String, Equatable, Sendable, CaseIterable {
    /// RFC 7009 at the revocation endpoint.
    case rfc7009
    /// GitHub: `DELETE {revocation endpoint}/{client_id}/token` with basic auth; the revocation
    /// endpoint override is `https://api.github.com/applications`. Needs the client secret.
    case githubApplicationToken
    /// The provider cannot revoke: local secrets are deleted only.
    case none
}

/// How sign-out ends a provider's browser session.
public enum LogoutStyle: String, Equatable, Sendable, CaseIterable {
    /// OIDC RP-Initiated Logout 1.0 (`end_session_endpoint`) when advertised.
    case endSession
    /// The end-session endpoint when discovery advertises it, else Auth0 `GET {issuer}v2/logout`
    /// with `client_id` and `returnTo`.
    case endSessionOrAuth0V2Logout
    /// RP-Initiated Logout 1.0 §2 without `post_logout_redirect_uri` (nor `state`), for a
    /// provider that compares it exactly with a registered URI (Logto: the loopback listener's
    /// ephemeral port never matches): the logout page is opened and nothing comes back.
    case endSessionWithoutRedirect
    /// No logout page.
    case none
}

/// Endpoints set by hand: for providers without discovery (GitHub) and to fill discovery gaps
/// (django-oauth-toolkit omits revocation, introspection and device endpoints).
public struct EndpointOverrides: Equatable, Sendable {
    public var authorization: URL?
    public var token: URL?
    public var deviceAuthorization: URL?
    public var revocation: URL?
    public var introspection: URL?
    public var userinfo: URL?
    public var endSession: URL?
    public var jwks: URL?
    public init(authorization: URL? = nil, token: URL? = nil, deviceAuthorization: URL? = nil, revocation: URL? = nil,
                introspection: URL? = nil, userinfo: URL? = nil, endSession: URL? = nil, jwks: URL? = nil) {
        self.authorization = authorization
        self.token = token
        self.deviceAuthorization = deviceAuthorization
        self.revocation = revocation
        self.introspection = introspection
        self.userinfo = userinfo
        self.endSession = endSession
        self.jwks = jwks
    }
}

/// A configured identity provider (non-secret; stored as JSON under `$XDG_CONFIG_HOME/authdeck`,
/// mapped in `ProviderConfig+JSON.swift`).
public struct ProviderConfig: Equatable, Sendable, Identifiable {
    public var id: ProviderID
    public var displayName: String
    /// The issuer for OIDC Discovery / RFC 8414; `nil` for manual-endpoint providers (GitHub).
    public var issuer: URL?
    public var clientID: String
    public var clientAuthentication: ClientAuthenticationMethod
    /// Scopes requested at sign-in (space-separated on the wire).
    public var scopes: [String]
    /// Auth0's `audience` parameter.
    public var audience: String?
    /// RFC 8707 `resource` indicators.
    public var resources: [String]
    /// Extra request headers (GitHub: `Accept: application/json`).
    public var extraHeaders: [String: String]
    /// Extra authorization request parameters (Google: `access_type=offline`).
    public var extraAuthorizationParameters: [String: String]
    public var endpoints: EndpointOverrides
    /// A PEM CA bundle trusted for this provider's TLS (private providers).
    public var caBundlePath: String?
    /// The preset this provider was made from (`auth0`, `github`, …), if any.
    public var preset: String?
    /// ID-token claims whose booleans may arrive as the strings "true"/"false" (Sign in with
    /// Apple: `email_verified`, `is_private_email`); nil or absent: JSON booleans only.
    public var booleanStringClaims: [String]?
    /// The unit of numeric timestamp claims by claim name (Logto: `created_at` and `updated_at`
    /// in milliseconds); a claim not named here is read by ``ClaimTime/date(claim:_:provider:)``'s
    /// fallback. nil or absent: none declared.
    public var claimTimeUnits: [String: ClaimTimeUnit]?
    /// Audiences besides `clientID` its ID tokens may name (OIDC Core §3.1.3.7 step 3); nil: none.
    public var additionalTrustedAudiences: [String]?
    /// A multi-tenant Microsoft Entra authority off Microsoft's login hosts (an emulator): the
    /// discovery issuer's `{tenantid}` is the token's `tid`. nil: only for Microsoft login hosts.
    public var multiTenantEntra: Bool?
    /// How sign-out revokes tokens; nil: RFC 7009.
    public var revocationStyle: RevocationStyle?
    /// The token types the provider's revocation endpoint revokes, as RFC 7009 §2.1
    /// `token_type_hint` values (`refresh_token`, `access_token`); the others are not sent and
    /// sign-out says they stay valid until they expire (Auth0: `refresh_token` only). nil: both.
    public var revocableTokens: [String]?
    /// End the provider session with a form the browser POSTs from a page of the loopback
    /// listener, carrying `id_token_hint` (RP-Initiated Logout 1.0 §2: RECOMMENDED; Auth0 asks for
    /// it), so the ID token is in no URL. nil or false: a GET without the hint.
    public var postsIDTokenHint: Bool?
    /// Ask for consent (`prompt=consent`, OIDC Core §3.1.2.1) whenever `offline_access` is
    /// requested: OIDC Core §11 lets a provider drop `offline_access` otherwise, and
    /// node-oidc-provider (Logto) does. nil or false: no `prompt`.
    public var consentForOfflineAccess: Bool?
    /// The member of a userinfo answer that names the account, read by sign-in and `userinfo`
    /// alike: a string, or an integer written in decimal (GitHub's `GET /user`: `id`). nil:
    /// `sub` (OIDC Core §5.3.2).
    public var subjectClaim: String?
    /// How sign-out ends the browser session; nil: the end-session endpoint when advertised.
    public var logoutStyle: LogoutStyle?
    /// Pushed authorization requests (RFC 9126): nil is `auto` (push when the metadata has a
    /// `pushed_authorization_request_endpoint`); absent in older files.
    public var par: ProtocolFeatureSetting?
    /// DPoP (RFC 9449): nil is `auto` (when the metadata has `dpop_signing_alg_values_supported`).
    public var dpop: ProtocolFeatureSetting?
    /// The git hosts its access tokens open and the username each expects (`authdeck git-credential`); nil or absent: none.
    public var gitHosts: [CredentialHost]?
    /// The container registries its access tokens open and their username (`docker-credential-authdeck`); nil or absent: none.
    public var containerRegistries: [CredentialHost]?
    /// Sign in with Apple: the key the client secret is minted with, renewed by authdeck before
    /// it expires (``AppleClientSecret/needsRenewal(expiresAt:now:)``); nil for other providers.
    public var appleClientSecret: AppleClientSecretSource?
    /// A provider made by `authdeck login URL` for a protected resource (RFC 9728); nil for others.
    public var protectedResource: ProtectedResourceBinding?
    /// `--redirect-port`: the loopback port registered with a provider that compares redirect
    /// URIs exactly (RFC 6749 §3.1.2.3), port included: sign-in listens on exactly
    /// `http://127.0.0.1:PORT/callback` and sign-out on `…:PORT/logout-callback`; nil: any
    /// free port (RFC 8252 §7.3). See ``fixedRedirectPort``.
    public var redirectPort: UInt16?
    /// A machine provider: tokens by the client credentials grant (RFC 6749 §4.4); nil: a person signs in.
    public var clientCredentials: ClientCredentialsSettings?

    /// The one port rule for every loopback listener of this provider (sign-in, sign-out): the
    /// configured ``redirectPort``, else the port of the redirect URI a registration recorded
    /// (RFC 7591, ``ProtectedResourceBinding/redirectPort``); nil: any free port.
    public var fixedRedirectPort: UInt16? { redirectPort ?? protectedResource?.redirectPort }

    /// The redirect URIs to register with the provider's client, exactly as authdeck sends them:
    /// the sign-in's and the sign-out's (`post_logout_redirect_uri`). Without a fixed port, the
    /// port-less form RFC 8252 §7.3 has a provider match on any port.
    public var redirectURIsToRegister: (signIn: String, signOut: String) {
        let authority = fixedRedirectPort.map { "127.0.0.1:\($0)" } ?? "127.0.0.1"
        return ("http://\(authority)/callback", "http://\(authority)/logout-callback")
    }

    public init(id: ProviderID, displayName: String? = nil, issuer: URL?, clientID: String,
                clientAuthentication: ClientAuthenticationMethod = .none, scopes: [String] = ["openid", "profile", "email", "offline_access"],
                audience: String? = nil, resources: [String] = [], extraHeaders: [String: String] = [:],
                extraAuthorizationParameters: [String: String] = [:], endpoints: EndpointOverrides = .init(),
                caBundlePath: String? = nil, preset: String? = nil, par: ProtocolFeatureSetting? = nil,
                dpop: ProtocolFeatureSetting? = nil) {
        self.id = id
        self.displayName = displayName ?? id.rawValue
        self.issuer = issuer
        self.clientID = clientID
        self.clientAuthentication = clientAuthentication
        self.scopes = scopes
        self.audience = audience
        self.resources = resources
        self.extraHeaders = extraHeaders
        self.extraAuthorizationParameters = extraAuthorizationParameters
        self.endpoints = endpoints
        self.caBundlePath = caBundlePath
        self.preset = preset
        self.par = par
        self.dpop = dpop
    }

    /// Whether the provider is plain HTTP on a loopback address (allowed, always shown as such).
    public var isLoopbackHTTP: Bool { issuer.map(URLPolicy.isLoopbackHTTP) ?? false }
}

/// Where a Sign in with Apple client secret comes from: the `.p8` key file and Apple's ids.
public struct AppleClientSecretSource: Equatable, Sendable {
    public var keyPath: String
    public var teamID: String
    public var keyID: String
    /// Lifetime of each minted secret in days (default 180, at most 182).
    public var days: Int?
    public init(keyPath: String, teamID: String, keyID: String, days: Int? = nil) {
        self.keyPath = keyPath
        self.teamID = teamID
        self.keyID = keyID
        self.days = days
    }
}

extension ProviderConfig {
    /// The authorization request's `prompt` (OIDC Core §3.1.2.1): `consent` when
    /// ``consentForOfflineAccess`` is set and `scopes` hold `offline_access` (OIDC Core §11),
    /// unless ``extraAuthorizationParameters`` already carry a `prompt`; otherwise nil.
    public func prompt(for scopes: ScopeSet) -> String? {
        guard consentForOfflineAccess == true, scopes.values.contains(where: { $0.exactlyEquals("offline_access") }),
              !extraAuthorizationParameters.keys.contains(where: { $0.exactlyEquals("prompt") }) else { return nil }
        return "consent"
    }

    /// Whether the client authentication needs a client secret (RFC 6749 §2.3.1): any method but
    /// `none`, unless authdeck mints the secret itself (Sign in with Apple's `.p8` key).
    public var needsClientSecret: Bool { clientAuthentication != .none && clientAuthentication != .privateKeyJWT && appleClientSecret == nil }

    /// The rule for a secret given when the provider is added (the preset form and `provider add`):
    /// an explicit method stays; a public client given a secret becomes confidential with
    /// `client_secret_basic` (RFC 6749 §2.3.1's default).
    public mutating func adoptClientSecret(given: Bool, method: ClientAuthenticationMethod? = nil) {
        if let method {
            clientAuthentication = method
        } else if given && clientAuthentication == .none {
            clientAuthentication = .clientSecretBasic
        }
    }
}

/// A host a provider's access tokens are good for outside OAuth (a git server, a container
/// registry), and the username the host expects with the token as password.
public struct CredentialHost: Equatable, Sendable {
    /// `host` or `host:port`, lower case; a leading `*` stands for one or more DNS labels (ASCII
    /// letters, digits and `-`, joined by `.`: `*.gcr.io`, `*-docker.pkg.dev`).
    public var host: String
    /// The username sent with the token (`x-access-token`, `oauth2`, `oauth2accesstoken`); nil:
    /// the account's own username (its login).
    public var username: String?

    public init(host: String, username: String? = nil) {
        self.host = host.lowercased()
        self.username = username
    }

    /// Whether `name` (`host` or `host:port` as a client sends it) is this host; ASCII case is
    /// ignored (RFC 3986 §3.2.2), every other byte compared exactly.
    public func matches(_ name: String) -> Bool {
        let name = Array(name.utf8).map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
        let pattern = Array(host.utf8)
        guard pattern.first == UInt8(ascii: "*") else { return name == pattern }
        let suffix = pattern.dropFirst()
        guard name.count > suffix.count, name.suffix(suffix.count).elementsEqual(suffix) else { return false }
        return Self.isLabels(name.prefix(name.count - suffix.count))
    }

    /// Whether `bytes` is one or more DNS labels (RFC 1123 §2.1: letters, digits, `-`) joined by
    /// `.`, none empty: what a `*` may stand for (never `?`, `#`, `\`, `@`, `%`, `/` or `:`).
    static func isLabels(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.allSatisfy { byte in
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                    || byte == UInt8(ascii: "-")
            }
        }
    }

    /// The username for `account` (its login when the host names none; `oauth2` without one).
    public func username(for account: AccountRecord) -> String { username ?? account.username ?? "oauth2" }
}
