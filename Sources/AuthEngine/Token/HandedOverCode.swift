import FoundationEssentials
import TextSupport

/// The token request for an authorization code this client did not request itself: one that an
/// app (Sign in with Apple's AuthenticationServices) or a web page obtained and handed over to
/// the backend (RFC 6749 §4.1.3). `grant_type=authorization_code`, `code`, `redirect_uri` only
/// when the authorization request carried one, and client authentication; no `code_verifier`
/// (a PKCE verifier stayed with whoever sent the authorization request). Apple's form fields:
/// "Generate and validate tokens",
/// https://developer.apple.com/documentation/signinwithapplerestapi/generate-and-validate-tokens
/// - Throws: `.unsupported(.missingEndpoint("token_endpoint") / .insecureURL)`.
public func makeHandedOverCodeTokenRequest(metadata: AuthorizationServerMetadata, client: ClientConfiguration,
                                           code: AuthorizationCode, redirectURI: String?) throws(AuthError) -> HTTPRequest {
    guard let endpoint = metadata.tokenEndpoint else { throw .unsupported(.missingEndpoint("token_endpoint")) }
    var parameters = [FormParameter("grant_type", GrantType.authorizationCode.rawValue), FormParameter("code", code.exposedValue)]
    if let redirectURI { parameters.append(FormParameter("redirect_uri", redirectURI)) }
    return try client.makeFormRequest(url: endpoint, parameters: parameters)
}

/// Processes the answer to ``makeHandedOverCodeTokenRequest(metadata:client:code:redirectURI:)``
/// into a ``TokenSet`` received at `now`. The `id_token` is required: it is the only statement of
/// who signed in (validate it next, OIDC Core §3.1.3.7).
/// - Throws: as ``parseTokenResponse(_:url:now:)``, plus `.protocolViolation(.missingField("id_token"))`.
public func processHandedOverCodeResponse(_ response: HTTPResponse, requestedScopes: [String], now: Date) throws(AuthError) -> TokenSet {
    let parsed = try parseTokenResponse(response, now: now)
    if parsed.idToken == nil { throw .protocolViolation(.missingField("id_token")) }
    return TokenSet(response: parsed, requestedScopes: requestedScopes, now: now)
}

/// The whole exchange of a handed-over code: the request, sent through `http`, and its answer.
public func exchangeHandedOverCode(metadata: AuthorizationServerMetadata, client: ClientConfiguration, code: AuthorizationCode,
                                   redirectURI: String?, requestedScopes: [String], http: HTTPClient, now: Date) async throws(AuthError) -> TokenSet {
    let request = try makeHandedOverCodeTokenRequest(metadata: metadata, client: client, code: code, redirectURI: redirectURI)
    return try processHandedOverCodeResponse(try await http.perform(request), requestedScopes: requestedScopes, now: now)
}

/// The `nonce` claim a native Sign in with Apple app puts in its request: the SHA-256 of the raw
/// nonce as lowercase hex (Apple, "Authenticating users with Sign in with Apple"; the claim is
/// then compared exactly, OIDC Core §3.1.3.7 step 11).
public func sha256HexNonce(_ raw: String, crypto: CryptoProvider) -> String {
    crypto.digest(.sha256, Data(raw.utf8)).lowercaseHex
}

/// A boolean claim sent as a JSON boolean or as the string `"true"` / `"false"` (Sign in with
/// Apple's `email_verified` and `is_private_email`: "a String or Boolean value"); nil when absent.
/// - Throws: `.protocolViolation(.invalidClaim(name:expected:))` for any other value.
public func booleanOrStringClaim(_ name: String, in claims: [String: JSONValue]) throws(AuthError) -> Bool? {
    guard let value = claims.member(name) else { return nil }
    switch value {
    case .bool(let flag): return flag
    case .string(let text) where text.exactlyEquals("true"): return true
    case .string(let text) where text.exactlyEquals("false"): return false
    default: throw .protocolViolation(.invalidClaim(name: name, expected: "true or false, as a boolean or a string"))
    }
}
