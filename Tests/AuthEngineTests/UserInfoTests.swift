import Foundation
import Testing
@testable import AuthEngine

@Suite("UserInfo (OIDC Core §5.3)")
struct UserInfoTests {
    @Test("UI-01: GET with Authorization: Bearer, never in the query")
    func request() throws {
        let request = try makeUserInfoRequest(metadata: OP.metadata(), client: OP.client, accessToken: OP.accessToken)
        #expect(request.method == .get)
        #expect(request.url.absoluteString == "https://op.test/userinfo")
        #expect(request.headers == [HTTPHeader("Accept", "application/json"), HTTPHeader("Authorization", "Bearer at-secret-value-123")])
        #expect(request.body == nil)
        #expect(request.url.query == nil)
        #expect(!String(describing: request.headers).contains("at-secret-value-123"))
    }

    @Test("UI-05: returned claims are kept; absent ones are simply absent")
    func claimsKept() throws {
        let response = jsonResponse(["sub": "alice", "email": "alice@example.test", "email_verified": true])
        let info = try processUserInfoResponse(response, expectedSubject: "alice", now: testNow)
        #expect(info.claims["email_verified"] == .bool(true))
        #expect(info.claims["phone_number"] == nil)
    }

    @Test("UI-03, OIDC Core §5.3.2: sub must equal the ID token's sub")
    func subMismatch() {
        #expect(authError { try processUserInfoResponse(jsonResponse(["sub": "mallory"]), expectedSubject: "alice", now: testNow) }
            == .protocolViolation(.userInfoSubjectMismatch(expected: "alice", actual: "mallory")))
    }

    @Test("UI-04: sub absent, non-JSON or text/html is rejected", arguments: [
        (jsonResponse(["name": "Alice"]), AuthError.protocolViolation(.missingField("sub"))),
        (textResponse("{", contentType: "application/json"), AuthError.protocolViolation(.malformedJSON(context: "UserInfo response"))),
        (textResponse("<html>", contentType: "text/html"), AuthError.protocolViolation(.unexpectedContentType(expected: "application/json", actual: "text/html"))),
    ])
    func invalid(_ response: HTTPResponse, _ expected: AuthError) {
        #expect(authError { try processUserInfoResponse(response, expectedSubject: "alice", now: testNow) } == expected)
    }

    @Test("UI-06, RFC 6750 §3: 401 with WWW-Authenticate invalid_token is an invalid_token error")
    func unauthorized() {
        let response = HTTPResponse(status: 401, headers: ["WWW-Authenticate": #"Bearer realm="op", error="invalid_token", error_description="expired""#])
        #expect(authError { try processUserInfoResponse(response, expectedSubject: "alice", now: testNow) }
            == .errorResponse(OAuthErrorResponse(code: .invalidToken, status: 401)))
    }

    @Test("UI-07: application/jwt UserInfo without the provider's keys to verify it is refused")
    func signedUserInfoWithoutKeys() async {
        #expect(authError { try processUserInfoResponse(textResponse("a.b.c", contentType: "application/jwt"), expectedSubject: "alice", now: testNow) }
            == .unsupported(.signedUserInfo))
        let http = StubHTTPClient()
        http.on(.get, "https://op.test/userinfo", respond: textResponse(Self.signed(), contentType: "application/jwt"))
        #expect(await asyncAuthError { try await fetchUserInfo(metadata: OP.metadata(), client: OP.client, accessToken: OP.accessToken,
                                                               expectedSubject: "alice", http: http.client, now: testNow) } == .unsupported(.signedUserInfo))
    }

    /// A UserInfo JWT (stub signature) with the default claims and `overrides`.
    static func signed(header: [String: Any] = ["alg": "RS256", "kid": "k1"], _ overrides: [String: Any?] = [:], signature: Data = TestCrypto.validSignature) -> String {
        var claims: [String: Any] = ["iss": OP.issuer, "aud": OP.clientID, "sub": "alice", "email": "alice@example.test"]
        for (key, value) in overrides { claims[key] = value }
        return makeJWT(header: header, claims: claims, signature: signature)
    }

    func fetchSigned(_ body: String) async throws(AuthError) -> UserInfoResponse {
        let http = StubHTTPClient()
        http.on(.get, "https://op.test/userinfo", respond: textResponse(body + "\n", contentType: "application/jwt"))
        http.on(.get, "https://op.test/jwks", respond: jsonResponse(["keys": [["kty": "RSA", "kid": "k1", "use": "sig", "alg": "RS256", "n": "AAECAw", "e": "AQAB"]]]))
        let verifier = SignedUserInfoVerifier(crypto: OP.crypto().provider, jwksCache: JWKSCache(metadata: OP.metadata(), http: http.client))
        return try await fetchUserInfo(metadata: OP.metadata(), client: OP.client, accessToken: OP.accessToken, expectedSubject: "alice",
                                       http: http.client, now: testNow, verifyingSigned: verifier)
    }

    @Test("UI-07, OIDC Core §5.3.2: a signed UserInfo (application/jwt) is verified with the provider's JWKS and its claims are shown")
    func signedUserInfoVerified() async throws {
        let info = try await fetchSigned(Self.signed())
        #expect(info.subject == "alice")
        #expect(info.claims["email"] == .string("alice@example.test"))
        #expect(info.claims["iss"] == .string(OP.issuer))
    }

    @Test("UI-07, OIDC Core §5.3.2: a signed UserInfo with a bad signature, another iss, no iss, an aud without the client id, another sub, alg none, a nested JWT or a past exp is refused",
          arguments: [
              (signed(signature: Data("forged".utf8)), AuthError.protocolViolation(.signatureInvalid(kid: "k1"))),
              (signed(["iss": "https://evil.test"]), .protocolViolation(.userInfoIssuerMismatch(expected: OP.issuer, actual: "https://evil.test"))),
              (signed(["iss": nil]), .protocolViolation(.userInfoIssuerMismatch(expected: OP.issuer, actual: nil))),
              (signed(["aud": "other-client"]), .protocolViolation(.userInfoAudienceMismatch(expected: OP.clientID, actual: ["other-client"]))),
              (signed(["aud": nil]), .protocolViolation(.userInfoAudienceMismatch(expected: OP.clientID, actual: []))),
              (signed(["sub": "mallory"]), .protocolViolation(.userInfoSubjectMismatch(expected: "alice", actual: "mallory"))),
              (signed(header: ["alg": "none"]), .protocolViolation(.algorithmNotAllowed(alg: "none", allowed: ["ES256", "ES384", "ES512", "EdDSA", "PS256", "PS384", "PS512", "RS256", "RS384", "RS512"]))),
              (signed(header: ["alg": "RS256", "kid": "k1", "cty": "JWT"]), .protocolViolation(.nestedJWT(contentType: "JWT"))),
              (signed(["exp": testNow.timeIntervalSince1970 - 120]), .protocolViolation(.expired(exp: testNow.addingTimeInterval(-120), now: testNow))),
          ])
    func signedUserInfoRefused(_ body: String, _ expected: AuthError) async {
        #expect(await asyncAuthError { try await fetchSigned(body) } == expected)
    }
}
