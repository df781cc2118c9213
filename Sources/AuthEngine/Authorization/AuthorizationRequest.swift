import FoundationEssentials
import TextSupport

/// What the user asks for in an authorization request (RFC 6749 §4.1.1, OIDC Core §3.1.2.1).
public struct AuthorizationRequest: Sendable, Equatable {
    /// `scope` values; `openid` makes a `nonce` mandatory.
    public var scopes: [String]
    /// `redirect_uri`: the loopback listener's URI (`http://127.0.0.1:{port}/callback`, RFC 8252 §7.3).
    public var redirectURI: URL
    /// `audience` (Auth0: the API identifier).
    public var audience: String?
    /// `resource` indicators (RFC 8707 §2): absolute URIs without fragment.
    public var resources: [String]
    /// `prompt` (OIDC Core §3.1.2.1), e.g. `login`, `consent`, `none`.
    public var prompt: String?
    /// `max_age` in seconds (OIDC Core §3.1.2.1); makes `auth_time` required in the ID token.
    public var maxAge: Int?
    /// `acr_values` (OIDC Core §3.1.2.1, RFC 9470 §4), in order of preference; makes `acr` required in the ID token.
    public var acrValues: [String] = []
    /// `login_hint`.
    public var loginHint: String?
    /// `response_mode`, e.g. `form_post` (Apple).
    public var responseMode: String?
    /// Any other parameters, appended last.
    public var extraParameters: [FormParameter]

    public init(scopes: [String], redirectURI: URL, audience: String? = nil, resources: [String] = [],
                prompt: String? = nil, maxAge: Int? = nil, loginHint: String? = nil, responseMode: String? = nil,
                extraParameters: [FormParameter] = []) {
        self.scopes = scopes
        self.redirectURI = redirectURI
        self.audience = audience
        self.resources = resources
        self.prompt = prompt
        self.maxAge = maxAge
        self.loginHint = loginHint
        self.responseMode = responseMode
        self.extraParameters = extraParameters
    }
}

/// A sent authorization request awaiting its redirect: everything the response and the code
/// exchange are checked against (AREQ-06). Single use; discard after the callback or timeout.
public struct PendingAuthorization: Sendable, Equatable, Codable {
    /// The URL to open in the browser.
    public var authorizationURL: URL
    /// `state` sent (≥ 128 bits; here 256).
    public var state: String
    /// `nonce` sent, when `openid` was requested.
    public var nonce: String?
    /// The PKCE `code_verifier` (secret until the exchange).
    public var codeVerifier: CodeVerifier
    /// `redirect_uri` exactly as sent; the token request repeats it byte for byte.
    public var redirectURI: String
    /// The issuer the response and ID token must come from.
    public var expectedIssuer: String
    /// `client_id` sent.
    public var clientID: String
    /// Requested scopes ("as requested" when the token response omits `scope`).
    public var requestedScopes: [String]
    /// `max_age` sent, if any.
    public var maxAge: Int?
    /// `acr_values` sent, if any: the ID token's `acr` must be one of them (``ACRRequirement``).
    public var acrValues: [String]?
    /// The RFC 8707 `resource` the code exchange repeats (MCP authorization: "in both
    /// authorization requests and token requests"); nil: the exchange carries none (the
    /// default token; each resource's comes by refresh).
    public var tokenRequestResource: String?

    public init(authorizationURL: URL, state: String, nonce: String?, codeVerifier: CodeVerifier, redirectURI: String,
                expectedIssuer: String, clientID: String, requestedScopes: [String], maxAge: Int?) {
        self.authorizationURL = authorizationURL
        self.state = state
        self.nonce = nonce
        self.codeVerifier = codeVerifier
        self.redirectURI = redirectURI
        self.expectedIssuer = expectedIssuer
        self.clientID = clientID
        self.requestedScopes = requestedScopes
        self.maxAge = maxAge
    }

    /// Whether an ID token is expected (OIDC Core §3.1.3.3).
    public var isOpenID: Bool { requestedScopes.contains("openid") }
}

/// Random `state` / `nonce` values: 32 bytes (256 bits) from the injected CSPRNG, base64url.
public func makeRandomState(crypto: CryptoProvider) -> String {
    Base64URL.encode(crypto.randomBytes(32))
}

/// Builds the authorization request URL (RFC 6749 §4.1.1, OIDC Core §3.1.2.1, RFC 7636 §4.3)
/// with a fresh `state`, a `nonce` when `openid` is requested, and a new S256 PKCE pair.
/// The endpoint's own query is kept (AREQ-07); empty values are omitted; no parameter repeats
/// (except `resource`, RFC 8707 §2). `dpopJKT` is RFC 9449 §10's `dpop_jkt` (the thumbprint of
/// the key the code will be bound to).
/// - Throws: `.unsupported(.missingEndpoint / .pushedAuthorizationRequestsRequired / .insecureURL / .invalidRedirectURI /
///   .invalidResourceIndicator / .contradictoryPromptAndMaxAge / .repeatedParameter)`.
public func makeAuthorizationRequest(metadata: AuthorizationServerMetadata, client: ClientConfiguration,
                                     request: AuthorizationRequest, crypto: CryptoProvider,
                                     dpopJKT: String? = nil) throws(AuthError) -> PendingAuthorization {
    // RFC 9126 §5: such a provider only takes pushed requests (``PushedAuthorization``).
    if metadata.requirePushedAuthorizationRequests == true { throw .unsupported(.pushedAuthorizationRequestsRequired) }
    let (endpoint, parameters, pending) = try authorizationParameters(metadata: metadata, client: client, request: request,
                                                                     crypto: crypto, dpopJKT: dpopJKT)
    var result = pending
    result.authorizationURL = URLPolicy.appendingQuery(parameters, to: endpoint)
    return result
}

