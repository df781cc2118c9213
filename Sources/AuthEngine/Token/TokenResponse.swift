import FoundationEssentials
import TextSupport

/// `grant_type` values (RFC 6749 §4.1.3, §6; RFC 8628 §3.4).
public enum GrantType: String, Sendable, Equatable {
    case authorizationCode = "authorization_code"
    case refreshToken = "refresh_token"
    case deviceCode = "urn:ietf:params:oauth:grant-type:device_code"
    case clientCredentials = "client_credentials"
}

/// Something a token response got wrong that the engine tolerated, because real providers
/// differ from RFC 6749 §5.1 there and nothing is at risk; the grant was already issued, so
/// failing would only throw it away. Carried on ``TokenResponse/warnings`` and
/// ``TokenSet/warnings`` for the front ends to show (code exchange, refresh and device grant).
public enum TokenResponseWarning: Sendable, Hashable {
    /// `token_type` (REQUIRED, RFC 6749 §5.1) was absent or empty: the token is used as
    /// Bearer (RFC 6750), the only type the engine supports. An unknown type is still refused.
    case tokenTypeMissingAssumedBearer
    /// `expires_in` (RFC 6749 §5.1, a number of seconds) was present but not a usable
    /// non-negative integer (`"soon"`, `-5`, `1.5`, `true`): the expiry is unknown, as if absent
    /// (TOK-07); the token is used until the resource server refuses it.
    case expiresInUnusable
    /// `refresh_expires_in` (Keycloak) or `refresh_token_expires_in` (GitHub), named by `field`,
    /// was not a usable number: the refresh token's expiry is unknown.
    case refreshExpiresInUnusable(field: String)

    /// One line for the front ends (flash message, stderr `warning:` line), naming the field and
    /// what the engine assumed; never the value sent.
    public var message: String {
        switch self {
        case .tokenTypeMissingAssumedBearer:
            "The provider sent no token_type; the access token is used as a Bearer token (RFC 6749 §5.1)."
        case .expiresInUnusable:
            "The provider's expires_in is not a number of seconds; the access token's expiry is unknown (RFC 6749 §5.1)."
        case .refreshExpiresInUnusable(let field):
            "The provider's \(field) is not a number of seconds; the refresh token's expiry is unknown."
        }
    }
}

/// A successful access token response as sent (RFC 6749 §5.1). Relative times only here.
public struct TokenResponse: Sendable, Equatable {
    /// `access_token`.
    public var accessToken: AccessToken
    /// `token_type`, as sent (compared case-insensitively; only Bearer is accepted).
    public var tokenType: String
    /// `expires_in`, seconds from receipt (a JSON number or numeric string); nil = unknown.
    public var expiresIn: Int?
    /// `refresh_token`.
    public var refreshToken: RefreshToken?
    /// `id_token` (OIDC Core §3.1.3.3).
    public var idToken: RawIDToken?
    /// `scope` split on spaces or commas (GitHub), or the array some servers send; nil when absent
    /// ("as requested", RFC 6749 §5.1).
    public var scope: [String]?
    /// `refresh_expires_in` (Keycloak) or `refresh_token_expires_in` (GitHub), seconds.
    public var refreshExpiresIn: Int?
    /// What was tolerated while parsing (see ``TokenResponseWarning``); empty for a clean response.
    public var warnings: [TokenResponseWarning]

    public init(accessToken: AccessToken, tokenType: String, expiresIn: Int? = nil, refreshToken: RefreshToken? = nil,
                idToken: RawIDToken? = nil, scope: [String]? = nil, refreshExpiresIn: Int? = nil, warnings: [TokenResponseWarning] = []) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.scope = scope
        self.refreshExpiresIn = refreshExpiresIn
        self.warnings = warnings
    }
}

/// The tokens of one grant as a domain value, with absolute times (docs/ARCHITECTURE.md, "Vocabulary").
public struct TokenSet: Sendable, Equatable, Codable {
    public var accessToken: AccessToken
    /// `token_type` as sent (Bearer in any case).
    public var tokenType: String
    public var refreshToken: RefreshToken?
    public var idToken: RawIDToken?
    /// When the response was received (the injected `now`).
    public var receivedAt: Date
    /// `receivedAt + expires_in`; nil when the lifetime is unknown (TOK-07).
    public var expiresAt: Date?
    /// `receivedAt + refresh_expires_in` / `refresh_token_expires_in`, when sent.
    public var refreshExpiresAt: Date?
    /// Granted scopes: the response's `scope`, or the requested scopes when it was absent.
    public var grantedScopes: [String]
    /// Whether ``grantedScopes`` came from the response (false: assumed as requested).
    public var scopeWasReturned: Bool
    /// What the response that produced this set got wrong and the engine tolerated (missing
    /// `token_type`, unusable `expires_in` …), for the front ends to show once. Not persisted:
    /// it describes one response, not the grant.
    public var warnings: [TokenResponseWarning] = []

