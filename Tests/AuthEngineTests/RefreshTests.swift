import Foundation
import Testing
@testable import AuthEngine

@Suite("Refresh (RFC 6749 §6, OIDC Core §12)")
struct RefreshTests {
    static let previous = TokenSet(accessToken: AccessToken("old-at"), tokenType: "Bearer", refreshToken: RefreshToken("old-rt"),
                                   idToken: RawIDToken("old.id.token"), receivedAt: testNow.addingTimeInterval(-3600),
                                   expiresAt: testNow.addingTimeInterval(-10), refreshExpiresAt: testNow.addingTimeInterval(3600),
                                   grantedScopes: ["openid", "profile", "offline_access"], scopeWasReturned: true)

    @Test("REF-01: the refresh request is an exact form POST (public client)")
    func request() throws {
        let request = try makeRefreshTokenRequest(metadata: OP.metadata(), client: OP.client, refreshToken: RefreshToken("old-rt"))
        #expect(request.method == .post)
        #expect(request.url.absoluteString == "https://op.test/token")
        #expect(request.headers == [HTTPHeader("Content-Type", "application/x-www-form-urlencoded"), HTTPHeader("Accept", "application/json")])
        #expect(formBody(request) == [FormParameter("grant_type", "refresh_token"), FormParameter("refresh_token", "old-rt"), FormParameter("client_id", "rp-native")])
        #expect(request.followRedirects == false)
    }

