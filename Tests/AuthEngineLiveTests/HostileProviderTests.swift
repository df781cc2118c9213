import AuthEngine
import AuthEngineLive
import Foundation
import Testing

/// An RSA signing key made with the `openssl` CLI (test fixture), as a public JWK, and RS256
/// signatures made with it.
struct TestRSAKey {
    let path: String
    let kid: String?
    let modulus: Data

    static func make(kid: String?, in directory: TemporaryDirectory, name: String) async throws -> TestRSAKey {
        let path = directory.path("\(name).pem")
        try await runTool(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", path])
        let line = String(decoding: try await runTool(["openssl", "rsa", "-in", path, "-noout", "-modulus"]), as: UTF8.self)
        let hex = line.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "Modulus=", with: "")
        return TestRSAKey(path: path, kid: kid, modulus: try OpenSSLVector.bytes(hex: hex))
    }

    var jwk: JWK { JWK(keyType: "RSA", keyID: kid, use: "sig", algorithm: "RS256", modulus: modulus, exponent: Data([1, 0, 1])) }

    /// The JWK as JSON text.
    var json: String {
        var members = [#""kty":"RSA""#, #""use":"sig""#, #""alg":"RS256""#, #""n":"\#(base64URLEncoded(modulus))""#, #""e":"AQAB""#]
        if let kid { members.insert(#""kid":"\#(kid)""#, at: 1) }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// A compact JWS over the given header and claims JSON texts (sent byte for byte), RS256.
    func sign(header: String, claims: String, in directory: TemporaryDirectory) async throws -> String {
        let input = base64URLEncoded(Data(header.utf8)) + "." + base64URLEncoded(Data(claims.utf8))
        let inputPath = directory.path("input-\(UUID().uuidString)")
        let signaturePath = inputPath + ".sig"
        try Data(input.utf8).write(to: URL(fileURLWithPath: inputPath))
        try await runTool(["openssl", "dgst", "-sha256", "-sign", path, "-out", signaturePath, inputPath])
        return input + "." + base64URLEncoded(try Data(contentsOf: URL(fileURLWithPath: signaturePath)))
    }
}

/// The scriptable hostile provider (Fixtures/HostileProviderScript.swift) on 127.0.0.1, started
/// and stopped by PID per test.
struct HostileProvider {
    let server: FixtureServer
    let http: HTTPClient
    var base: String { "http://127.0.0.1:\(server.port)" }

    static func start() async throws -> HostileProvider {
        let server = try await FixtureServer.start(source: HostileProviderScript.source)
        return HostileProvider(server: server, http: CurlHTTPClient.live(configuration: CurlHTTPConfiguration(connectTimeout: 2, totalTimeout: 10)))
    }

    struct Response: Encodable {
        var status = 200
        var headers: [[String]] = [["Content-Type", "application/json"]]
        var body: String
        var delay: Double?
    }

    /// Replaces the script: "METHOD /path" → the responses served in turn.
    func script(_ routes: [String: [Response]]) async throws {
        let body = try JSONEncoder().encode(["routes": routes])
        let response = try await http.send(HTTPRequest(method: .post, url: URL(string: base + "/_script")!,
                                                       headers: [HTTPHeader("Content-Type", "application/json")], body: body))
        guard response.status == 204 else { throw FixtureError("scripting the hostile provider failed: \(response.status)") }
    }

    /// Every request the provider received since the script was set, as "METHOD /path".
    func requests() async throws -> [String] {
        let response = try await http.send(HTTPRequest(method: .get, url: URL(string: base + "/_requests")!))
        return try JSONDecoder().decode([String].self, from: response.body)
    }

    func stop() { server.stop() }

    static let discovery = #"{"issuer":"{base}","authorization_endpoint":"{base}/authorize","token_endpoint":"{base}/token","userinfo_endpoint":"{base}/userinfo","jwks_uri":"{base}/jwks","response_types_supported":["code"],"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["RS256"]}"#
}

/// The catalogue end to end: the engine, libcurl and libcrypto against a provider
/// that serves crafted documents over a real socket. Each rejection also checks that no further
/// protocol call followed (the OIDF suite's pass condition for negative modules).
@Suite("Hostile provider end to end (real HTTP, real RS256)", .serialized)
struct HostileProviderTests {
    static let nonce = "n-0123456789"
    static let state = "s-0123456789"

    func pending(_ provider: HostileProvider, scopes: [String] = ["openid"]) -> PendingAuthorization {
        PendingAuthorization(authorizationURL: URL(string: provider.base + "/authorize")!, state: Self.state, nonce: scopes.contains("openid") ? Self.nonce : nil,
                             codeVerifier: CodeVerifier("verifier-0123456789-0123456789-0123456789"), redirectURI: "http://127.0.0.1:9/callback",
                             expectedIssuer: provider.base, clientID: "rp-native", requestedScopes: scopes, maxAge: nil)
    }

    func claims(_ provider: HostileProvider, sub: String = "alice") -> String {
        let now = Int(Date().timeIntervalSince1970)
        return #"{"iss":"\#(provider.base)","sub":"\#(sub)","aud":"rp-native","exp":\#(now + 300),"iat":\#(now),"nonce":"\#(Self.nonce)"}"#
    }

    static func tokenResponse(idToken: String?, extra: String = #","token_type":"Bearer","expires_in":300"#) -> String {
        #"{"access_token":"at-hostile-1""# + extra + (idToken.map { #","id_token":"\#($0)""# } ?? "") + "}"
    }

    /// Discovery, the code exchange and the ID token validation, as LiveSession runs them.
    func signIn(_ provider: HostileProvider, scopes: [String] = ["openid"], jwksCache: JWKSCache? = nil) async throws -> SignInResult {
        let metadata = try await fetchMetadata(issuer: provider.base, http: provider.http)
        let pending = pending(provider, scopes: scopes)
        let validated = try validateAuthorizationResponse(
            callback: RedirectCallback(method: "GET", path: "/callback", parameters: [("code", "code-1"), ("state", Self.state)]),
            pending: pending, metadata: metadata)
        return try await completeAuthorizationCodeGrant(
            metadata: metadata, client: ClientConfiguration(clientID: "rp-native"), response: validated, http: provider.http,
            crypto: OpenSSLCrypto.live, jwksCache: jwksCache ?? JWKSCache(metadata: metadata, http: provider.http), now: Date())
    }

    func expectAuthError(_ body: () async throws -> some Any, sourceLocation: SourceLocation = #_sourceLocation) async -> AuthError? {
        do {
            _ = try await body()
            Issue.record("expected an AuthError", sourceLocation: sourceLocation)
            return nil
        } catch let error as AuthError {
            return error
        } catch {
            Issue.record("expected an AuthError, got \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    @Test("Key rollover: two RSA keys under kid k1; the ID token signed with the new one verifies (was: ambiguous key)")
    func rolloverSameKid() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let old = try await TestRSAKey.make(kid: "k1", in: directory, name: "old")
        let new = try await TestRSAKey.make(kid: "k1", in: directory, name: "new")
        let provider = try await HostileProvider.start()
        defer { provider.stop() }
        let idToken = try await new.sign(header: #"{"alg":"RS256","kid":"k1","typ":"JWT"}"#, claims: claims(provider), in: directory)
        try await provider.script([
            "GET /.well-known/openid-configuration": [.init(body: HostileProvider.discovery)],
            "GET /jwks": [.init(body: #"{"keys":[\#(old.json),\#(new.json)]}"#)],
            "POST /token": [.init(body: Self.tokenResponse(idToken: idToken))],
        ])
        let result = try await signIn(provider)
        #expect(result.idToken?.verifiedWith == new.jwk)
        #expect(result.idToken?.claims.subject == "alice")
        #expect(try await provider.requests() == ["GET /.well-known/openid-configuration", "POST /token", "GET /jwks"])
    }

    @Test("JWKS-04 (oidcc-client-test-signing-key-rotation-just-before-signing): kid B after the JWKS was fetched with A — re-fetched once, accepted")
    func rotationJustBeforeSigning() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyA = try await TestRSAKey.make(kid: "A", in: directory, name: "a")
        let keyB = try await TestRSAKey.make(kid: "B", in: directory, name: "b")
        let provider = try await HostileProvider.start()
        defer { provider.stop() }
        let idToken = try await keyB.sign(header: #"{"alg":"RS256","kid":"B"}"#, claims: claims(provider), in: directory)
        try await provider.script([
            "GET /.well-known/openid-configuration": [.init(body: HostileProvider.discovery)],
            "GET /jwks": [.init(body: #"{"keys":[\#(keyA.json)]}"#), .init(body: #"{"keys":[\#(keyA.json),\#(keyB.json)]}"#)],
            "POST /token": [.init(body: Self.tokenResponse(idToken: idToken))],
        ])
        let metadata = try await fetchMetadata(issuer: provider.base, http: provider.http)
        let cache = JWKSCache(metadata: metadata, http: provider.http)
        _ = try await cache.keySet(now: Date()) // fetched at start-up
        let result = try await signIn(provider, jwksCache: cache)
        #expect(result.idToken?.verifiedWith == keyB.jwk)
        #expect(try await provider.requests().filter { $0 == "GET /jwks" }.count == 2)
    }

    @Test("IDT-18 (oidcc-client-test-invalid-sig-rs256): a corrupted real RS256 signature is refused; no userinfo request follows")
    func corruptedSignature() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key = try await TestRSAKey.make(kid: "k1", in: directory, name: "k")
        let provider = try await HostileProvider.start()
        defer { provider.stop() }
        let signed = try await key.sign(header: #"{"alg":"RS256","kid":"k1"}"#, claims: claims(provider), in: directory)
        // Change one character in the middle of the signature (the last one may only carry padding bits).
        var characters = Array(signed)
        let index = characters.lastIndex(of: ".")! + 20
        characters[index] = characters[index] == "A" ? "B" : "A"
        let idToken = String(characters)
        try await provider.script([
            "GET /.well-known/openid-configuration": [.init(body: HostileProvider.discovery)],
            "GET /jwks": [.init(body: #"{"keys":[\#(key.json)]}"#)],
            "POST /token": [.init(body: Self.tokenResponse(idToken: idToken))],
        ])
        let error = await expectAuthError { try await signIn(provider) }
        #expect(error == .protocolViolation(.signatureInvalid(kid: "k1")))
        #expect(try await !provider.requests().contains("GET /userinfo"))
    }

    @Test("PARSE-09, RFC 7515 §4: an ID token whose header is {alg:RS256, alg:none} (validly signed) is refused before any key is fetched")
    func duplicateAlgEndToEnd() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key = try await TestRSAKey.make(kid: "k1", in: directory, name: "k")
        let provider = try await HostileProvider.start()
        defer { provider.stop() }
        let idToken = try await key.sign(header: #"{"alg":"RS256","kid":"k1","alg":"none"}"#, claims: claims(provider), in: directory)
        try await provider.script([
            "GET /.well-known/openid-configuration": [.init(body: HostileProvider.discovery)],
            "GET /jwks": [.init(body: #"{"keys":[\#(key.json)]}"#)],
            "POST /token": [.init(body: Self.tokenResponse(idToken: idToken))],
        ])
        let error = await expectAuthError { try await signIn(provider) }
        #expect(error == .protocolViolation(.duplicateMember(name: "alg", context: "JOSE header")))
        #expect(try await provider.requests() == ["GET /.well-known/openid-configuration", "POST /token"])
    }

    @Test("RFC 7519 §5.2: a validly signed ID token whose header says cty JWT over plain claims is refused as a nested JWT, before any key is fetched")
    func nestedJWTAnnouncedEndToEnd() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key = try await TestRSAKey.make(kid: "k1", in: directory, name: "k")
        let provider = try await HostileProvider.start()
        defer { provider.stop() }
        let idToken = try await key.sign(header: #"{"alg":"RS256","kid":"k1","cty":"JWT"}"#, claims: claims(provider), in: directory)
        try await provider.script([
            "GET /.well-known/openid-configuration": [.init(body: HostileProvider.discovery)],
            "GET /jwks": [.init(body: #"{"keys":[\#(key.json)]}"#)],
            "POST /token": [.init(body: Self.tokenResponse(idToken: idToken))],
        ])
        let error = await expectAuthError { try await signIn(provider) }
        #expect(error == .protocolViolation(.nestedJWT(contentType: "JWT")))
        #expect(try await provider.requests() == ["GET /.well-known/openid-configuration", "POST /token"])
    }

    @Test("PARSE-09, RFC 7519 §4: validly signed claims with two sub are refused")
    func duplicateSubEndToEnd() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key = try await TestRSAKey.make(kid: "k1", in: directory, name: "k")
        let provider = try await HostileProvider.start()
        defer { provider.stop() }
        let claims = String(claims(provider).dropLast()) + #","sub":"mallory"}"#
        let idToken = try await key.sign(header: #"{"alg":"RS256","kid":"k1"}"#, claims: claims, in: directory)
        try await provider.script([
            "GET /.well-known/openid-configuration": [.init(body: HostileProvider.discovery)],
            "GET /jwks": [.init(body: #"{"keys":[\#(key.json)]}"#)],
            "POST /token": [.init(body: Self.tokenResponse(idToken: idToken))],
        ])
        let error = await expectAuthError { try await signIn(provider) }
        #expect(error == .protocolViolation(.duplicateMember(name: "sub", context: "JWT claims")))
    }

    @Test("PARSE-09: discovery with two issuer members is refused; no other request follows")
    func duplicateIssuerEndToEnd() async throws {
        let provider = try await HostileProvider.start()
        defer { provider.stop() }
        try await provider.script([
            "GET /.well-known/openid-configuration": [.init(body: HostileProvider.discovery.replacingOccurrences(of: #""issuer":"{base}","#, with: #""issuer":"{base}","issuer":"https://evil.test","#))],
        ])
        let error = await expectAuthError { try await signIn(provider) }
        #expect(error == .protocolViolation(.duplicateMember(name: "issuer", context: "discovery document")))
        #expect(try await provider.requests() == ["GET /.well-known/openid-configuration"])
    }

    @Test("DISC-02 (oidcc-client-test-discovery-issuer-mismatch): issuer + INVALID is refused; the authorization and token endpoints are never called")
    func issuerMismatchEndToEnd() async throws {
        let provider = try await HostileProvider.start()
        defer { provider.stop() }
        try await provider.script([
            "GET /.well-known/openid-configuration": [.init(body: HostileProvider.discovery.replacingOccurrences(of: #""issuer":"{base}""#, with: #""issuer":"{base}INVALID""#))],
        ])
        let error = await expectAuthError { try await signIn(provider) }
        #expect(error == .protocolViolation(.issuerMismatch(expected: provider.base, actual: provider.base + "INVALID")))
        #expect(try await provider.requests() == ["GET /.well-known/openid-configuration"])
    }

    @Test("TOK-05 / TOK-10 leniency: no token_type and expires_in \"soon\" — signed in as Bearer, expiry unknown, two warnings")
    func lenientTokenResponseEndToEnd() async throws {
        let provider = try await HostileProvider.start()
        defer { provider.stop() }
        try await provider.script([
            "GET /.well-known/openid-configuration": [.init(body: HostileProvider.discovery)],
            "POST /token": [.init(body: Self.tokenResponse(idToken: nil, extra: #","expires_in":"soon""#))],
        ])
        let result = try await signIn(provider, scopes: ["repo"])
        #expect(result.tokens.tokenType == "Bearer")
        #expect(result.tokens.expiresAt == nil)
        #expect(result.tokens.warnings == [.tokenTypeMissingAssumedBearer, .expiresInUnusable])
    }

    @Test("TOK-12: a captive portal answering the token request with text/html is refused")
    func captivePortal() async throws {
        let provider = try await HostileProvider.start()
        defer { provider.stop() }
        try await provider.script([
            "GET /.well-known/openid-configuration": [.init(body: HostileProvider.discovery)],
            "POST /token": [.init(headers: [["Content-Type", "text/html"]], body: "<html>Log in to the Wi-Fi</html>")],
        ])
        let error = await expectAuthError { try await signIn(provider) }
        #expect(error == .protocolViolation(.unexpectedContentType(expected: "application/json", actual: "text/html")))
    }

    @Test("UI-03 (oidcc-client-test-userinfo-invalid-sub) and PARSE-09: userinfo for another sub, or with two sub, is refused")
    func userInfoEndToEnd() async throws {
        let provider = try await HostileProvider.start()
        defer { provider.stop() }
        try await provider.script([
            "GET /.well-known/openid-configuration": [.init(body: HostileProvider.discovery)],
            "GET /userinfo": [.init(body: #"{"sub":"mallory"}"#), .init(body: #"{"sub":"alice","sub":"mallory"}"#)],
        ])
        let metadata = try await fetchMetadata(issuer: provider.base, http: provider.http)
        func userInfo() async throws -> UserInfoResponse {
            try await fetchUserInfo(metadata: metadata, client: ClientConfiguration(clientID: "rp-native"), accessToken: AccessToken("at"),
                                    expectedSubject: "alice", http: provider.http, now: Date())
        }
        #expect(await expectAuthError { try await userInfo() } == .protocolViolation(.userInfoSubjectMismatch(expected: "alice", actual: "mallory")))
        #expect(await expectAuthError { try await userInfo() } == .protocolViolation(.duplicateMember(name: "sub", context: "UserInfo response")))
    }
    @Test("UI-07, OIDC Core §5.3.2: a UserInfo answer of type application/jwt, RS256-signed with the provider's key, is verified and its claims read; one signed by another key is refused")
    func signedUserInfoEndToEnd() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key = try await TestRSAKey.make(kid: "k1", in: directory, name: "k")
        let attacker = try await TestRSAKey.make(kid: "k1", in: directory, name: "attacker")
        let provider = try await HostileProvider.start()
        defer { provider.stop() }
        let claims = #"{"iss":"\#(provider.base)","aud":"rp-native","sub":"alice","email":"alice@example.test"}"#
        let good = try await key.sign(header: #"{"alg":"RS256","kid":"k1"}"#, claims: claims, in: directory)
        let forged = try await attacker.sign(header: #"{"alg":"RS256","kid":"k1"}"#, claims: claims, in: directory)
        try await provider.script([
            "GET /.well-known/openid-configuration": [.init(body: HostileProvider.discovery)],
            "GET /jwks": [.init(body: #"{"keys":[\#(key.json)]}"#)],
            "GET /userinfo": [.init(headers: [["Content-Type", "application/jwt"]], body: good), .init(headers: [["Content-Type", "application/jwt"]], body: forged)],
        ])
        let metadata = try await fetchMetadata(issuer: provider.base, http: provider.http)
        let verifier = SignedUserInfoVerifier(crypto: OpenSSLCrypto.live, jwksCache: JWKSCache(metadata: metadata, http: provider.http))
        func userInfo() async throws -> UserInfoResponse {
            try await fetchUserInfo(metadata: metadata, client: ClientConfiguration(clientID: "rp-native"), accessToken: AccessToken("at"),
                                    expectedSubject: "alice", http: provider.http, now: Date(), verifyingSigned: verifier)
        }
        let info = try await userInfo()
        #expect(info.claims["email"] == .string("alice@example.test"))
        #expect(await expectAuthError { try await userInfo() } == .protocolViolation(.signatureInvalid(kid: "k1")))
    }
}