    enum CodingKeys: String, CodingKey {
        case accessToken, tokenType, refreshToken, idToken, receivedAt, expiresAt, refreshExpiresAt, grantedScopes, scopeWasReturned
    }

    public init(accessToken: AccessToken, tokenType: String, refreshToken: RefreshToken?, idToken: RawIDToken?,
                receivedAt: Date, expiresAt: Date?, refreshExpiresAt: Date?, grantedScopes: [String], scopeWasReturned: Bool,
                warnings: [TokenResponseWarning] = []) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.receivedAt = receivedAt
        self.expiresAt = expiresAt
        self.refreshExpiresAt = refreshExpiresAt
        self.grantedScopes = grantedScopes
        self.scopeWasReturned = scopeWasReturned
        self.warnings = warnings
    }

    /// Builds the domain value from a response received at `now`.
    public init(response: TokenResponse, requestedScopes: [String], now: Date) {
        self.init(accessToken: response.accessToken, tokenType: response.tokenType, refreshToken: response.refreshToken,
                  idToken: response.idToken, receivedAt: now,
                  expiresAt: response.expiresIn.map { now.addingTimeInterval(TimeInterval($0)) },
                  refreshExpiresAt: response.refreshExpiresIn.map { now.addingTimeInterval(TimeInterval($0)) },
                  grantedScopes: response.scope ?? requestedScopes, scopeWasReturned: response.scope != nil,
                  warnings: response.warnings)
    }
}

/// An OAuth endpoint's body, read by media type.
enum OAuthBody {
    case members([String: JSONValue])
    /// JSON or form, but not a usable object (or with a repeated member).
    case unreadable(JSONObjectFailure)
    /// Neither JSON nor form.
    case otherMediaType
}

/// Reads a JSON or form-encoded body of an OAuth endpoint into members.
/// `application/json` (or `+json`), or `application/x-www-form-urlencoded` when the Content-Type
/// says so (GitHub without `Accept`). A repeated member is refused in both (see
/// ``parseJSONObject(_:)``; RFC 6749 §3.1 for form parameters).
func decodeOAuthBody(_ response: HTTPResponse) -> OAuthBody {
    let media = response.mediaType ?? ""
    if media == "application/json" || media.hasSuffix("+json") {
        switch parseJSONObject(response.body) {
        case .success(let object): return .members(object)
        case .failure(let failure): return .unreadable(failure)
        }
    }
    if media == "application/x-www-form-urlencoded" {
        guard let text = String(data: response.body, encoding: .utf8)?.trimmingWhitespaceAndNewlines(),
              let pairs = FormEncoding.decode(text) else { return .unreadable(.malformed) }
        var object: [String: JSONValue] = [:]
        var names: [String] = []
        for pair in pairs {
            guard !names.containsExactly(pair.name), object.updateValue(.string(pair.value), forKey: pair.name) == nil else {
                return .unreadable(.duplicateMember(pair.name))
            }
            names.append(pair.name)
        }
        return .members(object)
    }
    return .otherMediaType
}

/// An OAuth error body (RFC 6749 §5.2) when `object` has an `error` member, whatever the status.
func oauthError(in object: [String: JSONValue], response: HTTPResponse, now: Date) -> OAuthErrorResponse? {
    guard let code = object.member("error")?.stringValue else { return nil }
    return OAuthErrorResponse(
        code: OAuthErrorCode(rawValue: code), description: object.member("error_description")?.stringValue,
        uri: object.member("error_uri")?.stringValue, status: response.status,
        retryAfter: retryDelay(response, now: now),
        interval: try? object.lenientInteger("interval"))
}

/// The shared prologue of token-endpoint-like responses: error member first (any status), then
/// status, then content type. Returns the members of a successful body.
func readOAuthResponse(_ response: HTTPResponse, url: String, context: String, now: Date) throws(AuthError) -> [String: JSONValue] {
    let decoded = decodeOAuthBody(response)
    if case .members(let object) = decoded, let error = oauthError(in: object, response: response, now: now) {
        throw .errorResponse(error)
    }
    guard (200..<300).contains(response.status) else {
        throw .httpStatus(HTTPStatusFailure(status: response.status, url: url,
                                            retryAfter: retryDelay(response, now: now)))
    }
    switch decoded {
    case .members(let object): return object
    case .unreadable(.duplicateMember(let name)): throw .protocolViolation(.duplicateMember(name: name, context: context))
    case .unreadable(.malformed): throw .protocolViolation(.malformedJSON(context: context))
    case .otherMediaType: throw .protocolViolation(.unexpectedContentType(expected: "application/json", actual: response.mediaType))
    }
}

