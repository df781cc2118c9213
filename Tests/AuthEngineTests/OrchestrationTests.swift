import Foundation
import Testing
@testable import AuthEngine

@Suite("Async helpers over an injected HTTPClient")
struct OrchestrationTests {
    @Test("fetchMetadata: discovery fetched, validated, returned")
    func fetchMetadataHappy() async throws {
        let stub = StubHTTPClient()
        stub.on(.get, "https://op.test/.well-known/openid-configuration",
                respond: HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: try fixture("discovery/op-test.json")))
        let metadata = try await fetchMetadata(issuer: "https://op.test", http: stub.client)
        #expect(metadata.issuer == "https://op.test")
    }

    @Test("Transport failures surface as .transport and are transient")
    func transportFailure() async {
        let stub = StubHTTPClient()
        stub.fail(.get, "https://op.test/.well-known/openid-configuration", with: .timeout(url: "https://op.test", seconds: 10))
        let error = await asyncAuthError { try await fetchMetadata(issuer: "https://op.test", http: stub.client) }
        #expect(error == .transport(.timeout(url: "https://op.test", seconds: 10)))
        #expect(error?.isTransient == true)
    }

    @Test("Code flow: exchange + ID token validation + userinfo, each request once")
    func codeFlow() async throws {
        let stub = StubHTTPClient()
        let idToken = OP.idToken(claims: OP.claims(["at_hash": OP.atHash]))
        stub.on(.post, "https://op.test/token", respond: jsonResponse([
            "access_token": OP.accessToken.exposedValue, "token_type": "Bearer", "expires_in": 300, "refresh_token": "rt", "id_token": idToken.exposedValue,
        ]))
        stub.on(.get, "https://op.test/jwks", respond: jsonResponse(["keys": [["kty": "RSA", "kid": "k1", "use": "sig", "n": "AQAB", "e": "AQAB"]]]))
        stub.on(.get, "https://op.test/userinfo", respond: jsonResponse(["sub": "alice", "name": "Alice"]))
        let metadata = OP.metadata()
        let result = try await completeAuthorizationCodeGrant(
            metadata: metadata, client: OP.client, response: try OP.validated(), http: stub.client, crypto: OP.crypto().provider,
            jwksCache: JWKSCache(metadata: metadata, http: stub.client), now: testNow)
        #expect(result.idToken?.claims.subject == "alice")
        #expect(result.tokens.expiresAt == testNow.addingTimeInterval(300))
        let info = try await fetchUserInfo(metadata: metadata, client: OP.client, accessToken: result.tokens.accessToken,
                                           expectedSubject: "alice", http: stub.client, now: testNow)
        #expect(info.claims["name"] == .string("Alice"))
        #expect(stub.requests.map { "\($0.method.rawValue) \($0.url.absoluteString)" } == [
            "POST https://op.test/token", "GET https://op.test/jwks", "GET https://op.test/userinfo",
        ])
    }

    @Test("Code flow: an invalid ID token stops before userinfo (IDT-02)")
    func invalidIDTokenStops() async throws {
        let stub = StubHTTPClient()
        let idToken = OP.idToken(claims: OP.claims(["iss": "https://op.test1"]))
        stub.on(.post, "https://op.test/token", respond: jsonResponse(["access_token": "at", "token_type": "Bearer", "id_token": idToken.exposedValue]))
        stub.on(.get, "https://op.test/jwks", respond: jsonResponse(["keys": [["kty": "RSA", "kid": "k1", "n": "AQAB", "e": "AQAB"]]]))
        let metadata = OP.metadata()
        let error = await asyncAuthError {
            try await completeAuthorizationCodeGrant(metadata: metadata, client: OP.client, response: try OP.validated(), http: stub.client,
                                                     crypto: OP.crypto().provider, jwksCache: JWKSCache(metadata: metadata, http: stub.client), now: testNow)
        }
        #expect(error == .protocolViolation(.idTokenIssuerMismatch(expected: "https://op.test", actual: "https://op.test1")))
        #expect(!stub.requests.contains { $0.url.absoluteString.hasSuffix("/userinfo") })
    }
}
