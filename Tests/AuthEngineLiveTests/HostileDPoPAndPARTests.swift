import AuthEngine
import AuthEngineLive
import Foundation
import Testing

/// DPoP (RFC 9449) and PAR (RFC 9126) end to end: the engine, libcurl and libcrypto (real ES256
/// proofs, verified here with the engine's verifier) against the scriptable hostile provider,
/// which records every request's headers and body.
@Suite("Hostile provider: DPoP and PAR end to end", .serialized)
struct HostileDPoPAndPARTests {
    struct Recorded: Decodable {
        var request: String
        var query: String
        var headers: [String: String]
        var body: String
    }

    func recorded(_ provider: HostileProvider) async throws -> [Recorded] {
        let response = try await provider.http.send(HTTPRequest(method: .get, url: URL(string: provider.base + "/_recorded")!))
        return try JSONDecoder().decode([Recorded].self, from: response.body)
    }

    /// The proof's header and claims, after checking its signature with the key in its own `jwk` header.
    func verifiedProof(_ compact: String?) throws -> (header: [String: JSONValue], claims: [String: Any]) {
        let jws = try CompactJWS(parsing: try #require(compact))
        guard case .object(let jwk)? = jws.header.members["jwk"], jwk["d"] == nil,
              let x = jwk["x"]?.stringValue.flatMap(Base64URL.decode), let y = jwk["y"]?.stringValue.flatMap(Base64URL.decode) else {
            throw FixtureError("the proof has no public EC jwk")
        }
        try OpenSSLCrypto.live.verifySignature(.es256, JWK(keyType: "EC", curve: "P-256", x: x, y: y), jws.signingInput, jws.signature)
        let claims = try #require(try JSONSerialization.jsonObject(with: jws.payload) as? [String: Any])
        return (jws.header.members, claims)
    }

    func signer() throws -> DPoPSigner {
        DPoPSigner(key: try OpenSSLCrypto.live.generateKeyPair(.es256), crypto: OpenSSLCrypto.live, now: { Date() })
    }

    func validated(_ provider: HostileProvider) throws -> ValidatedAuthorizationResponse {
        let metadata = AuthorizationServerMetadata(issuer: provider.base, tokenEndpoint: URL(string: provider.base + "/token")!)
        return try validateAuthorizationResponse(
            callback: RedirectCallback(method: "GET", path: "/callback", parameters: [("code", "code-1"), ("state", "s-1")]),
            pending: PendingAuthorization(authorizationURL: URL(string: provider.base + "/authorize")!, state: "s-1", nonce: nil,
                                          codeVerifier: CodeVerifier("verifier-0123456789-0123456789-0123456789"), redirectURI: "http://127.0.0.1:9/callback",
                                          expectedIssuer: provider.base, clientID: "rp-native", requestedScopes: ["api"], maxAge: nil),
            metadata: metadata)
    }

    @Test("DPOP-01, DPoP RFC 9449 §5, §8: the code exchange carries a real ES256 proof; use_dpop_nonce is retried once with the nonce; token_type DPoP accepted")
    func tokenEndpointNonce() async throws {
        let provider = try await HostileProvider.start()
        defer { provider.stop() }
        try await provider.script(["POST /token": [
            HostileProvider.Response(status: 400, headers: [["Content-Type", "application/json"], ["DPoP-Nonce", "server-nonce-1"]], body: #"{"error":"use_dpop_nonce"}"#),
            HostileProvider.Response(body: #"{"access_token":"at-dpop-1","token_type":"DPoP","expires_in":300,"refresh_token":"rt-1"}"#),
        ]])
        let metadata = AuthorizationServerMetadata(issuer: provider.base, tokenEndpoint: URL(string: provider.base + "/token")!)
        let signer = try signer()
        let tokens = try await exchangeCode(metadata: metadata, client: ClientConfiguration(clientID: "rp-native"), response: try validated(provider),
                                            http: provider.http, now: Date(), dpop: signer)
        #expect(tokens.tokenType == "DPoP")
        let requests = try await recorded(provider).filter { $0.request == "POST /token" }
        #expect(requests.count == 2)
        let first = try verifiedProof(requests[0].headers["dpop"]), second = try verifiedProof(requests[1].headers["dpop"])
        #expect(first.header["typ"] == .string("dpop+jwt") && first.header["alg"] == .string("ES256"))
        #expect(first.claims["htm"] as? String == "POST" && first.claims["htu"] as? String == provider.base + "/token")
        #expect(first.claims["nonce"] == nil && second.claims["nonce"] as? String == "server-nonce-1")
        #expect(first.claims["ath"] == nil)
        #expect(first.claims["jti"] as? String != second.claims["jti"] as? String)
        #expect(signer.nonces.nonce(for: URL(string: provider.base + "/other")!) == "server-nonce-1", "the latest nonce is kept per server")
    }

    @Test("DPoP RFC 9449 §5: token_type DPoP answering a request without a proof is refused")
    func dpopWithoutProof() async throws {
        let provider = try await HostileProvider.start()
        defer { provider.stop() }
        try await provider.script(["POST /token": [HostileProvider.Response(body: #"{"access_token":"at-1","token_type":"DPoP","expires_in":300}"#)]])
        let metadata = AuthorizationServerMetadata(issuer: provider.base, tokenEndpoint: URL(string: provider.base + "/token")!)
        do {
            _ = try await exchangeCode(metadata: metadata, client: ClientConfiguration(clientID: "rp-native"), response: try validated(provider),
                                       http: provider.http, now: Date())
            Issue.record("a DPoP token without a proof was accepted")
        } catch let error as AuthError {
            #expect(error == .protocolViolation(.dpopTokenWithoutProof))
        }
        #expect(try await recorded(provider).allSatisfy { $0.headers["dpop"] == nil })
    }

    @Test("DPOP-05, DPoP RFC 9449 §7.1, §9: a resource request sends Authorization: DPoP with ath and retries once on use_dpop_nonce")
    func resourceServerNonce() async throws {
        let provider = try await HostileProvider.start()
        defer { provider.stop() }
        try await provider.script(["GET /api": [
            HostileProvider.Response(status: 401, headers: [["WWW-Authenticate", #"DPoP error="use_dpop_nonce""#], ["DPoP-Nonce", "rs-nonce"]], body: ""),
            HostileProvider.Response(body: #"{"ok":true}"#),
        ]])
        let token = AccessToken("at-dpop-1")
        let http = provider.http.withDPoP(try signer(), accessToken: token)
        let response = try await http.send(HTTPRequest(method: .get, url: URL(string: provider.base + "/api?page=2")!))
        #expect(response.status == 200)
        let requests = try await recorded(provider)
        #expect(requests.count == 2 && requests.allSatisfy { $0.headers["authorization"] == "DPoP at-dpop-1" })
        let proof = try verifiedProof(requests[1].headers["dpop"])
        #expect(proof.claims["nonce"] as? String == "rs-nonce" && proof.claims["htm"] as? String == "GET")
        #expect(proof.claims["htu"] as? String == provider.base + "/api")
        #expect(proof.claims["ath"] as? String == Base64URL.encode(OpenSSLCrypto.live.digest(.sha256, Data("at-dpop-1".utf8))))
    }

    func parMetadata(_ provider: HostileProvider) -> AuthorizationServerMetadata {
        AuthorizationServerMetadata(issuer: provider.base, authorizationEndpoint: URL(string: provider.base + "/authorize")!,
                                    tokenEndpoint: URL(string: provider.base + "/token")!, requirePushedAuthorizationRequests: true,
                                    pushedAuthorizationRequestEndpoint: URL(string: provider.base + "/par")!)
    }

    @Test("PAR RFC 9126 §2.1, §4: the parameters are pushed with client authentication; the URL has only client_id and request_uri")
    func parSuccess() async throws {
        let provider = try await HostileProvider.start()
        defer { provider.stop() }
        try await provider.script(["POST /par": [HostileProvider.Response(status: 201, body: #"{"request_uri":"urn:ietf:params:oauth:request_uri:r1","expires_in":60}"#)]])
        let client = ClientConfiguration(clientID: "rp-confidential", authentication: .clientSecretBasic(ClientSecret("s3cret")))
        let pending = try await pushAuthorizationRequest(
            metadata: parMetadata(provider), client: client,
            request: AuthorizationRequest(scopes: ["openid"], redirectURI: URL(string: "http://127.0.0.1:9/callback")!),
            crypto: OpenSSLCrypto.live, dpopJKT: "jkt-1", http: provider.http, now: Date())
        let items = URLComponents(url: pending.authorizationURL, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(items.map(\.name) == ["client_id", "request_uri"] && items.last?.value == "urn:ietf:params:oauth:request_uri:r1")
        let push = try #require(try await recorded(provider).first)
        #expect(push.headers["authorization"]?.hasPrefix("Basic ") == true)
        let form = Dictionary((FormEncoding.decode(push.body) ?? []).map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(form["client_id"] == "rp-confidential" && form["state"] == pending.state && form["dpop_jkt"] == "jkt-1")
        #expect(form["code_challenge_method"] == "S256" && form["request_uri"] == nil && form["client_secret"] == nil)
    }

    @Test("PAR RFC 9126 §2.2, §2.3: 400 invalid_request, 401 invalid_client, 429 Retry-After, no request_uri, no expires_in: each a typed error",
          arguments: [
            (400, #"{"error":"invalid_request","error_description":"bad scope"}"#, [] as [[String]], PushedAuthorizationFailure.invalidRequest(description: "bad scope")),
            (401, #"{"error":"invalid_client"}"#, [], .invalidClient(description: nil)),
            (429, "", [["Retry-After", "17"]], .tooManyRequests(retryAfter: 17)),
            (201, #"{"expires_in":60}"#, [], .missingMember("request_uri")),
            (201, #"{"request_uri":"urn:ietf:params:oauth:request_uri:r1"}"#, [], .missingMember("expires_in")),
            // A string is not a JSON number (RFC 9126 §2.2); nor is zero a lifetime.
            (201, #"{"request_uri":"urn:ietf:params:oauth:request_uri:r1","expires_in":"60"}"#, [], .missingMember("expires_in")),
            (201, #"{"request_uri":"urn:ietf:params:oauth:request_uri:r1","expires_in":0}"#, [], .missingMember("expires_in")),
          ])
    func parErrors(status: Int, body: String, headers: [[String]], expected: PushedAuthorizationFailure) async throws {
        let provider = try await HostileProvider.start()
        defer { provider.stop() }
        try await provider.script(["POST /par": [HostileProvider.Response(status: status, headers: [["Content-Type", "application/json"]] + headers, body: body)]])
        do {
            _ = try await pushAuthorizationRequest(
                metadata: parMetadata(provider), client: ClientConfiguration(clientID: "rp-native"),
                request: AuthorizationRequest(scopes: ["openid"], redirectURI: URL(string: "http://127.0.0.1:9/callback")!),
                crypto: OpenSSLCrypto.live, http: provider.http, now: Date())
            Issue.record("a refused push produced a URL")
        } catch {
            #expect(error == expected)
        }
        #expect(try await provider.requests() == ["POST /par"], "nothing but the push")
    }
}