/// Parses a token endpoint response (RFC 6749 §5.1/§5.2): an `error` member means failure
/// whatever the HTTP status (GitHub answers errors with 200); JSON, or form-encoded when the
/// Content-Type says so; `expires_in` as number or numeric string; `token_type` any case
/// (Bearer only); `scope` a string (space- or comma-separated), an array, or absent;
/// `null` members count as absent; unknown members are ignored. Tolerated, with a
/// ``TokenResponseWarning`` on the result: `token_type` absent or empty (→ Bearer), and an
/// `expires_in` / refresh expiry that is not a usable number (→ unknown).
/// - Throws: `.errorResponse`, `.httpStatus`, `.protocolViolation(.unexpectedContentType /
///   .malformedJSON / .missingField / .invalidField)`, `.unsupported(.tokenType)`.
public func parseTokenResponse(_ response: HTTPResponse, url: String = "token_endpoint", now: Date,
                               dpopProofSent: Bool = false) throws(AuthError) -> TokenResponse {
    try parseTokenMembers(readOAuthResponse(response, url: url, context: "token response", now: now), dpopProofSent: dpopProofSent)
}

/// ``parseTokenResponse(_:url:now:dpopProofSent:)``'s reading of the members; `notAnAccessToken`:
/// a token exchange's issued token that is not an access token, whose `token_type` is `N_A`
/// (RFC 8693 §2.2.1), accepted as such.
func parseTokenMembers(_ object: [String: JSONValue], dpopProofSent: Bool,
                       notAnAccessToken: Bool = false) throws(AuthError) -> TokenResponse {
    let accessToken = try object.requiredString("access_token")
    var warnings: [TokenResponseWarning] = []
    let tokenType: String
    if let sent = try object.optionalString("token_type"), !sent.isEmpty {
        tokenType = sent
    } else {
        tokenType = "Bearer"
        warnings.append(.tokenTypeMissingAssumedBearer)
    }
    // RFC 9449 §5: `DPoP` only in answer to a request that carried a proof; any other type is refused.
    if notAnAccessToken, tokenType.utf8.elementsEqual("N_A".utf8) {
        // No use as an access token: nothing to check.
    } else if tokenType.equalsIgnoringASCIICase("DPoP") {
        try DPoP.checkTokenType(tokenType, proofSent: dpopProofSent, setting: .auto)
    } else if !tokenType.equalsIgnoringASCIICase("Bearer") {
        throw .unsupported(.tokenType(tokenType))
    }
    /// A lifetime in seconds, or nil (with a warning) when present but unusable.
    func seconds(_ name: String, warning: TokenResponseWarning) -> Int? {
        do {
            return try object.lenientInteger(name)
        } catch {
            warnings.append(warning)
            return nil
        }
    }
    let expiresIn = seconds("expires_in", warning: .expiresInUnusable)
    let scope: [String]?
    switch object.member("scope") {
    case .none: scope = nil
    case .some(.string(let text)):
        scope = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
    case .some(.array):
        scope = try object.optionalStringArray("scope")
    default:
        throw .protocolViolation(.invalidField(name: "scope", expected: "a string or an array of strings"))
    }
    let keycloakRefreshExpiresIn = seconds("refresh_expires_in", warning: .refreshExpiresInUnusable(field: "refresh_expires_in"))
    let githubRefreshExpiresIn = seconds("refresh_token_expires_in", warning: .refreshExpiresInUnusable(field: "refresh_token_expires_in"))
    let refreshExpiresIn = keycloakRefreshExpiresIn ?? githubRefreshExpiresIn
    return TokenResponse(
        accessToken: AccessToken(accessToken), tokenType: tokenType, expiresIn: expiresIn,
        refreshToken: try object.optionalString("refresh_token").flatMap { $0.isEmpty ? nil : RefreshToken($0) },
        idToken: try object.optionalString("id_token").flatMap { $0.isEmpty ? nil : RawIDToken($0) },
        scope: scope, refreshExpiresIn: refreshExpiresIn, warnings: warnings)
}
