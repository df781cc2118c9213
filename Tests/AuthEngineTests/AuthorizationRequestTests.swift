import Foundation
import Testing
@testable import AuthEngine

@Suite("Authorization request (RFC 6749 §4.1.1, OIDC Core §3.1.2.1)")
struct AuthorizationRequestTests {
    static let stateBytes = Data(repeating: 0xA1, count: 32)
    static let nonceBytes = Data(repeating: 0xB2, count: 32)

    func build(_ request: AuthorizationRequest, endpoint: String = "https://op.test/authorize",
               client: ClientConfiguration = OP.client) throws -> PendingAuthorization {
        let random = request.scopes.contains("openid") ? [Self.stateBytes, Self.nonceBytes, RFC7636AppendixB.octets] : [Self.stateBytes, RFC7636AppendixB.octets]
        let crypto = TestCrypto(digests: [(.sha256, Data(RFC7636AppendixB.verifier.utf8), RFC7636AppendixB.sha256OfVerifier)],
                                random: random)
        return try makeAuthorizationRequest(metadata: OP.metadata(authorizationEndpoint: endpoint), client: client,
                                            request: request, crypto: crypto.provider)
    }

    @Test("AREQ-01, AREQ-05, AREQ-06, AREQ-07: exact URL keeping the endpoint query; state, nonce, S256")
    func exactURL() throws {
        let pending = try build(AuthorizationRequest(scopes: ["openid", "profile", "offline_access"], redirectURI: OP.redirectURI,
                                                     audience: "https://api.test", resources: ["https://api.test/v1"]),
                                endpoint: "https://op.test/authorize?tenant=a")
        let state = Base64URL.encode(Self.stateBytes)
        let nonce = Base64URL.encode(Self.nonceBytes)
        #expect(pending.authorizationURL.absoluteString == "https://op.test/authorize?tenant=a&response_type=code&client_id=rp-native"
            + "&redirect_uri=http%3A%2F%2F127.0.0.1%3A49152%2Fcallback&scope=openid+profile+offline_access"
            + "&state=\(state)&nonce=\(nonce)&code_challenge=\(RFC7636AppendixB.challenge)&code_challenge_method=S256"
            + "&audience=https%3A%2F%2Fapi.test&resource=https%3A%2F%2Fapi.test%2Fv1")
        #expect(pending.state == state)
        #expect(pending.state.count == 43)  // 256 bits ≥ 128 bits
        #expect(pending.nonce == nonce)
        #expect(pending.codeVerifier.exposedValue == RFC7636AppendixB.verifier)
        #expect(pending.redirectURI == "http://127.0.0.1:49152/callback")
        #expect(pending.expectedIssuer == OP.issuer)
    }

    @Test("OIDC Core §3.1.2.1: no nonce without openid; state always")
    func noNonceWithoutOpenID() throws {
        let pending = try build(AuthorizationRequest(scopes: ["repo", "gist"], redirectURI: OP.redirectURI))
        #expect(pending.nonce == nil)
        #expect(!pending.authorizationURL.absoluteString.contains("nonce="))
        #expect(pending.authorizationURL.absoluteString.contains("state="))
        #expect(pending.authorizationURL.absoluteString.contains("scope=repo+gist"))
    }

    @Test("AREQ-07: extra parameters are form-encoded, empty values omitted")
    func extraParameters() throws {
        let client = ClientConfiguration(clientID: "rp-native", extraAuthorizationParameters: [FormParameter("access_type", "offline")])
        let pending = try build(AuthorizationRequest(scopes: ["openid"], redirectURI: OP.redirectURI, loginHint: "",
                                                     extraParameters: [FormParameter("ui_locales", "de fr"), FormParameter("x", "a&b=c/é")]),
                                client: client)
        let url = pending.authorizationURL.absoluteString
        #expect(url.hasSuffix("&access_type=offline&ui_locales=de+fr&x=a%26b%3Dc%2F%C3%A9"))
        #expect(!url.contains("login_hint"))
    }

    @Test("AREQ-07, RFC 6749 §3.1: a parameter repeated with the endpoint query or extras is refused", arguments: [
        ("https://op.test/authorize?client_id=x", [FormParameter]()),
        ("https://op.test/authorize", [FormParameter("state", "mine")]),
        ("https://op.test/authorize", [FormParameter("foo", "1"), FormParameter("foo", "2")]),
    ])
    func repeatedParameter(_ endpoint: String, _ extras: [FormParameter]) {
        let error = authError { try build(AuthorizationRequest(scopes: ["openid"], redirectURI: OP.redirectURI, extraParameters: extras), endpoint: endpoint) }
        guard case .unsupported(.repeatedParameter) = error else {
            Issue.record("expected repeatedParameter, got \(String(describing: error))")
            return
        }
    }

    @Test("RFC 8707 §2: several resources are allowed")
    func severalResources() throws {
        let pending = try build(AuthorizationRequest(scopes: ["openid"], redirectURI: OP.redirectURI, resources: ["https://a.test", "urn:api:b"]))
        #expect(pending.authorizationURL.absoluteString.hasSuffix("&resource=https%3A%2F%2Fa.test&resource=urn%3Aapi%3Ab"))
    }

    @Test("AREQ-11, RFC 8707 §2: fragment or relative resources are refused", arguments: ["https://api.test/#x", "api", "/relative/path"])
    func invalidResource(_ resource: String) {
        #expect(authError { try build(AuthorizationRequest(scopes: ["openid"], redirectURI: OP.redirectURI, resources: [resource])) }
            == .unsupported(.invalidResourceIndicator(resource)))
    }

    @Test("RFC 9728 §1.2, RFC 3986 §3.2.1: a resource with a user name or password is refused, the message without them",
          arguments: ["https://user:pw-secret@api.test/mcp", "http://pw-secret@127.0.0.1:9/x"])
    func credentialsInResource(_ resource: String) {
        let error = authError { try build(AuthorizationRequest(scopes: ["openid"], redirectURI: OP.redirectURI, resources: [resource])) }
        guard case .unsupported(.credentialsInResourceIndicator(let shown)) = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(!shown.contains("pw-secret"))
        #expect(!PresentableError(from: error!).detail.contains("pw-secret"))
        #expect(throws: AuthError.self) { try validateResourceIndicator(resource) }
    }

    @Test("AREQ-08, OIDC Core §3.1.2.1: prompt=none with max_age=0 is refused")
    func promptMaxAgeContradiction() {
        #expect(authError { try build(AuthorizationRequest(scopes: ["openid"], redirectURI: OP.redirectURI, prompt: "none", maxAge: 0)) }
            == .unsupported(.contradictoryPromptAndMaxAge))
        #expect((try? build(AuthorizationRequest(scopes: ["openid"], redirectURI: OP.redirectURI, prompt: "login", maxAge: 0))) != nil)
    }

    @Test("AREQ-02, RFC 8252 §7.3/§8.3: redirect URIs with localhost, a fragment or http off loopback are refused", arguments: [
        "http://localhost:8080/callback", "http://127.0.0.1:8080/callback#x", "http://192.168.1.2:8080/callback",
    ])
    func invalidRedirectURI(_ uri: String) {
        #expect(authError { try build(AuthorizationRequest(scopes: ["openid"], redirectURI: URL(string: uri)!)) }
            == .unsupported(.invalidRedirectURI(uri)))
    }

    @Test("AREQ-02: [::1] loopback redirect URIs are accepted")
    func ipv6Redirect() throws {
        let pending = try build(AuthorizationRequest(scopes: ["openid"], redirectURI: URL(string: "http://[::1]:5000/callback")!))
        #expect(pending.redirectURI == "http://[::1]:5000/callback")
    }

    @Test("DISC-06: an http authorization endpoint off loopback is refused")
    func insecureEndpoint() {
        #expect(authError { try build(AuthorizationRequest(scopes: ["openid"], redirectURI: OP.redirectURI), endpoint: "http://op.test/authorize") }
            == .unsupported(.insecureURL("http://op.test/authorize")))
    }

    @Test("RFC 6749 Appendix B: form encoding and decoding", arguments: [
        ("a b", "a+b"), ("a+b", "a%2Bb"), ("~-._", "~-._"), ("é", "%C3%A9"), ("a=b&c", "a%3Db%26c"), ("https://x/y?z", "https%3A%2F%2Fx%2Fy%3Fz"),
    ])
    func formEncoding(_ raw: String, _ encoded: String) {
        #expect(FormEncoding.encode(raw) == encoded)
        #expect(FormEncoding.decode("k=" + encoded) == [FormParameter("k", raw)])
    }
}
