import AuthEngine
import CredentialStore
import FoundationEssentials

/// Conversions between the engine's token values and the credential store's records. Secrets
/// pass through `exposedValue` only at this boundary (here, in the use cases, and where the CLI
/// prints a token or the TUI copies or reveals one on request).
enum TokenConversions {
    static func entry(_ tokens: TokenSet) -> StoredAccessTokenEntry {
        StoredAccessTokenEntry(token: StoredAccessToken(tokens.accessToken.exposedValue), expiresAt: tokens.expiresAt,
                               tokenType: tokens.tokenType, scope: tokens.grantedScopes)
    }

    /// The secret set after a sign-in (default token) or a refresh (`resource` token, or the
    /// default one); rotation: a missing refresh token never replaces a stored one.
    static func merge(_ tokens: TokenSet, into secrets: AccountSecrets, resource: String?) -> AccountSecrets {
        var secrets = secrets
        secrets.setAccessToken(entry(tokens), for: resource)
        if let refreshToken = tokens.refreshToken, !refreshToken.isEmpty {
            secrets.refreshToken = StoredRefreshToken(refreshToken.exposedValue)
        }
        if let idToken = tokens.idToken { secrets.idToken = StoredIDToken(idToken.exposedValue) }
        return secrets
    }

    /// The engine's view of what is stored, for a refresh, revocation or introspection.
    static func tokenSet(_ secrets: AccountSecrets, resource: String?, record: AccountRecord) -> TokenSet? {
        guard let entry = secrets.accessToken(for: resource) ?? secrets.defaultAccessToken else { return nil }
        return TokenSet(
            accessToken: AccessToken(entry.token.exposedValue), tokenType: entry.tokenType ?? "Bearer",
            refreshToken: secrets.refreshToken.map { RefreshToken($0.exposedValue) },
            idToken: secrets.idToken.map { RawIDToken($0.exposedValue) },
            receivedAt: record.lastRefreshAt ?? record.signedInAt, expiresAt: entry.expiresAt,
            refreshExpiresAt: record.refreshTokenExpiresAt, grantedScopes: entry.scope ?? record.grantedScopes,
            scopeWasReturned: entry.scope != nil)
    }

    /// The claims of a stored ID token, decoded without verification (it was verified when it
    /// was received); used as the identity a refreshed ID token must keep (OIDC Core §12.2).
    static func storedClaims(_ secrets: AccountSecrets) -> IDTokenClaims? {
        guard let raw = secrets.idToken?.exposedValue, let jws = try? CompactJWS(parsing: raw) else { return nil }
        return try? IDTokenClaims(payload: jws.payload)
    }

    /// A JWT access token's header and claims, for display only ("informational, unverified":
    /// access tokens are opaque to clients). `nil` for an opaque or encrypted (JWE) token.
    static func informationalClaims(_ accessToken: AccessToken) -> JSONValue? {
        let value = accessToken.exposedValue
        guard value.split(separator: ".", omittingEmptySubsequences: false).count == 3,
              let jws = try? CompactJWS(parsing: value),
              case .success(let claims) = parseJSONObject(jws.payload) else { return nil }
        return .object(["header": .object(jws.header.members), "claims": .object(claims)])
    }

    /// A refresh's effect on the record: the token's info, the granted scopes (default token),
    /// the refresh token's presence and expiry, and the time of the refresh.
    static func apply(_ tokens: TokenSet, resource: String?, to record: inout AccountRecord) {
        record.accessTokens.removeAll { $0.resource == resource }
        record.accessTokens.append(accessTokenInfo(tokens, resource: resource))
        record.accessTokens.sort { ($0.resource ?? "") < ($1.resource ?? "") }
        if resource == nil {
            record.previousGrantedScopes = record.grantedScopes
            record.grantedScopes = tokens.grantedScopes
        }
        record.hasRefreshToken = tokens.refreshToken != nil
        if let refreshExpiresAt = tokens.refreshExpiresAt { record.refreshTokenExpiresAt = refreshExpiresAt }
        record.lastRefreshAt = tokens.receivedAt
        record.tokenWarnings = warnings(tokens)
    }

    /// The tolerated deviations of a token response, as lines; nil when none.
    static func warnings(_ tokens: TokenSet) -> [String]? {
        tokens.warnings.isEmpty ? nil : tokens.warnings.map(\.message)
    }

    static func idTokenInfo(_ verified: VerifiedIDToken) -> IDTokenInfo {
        IDTokenInfo(
            header: .object(verified.header.members), claims: .object(verified.claims.all),
            signature: .verified(algorithm: verified.header.algorithm, keyID: verified.verifiedWith.keyID ?? verified.header.keyID),
            expiresAt: verified.claims.expiresAt, issuedAt: verified.claims.issuedAt)
    }

    static func accessTokenInfo(_ tokens: TokenSet, resource: String?) -> AccessTokenInfo {
        let format = AccessTokenFormat.classify(tokens.accessToken.exposedValue)
        var info = AccessTokenInfo(resource: resource, expiresAt: tokens.expiresAt, issuedAt: tokens.receivedAt, tokenType: tokens.tokenType,
                                   scopes: tokens.grantedScopes, informationalClaims: format == .jwt ? informationalClaims(tokens.accessToken) : nil)
        info.format = format
        return info
    }

    /// The display name: `name`, else `preferred_username`, else `email`, else the subject.
    static func displayName(_ claims: [String: JSONValue], subject: String) -> String {
        for key in ["name", "preferred_username", "email"] {
            if let value = claims[key]?.stringValue, !value.isEmpty { return value }
        }
        return subject
    }
}
