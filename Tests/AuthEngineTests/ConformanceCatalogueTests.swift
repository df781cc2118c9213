import Foundation
import Synchronization
import Testing
@testable import AuthEngine

/// The conformance catalogue (conformance.md, the shared specification) case by case: each test is named with
/// the case id (and the OIDF module where the row has one) and asserts the typed outcome.
/// ID-token rows reuse the rule tables of IDTokenTests; the rest are served here.
@Suite("Conformance catalogue, case by case (docs/CONFORMANCE.md)")
struct ConformanceCatalogueTests {
    typealias Case = IDTokenTests.Case

    static func invalid(_ prefix: String) -> [Case] { IDTokenTests.invalidCases.filter { $0.name.hasPrefix(prefix) } }
    static func valid(_ prefix: String) -> [Case] { IDTokenTests.validCases.filter { $0.name.hasPrefix(prefix) } }

    func rejects(_ testCase: Case, sourceLocation: SourceLocation = #_sourceLocation) {
        var claims = OP.claims()
        for (key, value) in testCase.claims { claims[key] = value }
        let raw = OP.idToken(header: testCase.header, claims: claims, signature: testCase.signature)
        #expect(authError({ try validateIDToken(raw, keys: OP.keys, options: testCase.options, crypto: OP.crypto().provider, now: testNow) },
                          sourceLocation: sourceLocation) == testCase.expected, sourceLocation: sourceLocation)
    }

    func accepts(_ testCase: Case) throws {
        var claims = OP.claims(["at_hash": OP.atHash])
        for (key, value) in testCase.claims { claims[key] = value }
        _ = try validateIDToken(OP.idToken(header: testCase.header, claims: claims), keys: OP.keys, options: testCase.options,
                                crypto: OP.crypto().provider, now: testNow)
    }

    // MARK: 5. ID token

    @Test("IDT-05 (F2 valid-aud-as-array): aud [\"rp-native\"] is accepted", arguments: valid("IDT-05"))
    func idt05(_ testCase: Case) throws { try accepts(testCase) }

    @Test("IDT-08, RFC 7519 §4.1.3: aud a number, an object, [] or [\"rp-native\",7] is rejected", arguments: invalid("IDT-08"))
    func idt08(_ testCase: Case) { rejects(testCase) }

    @Test("IDT-09 (F2 invalid-expired-exp, invalid-missing-exp): exp now − 6 min, absent, or a string is rejected", arguments: invalid("IDT-09"))
    func idt09(_ testCase: Case) { rejects(testCase) }

    @Test("IDT-10, OIDC Core §3.1.3.7 step 9: clock tolerance accepts now − 30 s at 60 s, rejects at 0, capped at 5 min",
          arguments: invalid("IDT-10") + valid("IDT-10"))
    func idt10(_ testCase: Case) throws {
        if testCase.expected == nil { try accepts(testCase) } else { rejects(testCase) }
    }

    @Test("IDT-11 (oidcc-client-test-missing-iat): iat absent is rejected", arguments: invalid("IDT-11"))
    func idt11(_ testCase: Case) { rejects(testCase) }

    @Test("IDT-13, RFC 7519 §4.1.5: nbf = now + 10 min is rejected", arguments: invalid("IDT-13"))
    func idt13(_ testCase: Case) { rejects(testCase) }

    @Test("IDT-14 (oidcc-client-test-missing-sub): sub absent, empty or a number is rejected", arguments: invalid("IDT-14"))
    func idt14(_ testCase: Case) { rejects(testCase) }

    @Test("IDT-16, OIDC Core §3.1.3.7 step 11: a replayed ID token of an earlier login (old nonce) is rejected", arguments: invalid("IDT-16"))
    func idt16(_ testCase: Case) { rejects(testCase) }

    @Test("IDT-17 (oidcc-client-test-idtoken-sig-none, F2 invalid-null-alg): alg none / None / NONE is rejected", arguments: invalid("IDT-17"))
    func idt17(_ testCase: Case) { rejects(testCase) }

    @Test("IDT-18 (oidcc-client-test-invalid-sig-rs256): a corrupted RS256 signature is rejected", arguments: invalid("IDT-18"))
    func idt18(_ testCase: Case) { rejects(testCase) }

    @Test("IDT-19 (oidcc-client-test-invalid-sig-es256 / -hs256): ES256 valid accepted, corrupted rejected; HS* refused")
    func idt19() throws {
        try accepts(Self.valid("IDT-19(a)")[0])
        rejects(Case(name: "IDT-19(b)", header: ["alg": "ES256", "kid": "e1"], signature: Data("corrupted".utf8),
                     expected: .protocolViolation(.signatureInvalid(kid: "e1"))))
        for testCase in Self.invalid("IDT-19") { rejects(testCase) }
    }

    @Test("IDT-20, RFC 8725 §2.1: HS256 keyed with the OP's RSA public key (JWK, PEM, DER) is refused before any key is used")
    func idt20() {
        let crypto = OP.crypto()
        for header: [String: any Sendable] in [["alg": "HS256", "kid": "k1"], ["alg": "HS256"], ["alg": "HS384", "kid": "k1"], ["alg": "HS512"]] {
            let raw = OP.idToken(header: header)
            guard case .protocolViolation(.algorithmNotAllowed) = authError({ try validateIDToken(raw, keys: OP.keys, options: OP.options(serverAlgorithms: ["RS256", "HS256", "HS384", "HS512"]), crypto: crypto.provider, now: testNow) }) else {
                Issue.record("expected algorithmNotAllowed for \(header)")
                continue
            }
        }
        #expect(crypto.verifiedWith.isEmpty)
    }

    @Test("IDT-22, RFC 8725 §3.10: jku / x5u / jwk / x5c in the header are never used; an unknown kid is refused")
    func idt22() {
        for testCase in Self.invalid("IDT-22") { rejects(testCase) }
        for extra: [String: any Sendable] in [["jku": "https://attacker.test/jwks"], ["x5u": "https://attacker.test/cert"], ["x5c": ["MIIB"]]] {
            var header: [String: any Sendable] = ["alg": "RS256", "kid": "zz"]
            for (key, value) in extra { header[key] = value }
            rejects(Case(name: "IDT-22", header: header, expected: .protocolViolation(.noMatchingKey(kid: "zz"))))
        }
    }

    @Test("IDT-23, OIDC Core §3.1.2.1: with max_age, auth_time absent or 1 h old is rejected; recent is accepted",
          arguments: invalid("IDT-23") + valid("IDT-23"))
    func idt23(_ testCase: Case) throws {
        if testCase.expected == nil { try accepts(testCase) } else { rejects(testCase) }
    }

    @Test("IDT-25, RFC 8725 §3.11: typ at+jwt / dpop+jwt / logout+jwt rejected; absent and JWT accepted",
          arguments: invalid("IDT-25") + valid("IDT-25"))
    func idt25(_ testCase: Case) throws {
        if testCase.expected == nil { try accepts(testCase) } else { rejects(testCase) }
    }

    // MARK: 6. JWKS

    @Test("JWKS-01 (oidcc-client-test-kid-absent-single-jwks): one RSA key, no kid, RS256 token without kid is accepted")
    func jwks01() throws {
        let key = JWK(keyType: "RSA", modulus: Data([1]), exponent: Data([1, 0, 1]))
        let verified = try validateIDToken(OP.idToken(header: ["alg": "RS256"]), keys: JWKSet(keys: [key]), options: OP.options(),
                                           crypto: OP.crypto().provider, now: testNow)
        #expect(verified.verifiedWith == key)
    }

    // MARK: 14. Parsing

    @Test("PARSE-01, RFC 7515 §7.1: 2 or 4 segments are malformed; 5 (JWE, not negotiated) is refused", arguments: ["a.b", "a.b.c.d", "e30.e30", "e30.e30.c2ln.c2ln"])
    func parse01(_ compact: String) {
        guard case .protocolViolation(.malformedJWT) = authError({ try CompactJWS(parsing: compact) }) else {
            Issue.record("expected malformedJWT for \(compact)")
            return
        }
    }

    @Test("PARSE-01: a 5-segment token is refused as an unsupported JWE")
    func parse01JWE() {
        #expect(authError { try validateIDToken(RawIDToken("e30.e30.e30.e30.e30"), keys: OP.keys, options: OP.options(), crypto: OP.crypto().provider, now: testNow) }
            == .unsupported(.encryptedIDToken))
    }

    @Test("PARSE-05, RFC 7515 §4.1.11: crit with an unknown name, [], alg, an absent name, or b64:false is refused", arguments: [
        ["alg": "RS256", "crit": ["x-unknown"], "x-unknown": 1] as [String: any Sendable],
        ["alg": "RS256", "crit": [String]()], ["alg": "RS256", "crit": ["alg"]], ["alg": "RS256", "crit": ["absent"]],
        ["alg": "RS256", "b64": false, "crit": ["b64"]],
    ])
    func parse05(_ header: [String: any Sendable]) {
        guard case .protocolViolation(.unsupportedCriticalHeader) = authError({ try CompactJWS(parsing: makeJWT(header: header, claims: ["sub": "a"])) }) else {
            Issue.record("expected unsupportedCriticalHeader for \(header)")
            return
        }
    }

    // MARK: 13. Transport (clock)

    @Test("TLS-06, RFC 7519 §4.1.4: a clock 10 min slow or fast gives the typed clock errors (issuedInFuture / expired) with both times, clock tolerance bounded")
    func tls06() {
        let now = testNow.timeIntervalSince1970
        // Our clock is 10 minutes slow: the token was issued "in the future".
        rejects(Case(name: "TLS-06 slow", claims: ["iat": now + 600, "exp": now + 900], options: OP.options(clockTolerance: 300),
                     expected: .protocolViolation(.issuedInFuture(iat: Date(timeIntervalSince1970: now + 600), now: testNow))))
        // Our clock is 10 minutes fast: a 5-minute token has already expired.
        rejects(Case(name: "TLS-06 fast", claims: ["iat": now - 600, "exp": now - 400], options: OP.options(clockTolerance: 3600),
                     expected: .protocolViolation(.expired(exp: Date(timeIntervalSince1970: now - 400), now: testNow))))
        #expect(PresentableError(from: .protocolViolation(.issuedInFuture(iat: testNow, now: testNow))).detail.contains("clock"))
        #expect(PresentableError(from: .protocolViolation(.expired(exp: testNow, now: testNow))).detail.contains("clock"))
    }

    // MARK: 2. Authorization request

    @Test("AREQ-09, RFC 9700 §2.1.2: only response_type=code is ever requested (no token / id_token token), no password is asked")
    func areq09() throws {
        let crypto = TestCrypto(digests: [(.sha256, Data(RFC7636AppendixB.verifier.utf8), RFC7636AppendixB.sha256OfVerifier)],
                                random: [Data(repeating: 1, count: 32), Data(repeating: 2, count: 32), RFC7636AppendixB.octets])
        let pending = try makeAuthorizationRequest(metadata: OP.metadata(), client: OP.client,
                                                   request: AuthorizationRequest(scopes: ["openid"], redirectURI: OP.redirectURI), crypto: crypto.provider)
        let items = URLComponents(url: pending.authorizationURL, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(items.filter { $0.name == "response_type" }.map(\.value) == ["code"])
        #expect(!items.contains { ["password", "username"].contains($0.name) })
        #expect(GrantType.allCasesForTesting.allSatisfy { $0 != "password" && $0 != "implicit" })
    }

    // MARK: 4. Token response / DPoP

    @Test("DPOP-03, RFC 9449 §5: token_type DPoP (any case) is accepted after a proof and refused without one", arguments: ["DPoP", "dpop"])
    func dpop03(_ type: String) throws {
        #expect(authError { try parseTokenResponse(jsonResponse(["access_token": "at", "token_type": type]), now: testNow) } == .protocolViolation(.dpopTokenWithoutProof))
        #expect(try parseTokenResponse(jsonResponse(["access_token": "at", "token_type": type]), now: testNow, dpopProofSent: true).tokenType == type)
    }

    @Test("DPOP-04, RFC 9449 §5: Bearer after a proof is refused when DPoP is required (always), else used as Bearer")
    func dpop04() throws {
        #expect(throws: AuthError.unsupported(.tokenType("Bearer"))) { try DPoP.checkTokenType("Bearer", proofSent: true, setting: .always) }
        try DPoP.checkTokenType("Bearer", proofSent: true, setting: .auto)
    }

    @Test("DPOP-05, DPoP RFC 9449 §4.2: htu has no query or fragment; §8, §9 (scheme any case): use_dpop_nonce challenges at the token endpoint and a resource server")
    func dpopHTUAndNonce() {
        #expect(DPoP.htu(URL(string: "https://api.test:8443/v1/items?page=2#top")!) == "https://api.test:8443/v1/items")
        let token = HTTPResponse(status: 400, headers: ["Content-Type": "application/json", "DPoP-Nonce": "n1"], body: Data(#"{"error":"use_dpop_nonce"}"#.utf8))
        #expect(DPoP.nonceChallenge(token) == "n1")
        let resource = HTTPResponse(status: 401, headers: ["WWW-Authenticate": #"dPoP error="use_dpop_nonce""#, "DPoP-Nonce": "r1"])
        #expect(DPoP.nonceChallenge(resource) == "r1")
        #expect(DPoP.nonceChallenge(HTTPResponse(status: 400, headers: ["Content-Type": "application/json"], body: Data(#"{"error":"use_dpop_nonce"}"#.utf8))) == nil)
        #expect(DPoP.nonceChallenge(HTTPResponse(status: 401, headers: ["WWW-Authenticate": "Bearer", "DPoP-Nonce": "x"])) == nil)
    }

    @Test("RFC 9449 §8.2: a server's latest DPoP nonce is saved once per change and read by the next process's store on first use")
    func dpopNonceKeptBetweenProcesses() {
        let kept = Mutex<[String: String]>([:])
        let saves = Mutex(0)
        let persistence = DPoPNonceStore.Persistence(load: { origin in kept.withLock { $0[origin] } },
                                                     save: { origin, nonce in kept.withLock { $0[origin] = nonce }; saves.withLock { $0 += 1 } })
        let token = URL(string: "https://op.test/token")!
        let first = DPoPNonceStore(persistence: persistence)
        #expect(first.nonce(for: token) == nil)
        first.remember("n1", for: token)
        first.remember("n1", for: token)
        #expect(saves.withLock { $0 } == 1, "unchanged: not written again")
        #expect(kept.withLock { $0 } == ["https://op.test:": "n1"])
        let next = DPoPNonceStore(persistence: persistence)
        #expect(next.nonce(for: URL(string: "https://OP.test/other")!) == "n1", "per server (origin), any path")
        #expect(next.nonce(for: URL(string: "https://api.test/x")!) == nil)
        next.remember("n2", for: token)
        #expect(kept.withLock { $0["https://op.test:"] } == "n2" && saves.withLock { $0 } == 2)
    }

    // MARK: 9. Device flow

    @Test("DEV-03, RFC 8628 §3.3.1: verification_uri_complete is kept in addition to verification_uri and user_code, never instead")
    func dev03() throws {
        let response = jsonResponse(["device_code": "d", "user_code": "WDJB-MJHT", "verification_uri": "https://op.test/device",
                                     "verification_uri_complete": "https://op.test/device?user_code=WDJB-MJHT", "expires_in": 600])
        let authorization = try processDeviceAuthorizationResponse(response, metadata: OP.metadata(), scopes: ["openid"], now: testNow)
        #expect(authorization.response.userCode == "WDJB-MJHT")
        #expect(authorization.response.verificationURI.absoluteString == "https://op.test/device")
        #expect(authorization.response.verificationURIComplete?.absoluteString == "https://op.test/device?user_code=WDJB-MJHT")
    }

    // MARK: 10. Revocation

    @Test("REV-03, RFC 7009 §2.2.1: 503 with Retry-After 10 is 'not confirmed' with the delay, never 'revoked'")
    func rev03() throws {
        let outcome = try processRevocationResponse(HTTPResponse(status: 503, headers: ["Retry-After": "10"]), now: testNow)
        #expect(outcome == .serviceUnavailable(retryAfter: 10))
    }

    // MARK: 13. Secrets in output

    @Test("TLS-05, RFC 6749 §10.3: tokens, code, verifier and client secret redact in descriptions, requests and errors")
    func tls05() throws {
        let secrets: [String] = [
            String(describing: AccessToken("at-secret")), String(describing: RefreshToken("rt-secret")), String(describing: RawIDToken("id-secret")),
            String(describing: CodeVerifier("verifier-secret")), String(describing: AuthorizationCode("code-secret")), String(reflecting: ClientSecret("cs-secret")),
        ]
        for text in secrets { #expect(!text.contains("secret")) }
        let request = try makeRefreshTokenRequest(metadata: OP.metadata(), client: OP.client, refreshToken: RefreshToken("rt-secret"))
        #expect(!String(describing: request).contains("rt-secret"))
        let pending = OP.pending()
        #expect(!String(describing: pending).contains(RFC7636AppendixB.verifier))
    }
}

extension GrantType {
    /// The grant types the engine can send (it never sends `password`, RFC 9700 §2.4).
    static var allCasesForTesting: [String] { [GrantType.authorizationCode, .refreshToken, .deviceCode].map(\.rawValue) }
}

@Suite("Conformance catalogue: UserInfo claims")
struct ConformanceUserInfoTests {
    @Test("UI-08 (oidcc-client-test-aggregated-claims / -distributed-claims), OIDC Core §5.1: email counts as verified only for boolean true; aggregated/distributed claims are kept as plain data, never fetched", arguments: [
        (#"{"sub":"alice","email":"a@example.test","email_verified":true}"#, true),
        (#"{"sub":"alice","email":"a@example.test","email_verified":"true"}"#, false),
        (#"{"sub":"alice","email":"a@example.test","email_verified":false}"#, false),
        (#"{"sub":"alice","email":"a@example.test"}"#, false),
        (#"{"sub":"alice","email_verified":true}"#, false),
        (#"{"sub":"alice","email":"a@example.test","email_verified":1}"#, false),
    ])
    func ui08(_ body: String, _ verified: Bool) throws {
        let info = try processUserInfoResponse(textResponse(body, contentType: "application/json"), expectedSubject: "alice", now: testNow)
        #expect(info.emailIsVerified == verified)
        let claims = try IDTokenClaims(payload: Data(rawClaims(String(body.dropFirst(#"{"sub":"alice""#.count).dropLast()).trimmingCharacters(in: CharacterSet(charactersIn: ","))).utf8))
        #expect(claims.emailIsVerified == verified)
    }

    @Test("UI-08: _claim_names / _claim_sources are ignored (no request is made for them)")
    func ui08Distributed() async throws {
        let http = StubHTTPClient()
        http.on(.get, "https://op.test/userinfo", respond: textResponse(
            #"{"sub":"alice","_claim_names":{"payment_info":"src1"},"_claim_sources":{"src1":{"endpoint":"https://attacker.test/claims","access_token":"x"}}}"#,
            contentType: "application/json"))
        let info = try await fetchUserInfo(metadata: OP.metadata(), client: OP.client, accessToken: OP.accessToken, expectedSubject: "alice", http: http.client, now: testNow)
        #expect(info.claims["payment_info"] == nil)
        #expect(http.requests.map(\.url.absoluteString) == ["https://op.test/userinfo"])
    }
}

@Suite("Conformance catalogue: PAR")
struct ConformanceParTests {
    @Test("PAR-01, RFC 9126 §2.1, §4, §5: every parameter is pushed (no request_uri in the push); the browser URL has only client_id and request_uri")
    func par01() throws {
        var metadata = OP.metadata()
        metadata.requirePushedAuthorizationRequests = true
        // The front channel alone stays refused for such a provider.
        #expect(authError { try makeAuthorizationRequest(metadata: metadata, client: OP.client,
                                                         request: AuthorizationRequest(scopes: ["openid"], redirectURI: OP.redirectURI), crypto: OP.crypto().provider) }
            == .unsupported(.pushedAuthorizationRequestsRequired))
        #expect(throws: AuthError.unsupported(.missingEndpoint("pushed_authorization_request_endpoint"))) {
            try PushedAuthorization.shouldPush(metadata: metadata, setting: .auto)
        }
        metadata.pushedAuthorizationRequestEndpoint = URL(string: "https://op.test/par")!
        #expect(try PushedAuthorization.shouldPush(metadata: metadata, setting: .auto))
        let (push, pending) = try PushedAuthorization.makeRequest(metadata: metadata, client: OP.client,
                                                                  request: AuthorizationRequest(scopes: ["openid"], redirectURI: OP.redirectURI),
                                                                  crypto: TestCrypto(digests: [(.sha256, Data(RFC7636AppendixB.verifier.utf8), RFC7636AppendixB.sha256OfVerifier)],
                                                                                     random: [Data(repeating: 0xB1, count: 32), Data(repeating: 0xB2, count: 32), RFC7636AppendixB.octets]).provider,
                                                                  dpopJKT: "jkt-1")
        #expect(push.method == .post && push.url.absoluteString == "https://op.test/par")
        let form = FormEncoding.decode(String(decoding: push.body ?? Data(), as: UTF8.self)) ?? []
        let names = form.map(\.name)
        for name in ["response_type", "client_id", "redirect_uri", "scope", "state", "nonce", "code_challenge", "code_challenge_method", "dpop_jkt"] {
            #expect(names.filter { $0 == name }.count == 1, "\(name) pushed once")
        }
        #expect(!names.contains("request_uri"))
        let answer = HTTPResponse(status: 201, headers: ["Content-Type": "application/json"],
                                  body: Data(#"{"request_uri":"urn:ietf:params:oauth:request_uri:abc","expires_in":60}"#.utf8))
        let ready = try PushedAuthorization.processResponse(answer, pending: pending, clientID: OP.client.clientID, now: Date())
        let items = URLComponents(url: ready.authorizationURL, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(items.map(\.name) == ["client_id", "request_uri"])
        #expect(items.last?.value == "urn:ietf:params:oauth:request_uri:abc")
        #expect(ready.state == pending.state)
        let decoded = try AuthorizationServerMetadata(json: .object(["issuer": .string("https://op.test"), "require_pushed_authorization_requests": .bool(true)]))
        #expect(decoded.requirePushedAuthorizationRequests == true)
    }
}
