import FoundationEssentials

/// RFC 8693 §3 token type identifiers, and the ID-JAG's (draft-ietf-oauth-identity-assertion-authz-grant §3).
public enum TokenTypeIdentifier {
    public static let accessToken = "urn:ietf:params:oauth:token-type:access_token"
    public static let refreshToken = "urn:ietf:params:oauth:token-type:refresh_token"
    public static let idToken = "urn:ietf:params:oauth:token-type:id_token"
    public static let jwt = "urn:ietf:params:oauth:token-type:jwt"
    /// An Identity Assertion JWT Authorization Grant, issued with `token_type` `N_A`.
    public static let idJAG = "urn:ietf:params:oauth:token-type:id-jag"
}

/// The token exchange grant type (RFC 8693 §2.1).
public let tokenExchangeGrantType = "urn:ietf:params:oauth:grant-type:token-exchange"

/// The subject of a token exchange (RFC 8693 §2.1 `subject_token` and its `subject_token_type`).
public enum SubjectToken: Sendable {
    /// The account's access token (`…:token-type:access_token`).
    case accessToken(AccessToken)
    /// The account's ID token (`…:token-type:id_token`), as the ID-JAG draft's subject.
    case idToken(RawIDToken)

    var tokenType: String {
        switch self {
        case .accessToken: TokenTypeIdentifier.accessToken
        case .idToken: TokenTypeIdentifier.idToken
        }
    }

    var exposedValue: String {
        switch self {
        case .accessToken(let token): token.exposedValue
        case .idToken(let token): token.exposedValue
        }
    }
}

/// What a token exchange asks a token for (RFC 8693 §2.1): a `resource` (an absolute URI,
/// RFC 8707 §2 rules) or a logical `audience`, and optionally `requested_token_type` and `scope`.
public struct TokenExchangeTarget: Sendable, Equatable {
    public var resource: String?
    public var audience: String?
    public var requestedTokenType: String?
    public var scopes: [String]

    public init(resource: String? = nil, audience: String? = nil, requestedTokenType: String? = nil, scopes: [String] = []) {
        self.resource = resource
        self.audience = audience
        self.requestedTokenType = requestedTokenType
        self.scopes = scopes
    }
}

/// The token exchange request (RFC 8693 §2.1): `grant_type`, `subject_token`,
/// `subject_token_type`, `resource`/`audience`, `scope`, `requested_token_type`, with the
/// client's authentication (§2.1: as at the token endpoint). Never follows redirects.
/// - Throws: `.unsupported(.missingEndpoint("token_endpoint") / .insecureURL / .invalidResourceIndicator)`.
public func makeTokenExchangeRequest(metadata: AuthorizationServerMetadata, client: ClientConfiguration, subject: SubjectToken,
                                     target: TokenExchangeTarget) throws(AuthError) -> HTTPRequest {
    guard let endpoint = metadata.tokenEndpoint else { throw .unsupported(.missingEndpoint("token_endpoint")) }
    var parameters = [FormParameter("grant_type", tokenExchangeGrantType), FormParameter("subject_token", subject.exposedValue),
                      FormParameter("subject_token_type", subject.tokenType)]
    if let resource = target.resource {
        try validateResourceIndicator(resource)
        parameters.append(FormParameter("resource", resource))
    }
    if let audience = target.audience { parameters.append(FormParameter("audience", audience)) }
    if !target.scopes.isEmpty { parameters.append(FormParameter("scope", target.scopes.joined(separator: " "))) }
    if let type = target.requestedTokenType { parameters.append(FormParameter("requested_token_type", type)) }
    return try client.makeFormRequest(url: endpoint, parameters: parameters)
}

/// A token exchange response (RFC 8693 §2.2.1) as the ``TokenSet`` of the exchanged token:
/// `access_token` (the issued token, whatever its type), `issued_token_type` (REQUIRED; the
/// requested one when a type was requested), `token_type` Bearer, or `N_A` for a token that
/// is not an access token (§2.2.1, the ID-JAG), `expires_in`, `scope`. A `refresh_token` is
/// dropped: the exchanged token is renewed by exchanging the subject again. The refresh and ID
/// tokens of `previous` (the account's) are kept as they are.
/// - Throws: as ``parseTokenResponse(_:url:now:dpopProofSent:)`` (`invalid_target`,
///   `invalid_request` … as `.errorResponse`), `.protocolViolation(.missingField("issued_token_type")
///   / .invalidField("issued_token_type"))`, `.unsupported(.tokenType)`.
public func processTokenExchangeResponse(_ response: HTTPResponse, previous: TokenSet, target: TokenExchangeTarget,
                                         now: Date) throws(AuthError) -> TokenSet {
    let object = try readOAuthResponse(response, url: "token_endpoint", context: "token exchange response", now: now)
    guard let issued = try object.optionalString("issued_token_type"), !issued.isEmpty else {
        throw .protocolViolation(.missingField("issued_token_type"))
    }
    if let requested = target.requestedTokenType, !issued.utf8.elementsEqual(requested.utf8) {
        throw .protocolViolation(.invalidField(name: "issued_token_type", expected: requested + " (as requested)"))
    }
    let notAnAccessToken = !issued.utf8.elementsEqual(TokenTypeIdentifier.accessToken.utf8)
    var parsed = try parseTokenMembers(object, dpopProofSent: false, notAnAccessToken: notAnAccessToken)
    parsed.refreshToken = nil
    parsed.idToken = nil
    var tokens = TokenSet(response: parsed, requestedScopes: target.scopes.isEmpty ? previous.grantedScopes : target.scopes, now: now)
    tokens.refreshToken = previous.refreshToken
    tokens.refreshExpiresAt = previous.refreshExpiresAt
    tokens.idToken = previous.idToken
    return tokens
}
