import FoundationEssentials
import TextSupport

// Thin async functions: build the request, send it through the injected HTTPClient, process
// the response. No logic lives here that is not in a pure step.

extension HTTPClient {
    /// Sends `request`, mapping transport failures into ``AuthError/transport(_:)``.
    func perform(_ request: HTTPRequest) async throws(AuthError) -> HTTPResponse {
        do {
            return try await send(request)
        } catch {
            throw .transport(error)
        }
    }
}

/// Fetches and validates discovery metadata (OIDC Discovery 1.0 §4, RFC 8414 §3).
public func fetchMetadata(issuer: String, kind: DiscoveryKind = .openIDConnect,
                          http: HTTPClient) async throws(AuthError) -> AuthorizationServerMetadata {
    let request = try Discovery.makeRequest(issuer: issuer, kind: kind)
    let response = try await http.perform(request)
    return try Discovery.processResponse(response, expectedIssuer: issuer, requestURL: request.url, kind: kind)
}

/// The JWK Set request (OIDC Discovery §3 `jwks_uri`, RFC 7517 §5): `GET jwks_uri` with
/// `Accept: application/json`, redirects followed (the keys are public and signature-checked).
/// - Throws: `.unsupported(.missingEndpoint("jwks_uri"))`, `.unsupported(.insecureURL)` for plain
///   http off loopback.
public func makeJWKSRequest(metadata: AuthorizationServerMetadata) throws(AuthError) -> HTTPRequest {
    guard let jwksURI = metadata.jwksURI else { throw .unsupported(.missingEndpoint("jwks_uri")) }
    try URLPolicy.requireSecure(jwksURI)
    return HTTPRequest(method: .get, url: jwksURI, headers: [HTTPHeader("Accept", "application/json")], followRedirects: true)
}

/// `GET jwks_uri` and parse the set (JWKS-11: `application/json` or `application/jwk-set+json`).
/// - Throws: what ``makeJWKSRequest(metadata:)`` throws, `.httpStatus`, `.transport`,
///   `.protocolViolation(.unexpectedContentType / .malformedJWKSet)`.
public func fetchJWKS(metadata: AuthorizationServerMetadata, http: HTTPClient) async throws(AuthError) -> JWKSet {
    let request = try makeJWKSRequest(metadata: metadata)
    return try processJWKSResponse(try await http.perform(request), url: request.url)
}

/// Processes a JWKS response: HTTP 200, `application/json` or `application/jwk-set+json`.
public func processJWKSResponse(_ response: HTTPResponse, url: URL) throws(AuthError) -> JWKSet {
    guard response.status == 200 else { throw .httpStatus(HTTPStatusFailure(status: response.status, url: url.absoluteString)) }
    guard response.mediaType == "application/json" || response.mediaType == "application/jwk-set+json" else {
        throw .protocolViolation(.unexpectedContentType(expected: "application/jwk-set+json", actual: response.mediaType))
    }
    return try JWKSet(parsing: response.body)
}

extension JWKSCache {
    /// A cache that fetches from the metadata's `jwks_uri` through `http`.
    public init(metadata: AuthorizationServerMetadata, http: HTTPClient, maximumAge: TimeInterval = 300, minimumRefetchAge: TimeInterval = 60) {
        self.init(maximumAge: maximumAge, minimumRefetchAge: minimumRefetchAge) { () async throws(AuthError) -> JWKSet in
            try await fetchJWKS(metadata: metadata, http: http)
        }
    }
}

/// Exchanges a validated authorization response for tokens (RFC 6749 §4.1.3–4.1.4) received at `now`.
/// The ID token is not validated here; call ``validateIDToken(_:options:crypto:now:jwksCache:)``.
public func exchangeCode(metadata: AuthorizationServerMetadata, client: ClientConfiguration,
                         response: ValidatedAuthorizationResponse, http: HTTPClient, now: Date,
                         dpop: DPoPSigner? = nil) async throws(AuthError) -> TokenSet {
    let request = try makeAuthorizationCodeTokenRequest(metadata: metadata, client: client, response: response)
    let httpResponse = try await (dpop.map { http.withDPoP($0) } ?? http).perform(request)
    return try processAuthorizationCodeResponse(httpResponse, pending: response.pending, now: now, dpopProofSent: dpop != nil)
}

/// Validates an ID token with keys from `jwksCache`: every candidate key is tried (key
/// rollover); the set is re-fetched once for an unknown `kid`, and once when no cached
/// candidate verifies and the cache is at least a minute old (a key replaced under its `kid`).
public func validateIDToken(_ raw: RawIDToken, options: IDTokenValidationOptions, crypto: CryptoProvider, now: Date,
                            jwksCache: JWKSCache) async throws(AuthError) -> VerifiedIDToken {
    let (jws, algorithm, key) = try await verifiedJWS(raw, options: options, crypto: crypto, now: now, jwksCache: jwksCache)
    return try verifyClaims(raw, jws: jws, algorithm: algorithm, key: key, options: options, crypto: crypto, now: now)
}