/// The authorization endpoint, the request's parameters (checked, in order) and the pending
/// authorization (its `authorizationURL` still the bare endpoint): shared by the front-channel
/// request and the pushed one (RFC 9126 §2.1).
func authorizationParameters(metadata: AuthorizationServerMetadata, client: ClientConfiguration, request: AuthorizationRequest,
                             crypto: CryptoProvider, dpopJKT: String?) throws(AuthError) -> (URL, [FormParameter], PendingAuthorization) {
    guard let endpoint = metadata.authorizationEndpoint else { throw .unsupported(.missingEndpoint("authorization_endpoint")) }
    try URLPolicy.requireSecure(endpoint)
    try validateRedirectURI(request.redirectURI)
    for resource in request.resources { try validateResourceIndicator(resource) }
    if let prompt = request.prompt, prompt.split(separator: " ").contains("none"), request.maxAge == 0 {
        throw .unsupported(.contradictoryPromptAndMaxAge)
    }

    let state = makeRandomState(crypto: crypto)
    let nonce = request.scopes.contains("openid") ? makeRandomState(crypto: crypto) : nil
    let verifier = PKCE.makeCodeVerifier(crypto: crypto)
    let challenge = PKCE.makeCodeChallenge(for: verifier, crypto: crypto)
    let redirectURI = request.redirectURI.absoluteString

    var parameters = [
        FormParameter("response_type", "code"),
        FormParameter("client_id", client.clientID),
        FormParameter("redirect_uri", redirectURI),
        FormParameter("scope", request.scopes.joined(separator: " ")),
        FormParameter("state", state),
    ]
    if let nonce { parameters.append(FormParameter("nonce", nonce)) }
    parameters.append(FormParameter("code_challenge", challenge.value))
    parameters.append(FormParameter("code_challenge_method", challenge.method.rawValue))
    if let prompt = request.prompt { parameters.append(FormParameter("prompt", prompt)) }
    if let maxAge = request.maxAge { parameters.append(FormParameter("max_age", String(maxAge))) }
    if !request.acrValues.isEmpty { parameters.append(FormParameter("acr_values", request.acrValues.joined(separator: " "))) }
    if let loginHint = request.loginHint { parameters.append(FormParameter("login_hint", loginHint)) }
    if let responseMode = request.responseMode { parameters.append(FormParameter("response_mode", responseMode)) }
    if let audience = request.audience { parameters.append(FormParameter("audience", audience)) }
    parameters += request.resources.map { FormParameter("resource", $0) }
    if let dpopJKT { parameters.append(FormParameter("dpop_jkt", dpopJKT)) }
    parameters += client.extraAuthorizationParameters
    parameters += request.extraParameters
    parameters = parameters.filter { !$0.value.isEmpty }

    var seen = Set(URLPolicy.queryNames(endpoint))
    for parameter in parameters where parameter.name != "resource" {
        guard seen.insert(parameter.name).inserted else { throw .unsupported(.repeatedParameter(parameter.name)) }
    }

    var pending = PendingAuthorization(
        authorizationURL: endpoint, state: state, nonce: nonce,
        codeVerifier: verifier, redirectURI: redirectURI, expectedIssuer: metadata.issuer, clientID: client.clientID,
        requestedScopes: request.scopes, maxAge: request.maxAge)
    if !request.acrValues.isEmpty { pending.acrValues = request.acrValues }
    return (endpoint, parameters, pending)
}

/// RFC 8707 §2: a `resource` is an absolute URI without a fragment; and without a user name or
/// password (RFC 9728 §1.2, RFC 3986 §3.2.1: credentials in a URI are deprecated), which would
/// ride in every `resource=` parameter and the browser's URL.
/// - Throws: `.unsupported(.invalidResourceIndicator)`, `.unsupported(.credentialsInResourceIndicator)` (the URI without them).
public func validateResourceIndicator(_ resource: String) throws(AuthError) {
    if let parts = URIParts(resource), parts.userinfo != nil { throw .unsupported(.credentialsInResourceIndicator(parts.withoutUserinfo)) }
    guard let components = URLComponents(string: resource), let scheme = components.scheme, !scheme.isEmpty,
          components.fragment == nil, !resource.contains("#") else {
        throw .unsupported(.invalidResourceIndicator(URLPolicy.redactingUserInfo(resource)))
    }
    if components.user != nil || components.password != nil {
        throw .unsupported(.credentialsInResourceIndicator(URLPolicy.redactingUserInfo(resource)))
    }
}

/// RFC 8252 §7.3/§8.3, RFC 6749 §3.1.2: no fragment; http only on a loopback IP literal
/// (`localhost` is refused); other schemes (https, private-use) pass.
/// - Throws: `.unsupported(.invalidRedirectURI)`.
public func validateRedirectURI(_ uri: URL) throws(AuthError) {
    let text = uri.absoluteString
    guard let scheme = uri.scheme?.lowercased(), !text.contains("#") else { throw .unsupported(.invalidRedirectURI(text)) }
    if scheme == "http" && !URLPolicy.isLoopbackHTTP(uri) { throw .unsupported(.invalidRedirectURI(text)) }
}