    @Test("RFC 6749 §6, RFC 8707 §2.2: narrower scope and one resource")
    func narrowerScopeAndResource() throws {
        let request = try makeRefreshTokenRequest(metadata: OP.metadata(), client: OP.client, refreshToken: RefreshToken("rt"),
                                                  scopes: ["read:events"], resource: "https://api.test/v1")
        #expect(formBody(request) == [FormParameter("grant_type", "refresh_token"), FormParameter("refresh_token", "rt"),
                                      FormParameter("scope", "read:events"), FormParameter("resource", "https://api.test/v1"),
                                      FormParameter("client_id", "rp-native")])
        #expect(authError { try makeRefreshTokenRequest(metadata: OP.metadata(), client: OP.client, refreshToken: RefreshToken("rt"), resource: "api#x") }
            == .unsupported(.invalidResourceIndicator("api#x")))
    }

    @Test("REF-02: a new refresh token replaces the old one")
    func rotation() throws {
        let response = jsonResponse(["access_token": "new-at", "token_type": "Bearer", "expires_in": 300, "refresh_token": "new-rt", "refresh_expires_in": 1800])
        let tokens = try processRefreshResponse(response, previous: Self.previous, now: testNow)
        #expect(tokens.refreshToken?.exposedValue == "new-rt")
        #expect(tokens.accessToken.exposedValue == "new-at")
        #expect(tokens.expiresAt == testNow.addingTimeInterval(300))
        #expect(tokens.refreshExpiresAt == testNow.addingTimeInterval(1800))
    }

    @Test("REF-03: no refresh_token keeps the old one and its expiry; no id_token keeps the previous one", arguments: [
        #"{"access_token":"new-at","token_type":"Bearer"}"#, #"{"access_token":"new-at","token_type":"Bearer","refresh_token":null}"#,
        #"{"access_token":"new-at","token_type":"Bearer","refresh_token":""}"#,
    ])
    func keepOldRefreshToken(_ body: String) throws {
        let tokens = try processRefreshResponse(textResponse(body, contentType: "application/json"), previous: Self.previous, now: testNow)
        #expect(tokens.refreshToken?.exposedValue == "old-rt")
        #expect(tokens.refreshExpiresAt == Self.previous.refreshExpiresAt)
        #expect(tokens.idToken == Self.previous.idToken)
        #expect(tokens.grantedScopes == Self.previous.grantedScopes)
    }

    @Test("REF-08: invalid_grant needs a new sign-in and is never retried", arguments: [400, 200])
    func invalidGrant(_ status: Int) {
        let response = jsonResponse(["error": "invalid_grant", "error_description": "token revoked"], status: status)
        let error = authError { try processRefreshResponse(response, previous: Self.previous, now: testNow) }
        #expect(error?.invalidatesGrant == true)
        #expect(error?.isTransient == false, "never retried")
    }

    @Test("Refresh failures are classified: transient (with the server's Retry-After), needs sign-in, or neither", arguments: [
        (AuthError.httpStatus(HTTPStatusFailure(status: 503, url: "u", retryAfter: 42)), true, false, 42.0 as Double?),
        (AuthError.transport(.connection(url: "u", detail: "reset")), true, false, nil),
        (AuthError.transport(.timeout(url: "u", seconds: 10)), true, false, nil),
        (AuthError.httpStatus(HTTPStatusFailure(status: 500, url: "u")), true, false, nil),
        (AuthError.errorResponse(OAuthErrorResponse(code: .invalidClient, status: 401)), false, false, nil),
        (AuthError.protocolViolation(.refreshedIDTokenSubjectMismatch(expected: "a", actual: "b")), false, true, nil),
    ])
    func classification(_ error: AuthError, _ transient: Bool, _ needsSignIn: Bool, _ retryAfter: Double?) {
        #expect(error.isTransient == transient)
        #expect(error.invalidatesGrant == needsSignIn)
        #expect(error.retryAfter == retryAfter)
    }

    static func original() throws -> IDTokenClaims {
        try IDTokenClaims(payload: JSONSerialization.data(withJSONObject: OP.claims()))
    }

    @Test("REF-04, REF-05, OIDC Core §12.2: refreshed ID token iss and sub must equal the original's", arguments: [
        (["sub": "bob"] as [String: String], AuthError.protocolViolation(.refreshedIDTokenSubjectMismatch(expected: "alice", actual: "bob"))),
        (["iss": "https://op.test1"], AuthError.protocolViolation(.idTokenIssuerMismatch(expected: "https://op.test", actual: "https://op.test1"))),
    ])
    func refreshedIdentity(_ overrides: [String: String], _ expected: AuthError) throws {
        let original = try Self.original()
        let tokens = TokenSet(response: TokenResponse(accessToken: OP.accessToken, tokenType: "Bearer"), requestedScopes: [], now: testNow)
        let options = IDTokenValidationOptions(refreshOf: original, metadata: OP.metadata(), client: OP.client, tokens: tokens)
        let raw = OP.idToken(claims: OP.claims(overrides))
        #expect(authError { try validateRefreshedIDToken(raw, original: original, options: options, keys: OP.keys, crypto: OP.crypto().provider, now: testNow) } == expected)
    }

    @Test("REF-07: refreshed nonce equal or absent accepted, different rejected")
    func refreshedNonce() throws {
        let original = try Self.original()
        let tokens = TokenSet(response: TokenResponse(accessToken: OP.accessToken, tokenType: "Bearer"), requestedScopes: [], now: testNow)
        let options = IDTokenValidationOptions(refreshOf: original, metadata: OP.metadata(), client: OP.client, tokens: tokens)
        #expect(options.nonce == .ifPresent("nonce-1"))
        _ = try validateRefreshedIDToken(OP.idToken(claims: OP.claims(["nonce": nil])), original: original, options: options, keys: OP.keys, crypto: OP.crypto().provider, now: testNow)
        #expect(authError { try validateRefreshedIDToken(OP.idToken(claims: OP.claims(["nonce": "x"])), original: original, options: options, keys: OP.keys, crypto: OP.crypto().provider, now: testNow) }
            == .protocolViolation(.nonceMismatch(expected: "nonce-1", actual: "x")))
    }

    static let jwksStub = jsonResponse(["keys": [["kty": "RSA", "kid": "k1", "n": "AQAB", "e": "AQAB"]]])
    static let refreshed = TokenSet(response: TokenResponse(accessToken: OP.accessToken, tokenType: "Bearer"), requestedScopes: [], now: testNow)

    @Test("OIDC Core §12.2 (async): a refreshed ID token is verified with keys fetched from jwks_uri and compared with the original")
    func asyncRefreshedIDToken() async throws {
        let stub = StubHTTPClient()
        stub.on(.get, "https://op.test/jwks", respond: Self.jwksStub)
        let raw = OP.idToken(claims: OP.claims(["nonce": nil, "at_hash": OP.atHash]))
        let verified = try await validateRefreshedIDToken(raw, original: try Self.original(), metadata: OP.metadata(), client: OP.client,
                                                          tokens: Self.refreshed, crypto: OP.crypto().provider, now: testNow,
                                                          jwksCache: JWKSCache(metadata: OP.metadata(), http: stub.client))
        #expect(verified.claims.subject == "alice")
        #expect(stub.requests.map(\.url.absoluteString) == ["https://op.test/jwks"])
    }

    @Test("REF-05 (async): a refreshed ID token for another sub is rejected and ends the grant")
    func asyncRefreshOtherSubject() async throws {
        let stub = StubHTTPClient()
        stub.on(.get, "https://op.test/jwks", respond: Self.jwksStub)
        let raw = OP.idToken(claims: OP.claims(["sub": "mallory", "nonce": nil]))
        let original = try Self.original()
        let error = await asyncAuthError {
            try await validateRefreshedIDToken(raw, original: original, metadata: OP.metadata(), client: OP.client, tokens: Self.refreshed,
                                               crypto: OP.crypto().provider, now: testNow, jwksCache: JWKSCache(metadata: OP.metadata(), http: stub.client))
        }
        #expect(error == .protocolViolation(.refreshedIDTokenSubjectMismatch(expected: "alice", actual: "mallory")))
        #expect(error?.invalidatesGrant == true)
    }
}