/// The JWS checks of an ID token (``decodeIDToken(_:options:)``) and its signature with a key
/// of `jwksCache`, re-fetched as ``validateIDToken(_:options:crypto:now:jwksCache:)`` says.
func verifiedJWS(_ raw: RawIDToken, options: IDTokenValidationOptions, crypto: CryptoProvider, now: Date,
                 jwksCache: JWKSCache) async throws(AuthError) -> (jws: CompactJWS, algorithm: JWSAlgorithm, key: JWK) {
    let (jws, algorithm) = try decodeIDToken(raw, options: options)
    let candidates = try await jwksCache.candidateKeys(for: jws.header, algorithm: algorithm, now: now)
    do {
        return (jws, algorithm, try verifySignature(jws, algorithm: algorithm, candidates: candidates, options: options, crypto: crypto))
    } catch {
        guard case .protocolViolation(.signatureInvalid) = error,
              let refreshed = (try? await jwksCache.candidateKeysAfterFailedSignature(for: jws.header, algorithm: algorithm, now: now)) ?? nil,
              refreshed != candidates else { throw error }
        return (jws, algorithm, try verifySignature(jws, algorithm: algorithm, candidates: refreshed, options: options, crypto: crypto))
    }
}

/// The keys a signed UserInfo response (`application/jwt`, OIDC Core §5.3.2) is verified with:
/// the provider's JWK Set and the signature verifier.
public struct SignedUserInfoVerifier: Sendable {
    public var crypto: CryptoProvider
    public var jwksCache: JWKSCache
    public init(crypto: CryptoProvider, jwksCache: JWKSCache) {
        self.crypto = crypto
        self.jwksCache = jwksCache
    }
}

/// Fetches UserInfo with the access token and checks its `sub` against the ID token's. A
/// signed answer (`application/jwt`) is verified with `verifyingSigned`
/// (``verifySignedUserInfo(_:expectedSubject:options:crypto:now:jwksCache:)``); without one it
/// is refused (`.unsupported(.signedUserInfo)`).
public func fetchUserInfo(metadata: AuthorizationServerMetadata, client: ClientConfiguration, accessToken: AccessToken,
                          expectedSubject: String, subjectClaim: String = "sub", http: HTTPClient, now: Date,
                          verifyingSigned verifier: SignedUserInfoVerifier? = nil) async throws(AuthError) -> UserInfoResponse {
    let request = try makeUserInfoRequest(metadata: metadata, client: client, accessToken: accessToken)
    let response = try await http.perform(request)
    if let verifier, (200..<300).contains(response.status), response.mediaType == "application/jwt" {
        return try await verifySignedUserInfo(response, expectedSubject: expectedSubject,
                                              options: IDTokenValidationOptions(signedUserInfoFor: metadata, client: client),
                                              crypto: verifier.crypto, now: now, jwksCache: verifier.jwksCache)
    }
    return try processUserInfoResponse(response, expectedSubject: expectedSubject, subjectClaim: subjectClaim, now: now)
}

/// A signed UserInfo response (OIDC Core §5.3.2, `Content-Type: application/jwt`), checked as
/// an ID token is where §5.3.2 asks for it: the JWS as ``decodeIDToken(_:options:)`` (`typ`, no
/// nested JWT, `alg` on the allow-list), the signature with the provider's keys (every fitting
/// candidate, the set re-fetched for an unknown `kid`), `iss` exactly the issuer, `aud` the
/// client id (no untrusted audience), `sub` equal to `expectedSubject` (§5.3.2), and `exp`
/// when present (RFC 7519 §4.1.4). `iat` is not required (§5.3.2 names `iss` and `aud` only).
/// - Throws: the JWS and signature errors of ID tokens; `.protocolViolation(.userInfoIssuerMismatch
///   / .userInfoAudienceMismatch / .userInfoSubjectMismatch / .missingField("sub") / .expired / …)`.
public func verifySignedUserInfo(_ response: HTTPResponse, expectedSubject: String, options: IDTokenValidationOptions, crypto: CryptoProvider,
                                 now: Date, jwksCache: JWKSCache) async throws(AuthError) -> UserInfoResponse {
    let text = String(decoding: response.body, as: UTF8.self).trimmingWhitespaceAndNewlines()
    let (jws, _, _) = try await verifiedJWS(RawIDToken(text), options: options, crypto: crypto, now: now, jwksCache: jwksCache)
    return try checkSignedUserInfoClaims(jws.payload, expectedSubject: expectedSubject, options: options, now: now)
}

/// The result of a completed code-flow sign-in.
public struct SignInResult: Sendable, Equatable {
    public var tokens: TokenSet
    /// nil when `openid` was not requested (plain OAuth, GitHub).
    public var idToken: VerifiedIDToken?

    public init(tokens: TokenSet, idToken: VerifiedIDToken?) {
        self.tokens = tokens
        self.idToken = idToken
    }
}

/// Code exchange plus ID-token validation (when `openid` was requested), the whole token step
/// of the code flow. Userinfo is a separate call.
public func completeAuthorizationCodeGrant(metadata: AuthorizationServerMetadata, client: ClientConfiguration,
                                           response: ValidatedAuthorizationResponse, http: HTTPClient, crypto: CryptoProvider,
                                           jwksCache: JWKSCache, now: Date, dpop: DPoPSigner? = nil) async throws(AuthError) -> SignInResult {
    let tokens = try await exchangeCode(metadata: metadata, client: client, response: response, http: http, now: now, dpop: dpop)
    guard let idToken = tokens.idToken else { return SignInResult(tokens: tokens, idToken: nil) }
    let options = IDTokenValidationOptions(metadata: metadata, client: client, pending: response.pending, tokens: tokens)
    let verified = try await validateIDToken(idToken, options: options, crypto: crypto, now: now, jwksCache: jwksCache)
    return SignInResult(tokens: tokens, idToken: verified)
}
