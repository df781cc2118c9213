import Foundation
import Testing
@testable import AuthEngine

@Suite("ID token validation (OIDC Core §3.1.3.7)")
struct IDTokenTests {
    func validate(_ raw: RawIDToken, options: IDTokenValidationOptions = OP.options(), keys: JWKSet = OP.keys,
                  crypto: TestCrypto = OP.crypto(), now: Date = testNow) throws -> VerifiedIDToken {
        try validateIDToken(raw, keys: keys, options: options, crypto: crypto.provider, now: now)
    }

    @Test("TOK-03 / IDT valid: a correct RS256 token verifies with k1 and keeps every claim")
    func valid() throws {
        let crypto = OP.crypto()
        let verified = try validate(OP.idToken(claims: OP.claims(["at_hash": OP.atHash, "email": "alice@example.test", "x-custom": ["a": 1]])), crypto: crypto)
        #expect(verified.claims.subject == "alice")
        #expect(verified.claims.audience == ["rp-native"])
        #expect(verified.header.keyID == "k1")
        #expect(verified.verifiedWith == OP.rsaKey)
        #expect(verified.claims.all["x-custom"] == .object(["a": .number(1)]))
        #expect(verified.claims.all["email"] == .string("alice@example.test"))
        #expect(crypto.verifiedWith.map(\.0) == [.rs256])
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var header: [String: any Sendable] = ["alg": "RS256", "kid": "k1"]
        var claims: [String: (any Sendable)?] = [:]
        var signature = TestCrypto.validSignature
        var options = OP.options()
        var expected: AuthError? = nil
        var testDescription: String { name }
    }

    static let now = testNow.timeIntervalSince1970

    static let invalidCases: [Case] = [
        Case(name: "IDT-02 invalid-iss: iss = issuer + 1", claims: ["iss": "https://op.test1"],
             expected: .protocolViolation(.idTokenIssuerMismatch(expected: "https://op.test", actual: "https://op.test1"))),
        Case(name: "IDT-03 missing iss", claims: ["iss": nil], expected: .protocolViolation(.missingClaim("iss"))),
        Case(name: "IDT-03 iss with trailing slash", claims: ["iss": "https://op.test/"],
             expected: .protocolViolation(.idTokenIssuerMismatch(expected: "https://op.test", actual: "https://op.test/"))),
        Case(name: "IDT-03 iss differing by case", claims: ["iss": "https://OP.test"],
             expected: .protocolViolation(.idTokenIssuerMismatch(expected: "https://op.test", actual: "https://OP.test"))),
        Case(name: "IDT-04(a) invalid-aud: aud = client_id + 1", claims: ["aud": "rp-native1"],
             expected: .protocolViolation(.audienceMismatch(expected: "rp-native", actual: ["rp-native1"]))),
        Case(name: "IDT-04(b) missing aud", claims: ["aud": nil], expected: .protocolViolation(.missingClaim("aud"))),
        Case(name: "IDT-06 invalid-secondary-aud without azp", claims: ["aud": ["rp-native", "other-client"]],
             expected: .protocolViolation(.audienceMismatch(expected: "rp-native", actual: ["rp-native", "other-client"]))),
        Case(name: "IDT-06 invalid-secondary-aud with azp", claims: ["aud": ["rp-native", "other-client"], "azp": "rp-native"],
             expected: .protocolViolation(.audienceMismatch(expected: "rp-native", actual: ["rp-native", "other-client"]))),
        Case(name: "IDT-07 azp is another client", claims: ["azp": "other-client"],
             expected: .protocolViolation(.azpMismatch(expected: "rp-native", actual: "other-client"))),
        Case(name: "IDT-08 aud is a number", claims: ["aud": 7],
             expected: .protocolViolation(.invalidClaim(name: "aud", expected: "a string or a non-empty array of strings"))),
        Case(name: "IDT-08 aud is an object", claims: ["aud": ["a": "b"]],
             expected: .protocolViolation(.invalidClaim(name: "aud", expected: "a string or a non-empty array of strings"))),
        Case(name: "IDT-08 aud is []", claims: ["aud": [String]()],
             expected: .protocolViolation(.invalidClaim(name: "aud", expected: "a string or a non-empty array of strings"))),
        Case(name: "IDT-08 aud is [rp-native, 7]", claims: ["aud": ["rp-native", 7] as [any Sendable]],
             expected: .protocolViolation(.invalidClaim(name: "aud", expected: "a string or a non-empty array of strings"))),
        Case(name: "IDT-09(a) invalid-expired-exp: exp = now − 6 min", claims: ["exp": now - 360],
             expected: .protocolViolation(.expired(exp: Date(timeIntervalSince1970: now - 360), now: testNow))),
        Case(name: "IDT-09(b) missing-exp", claims: ["exp": nil], expected: .protocolViolation(.missingClaim("exp"))),
        Case(name: "IDT-09(c) exp as a string", claims: ["exp": "1900000000"],
             expected: .protocolViolation(.invalidClaim(name: "exp", expected: "a NumericDate number"))),
        Case(name: "IDT-10 exp = now − 30 s with clock tolerance 0", claims: ["exp": now - 30], options: OP.options(clockTolerance: 0),
             expected: .protocolViolation(.expired(exp: Date(timeIntervalSince1970: now - 30), now: testNow))),
        Case(name: "IDT-10 clock tolerance is capped at 5 min", claims: ["exp": now - 400], options: OP.options(clockTolerance: 3600),
             expected: .protocolViolation(.expired(exp: Date(timeIntervalSince1970: now - 400), now: testNow))),
        Case(name: "IDT-11 missing-iat", claims: ["iat": nil], expected: .protocolViolation(.missingClaim("iat"))),
        Case(name: "IDT-12 F1 iat-is-week-in-past (exp ahead): issued too long ago, OIDC Core §3.1.3.7 step 10", claims: ["iat": now - 7 * 86400],
             expected: .protocolViolation(.issuedTooLongAgo(iat: Date(timeIntervalSince1970: now - 7 * 86400), now: testNow,
                                                            maximumAge: IDTokenValidationOptions.maximumIssuedAtAge))),
        Case(name: "OIDC Core §3.1.3.7 step 10: iat in the future", claims: ["iat": now + 600],
             expected: .protocolViolation(.issuedInFuture(iat: Date(timeIntervalSince1970: now + 600), now: testNow))),
        Case(name: "IDT-13 nbf = now + 10 min", claims: ["nbf": now + 600],
             expected: .protocolViolation(.notYetValid(nbf: Date(timeIntervalSince1970: now + 600), now: testNow))),
        Case(name: "IDT-14 missing sub", claims: ["sub": nil], expected: .protocolViolation(.missingClaim("sub"))),
        Case(name: "IDT-14 empty sub", claims: ["sub": ""], expected: .protocolViolation(.invalidClaim(name: "sub", expected: "a non-empty string"))),
        Case(name: "IDT-14 numeric sub", claims: ["sub": 12345], expected: .protocolViolation(.invalidClaim(name: "sub", expected: "a string"))),
        Case(name: "IDT-15(a) invalid-nonce: nonce = sent + 1", claims: ["nonce": "nonce-11"],
             expected: .protocolViolation(.nonceMismatch(expected: "nonce-1", actual: "nonce-11"))),
        Case(name: "IDT-15(b) invalid-missing-nonce", claims: ["nonce": nil],
             expected: .protocolViolation(.nonceMismatch(expected: "nonce-1", actual: nil))),
        Case(name: "IDT-16 replayed token from a previous login (old nonce)", claims: ["nonce": "nonce-0"],
             options: OP.options(nonce: .value("nonce-1")), expected: .protocolViolation(.nonceMismatch(expected: "nonce-1", actual: "nonce-0"))),
        Case(name: "IDT-17 idtoken-sig-none: alg none", header: ["alg": "none"], signature: Data(),
             expected: .protocolViolation(.algorithmNotAllowed(alg: "none", allowed: ["ES256", "RS256"]))),
        Case(name: "IDT-17 alg None", header: ["alg": "None"], signature: Data(),
             expected: .protocolViolation(.algorithmNotAllowed(alg: "None", allowed: ["ES256", "RS256"]))),
        Case(name: "IDT-17 alg NONE", header: ["alg": "NONE"], signature: Data(),
             expected: .protocolViolation(.algorithmNotAllowed(alg: "NONE", allowed: ["ES256", "RS256"]))),
        Case(name: "IDT-18 invalid-sig-rs256: corrupted signature", signature: Data("corrupted".utf8),
             expected: .protocolViolation(.signatureInvalid(kid: "k1"))),
        Case(name: "IDT-19 / IDT-20 HS256 for a public client (DOT advertises HS256)", header: ["alg": "HS256", "kid": "k1"],
             options: OP.options(serverAlgorithms: ["RS256", "HS256"]),
             expected: .protocolViolation(.algorithmNotAllowed(alg: "HS256", allowed: ["RS256"]))),
        Case(name: "IDT-19 HS256 refused for a confidential client too (no HMAC verification)", header: ["alg": "HS256"],
             options: OP.options(isPublic: false, serverAlgorithms: ["HS256", "RS256"]),
             expected: .protocolViolation(.algorithmNotAllowed(alg: "HS256", allowed: ["RS256"]))),
        Case(name: "IDT-21 alternate alg not advertised (PS256)", header: ["alg": "PS256", "kid": "k1"],
             expected: .protocolViolation(.algorithmNotAllowed(alg: "PS256", allowed: ["ES256", "RS256"]))),
        Case(name: "IDT-22 unknown kid with embedded jwk", header: ["alg": "RS256", "kid": "attacker", "jwk": ["kty": "RSA", "n": "AQ", "e": "AQAB"]],
             expected: .protocolViolation(.noMatchingKey(kid: "attacker"))),
        Case(name: "IDT-23(a) max_age requested, auth_time absent", options: OP.options(authTime: .maxAge(300)),
             expected: .protocolViolation(.missingClaim("auth_time"))),
        Case(name: "IDT-23(b) max_age 300, auth_time = now − 1 h", claims: ["auth_time": now - 3600], options: OP.options(authTime: .maxAge(300)),
             expected: .protocolViolation(.authenticationTooOld(authTime: Date(timeIntervalSince1970: now - 3600), maxAge: 300, now: testNow))),
        Case(name: "IDT-24 at_hash present but wrong", claims: ["at_hash": "AAAAAAAAAAAAAAAAAAAAAA"], expected: .protocolViolation(.atHashMismatch)),
        Case(name: "IDT-25 typ at+jwt", header: ["alg": "RS256", "kid": "k1", "typ": "at+jwt"], expected: .protocolViolation(.unexpectedJWTType("at+jwt"))),
        Case(name: "IDT-25 typ logout+jwt", header: ["alg": "RS256", "kid": "k1", "typ": "logout+jwt"], expected: .protocolViolation(.unexpectedJWTType("logout+jwt"))),
        Case(name: "IDT-25 typ dpop+jwt", header: ["alg": "RS256", "kid": "k1", "typ": "dpop+jwt"], expected: .protocolViolation(.unexpectedJWTType("dpop+jwt"))),
        Case(name: "IDT-25 sibling, RFC 7519 §5.2: cty JWT on a claims payload announces a nested JWT", header: ["alg": "RS256", "kid": "k1", "cty": "JWT"],
             expected: .protocolViolation(.nestedJWT(contentType: "JWT"))),
        Case(name: "IDT-25 sibling, RFC 7519 §5.2: cty application/jwt (any case) too", header: ["alg": "RS256", "kid": "k1", "typ": "JWT", "cty": "Application/JWT"],
             expected: .protocolViolation(.nestedJWT(contentType: "Application/JWT"))),
        Case(name: "IDT-25 sibling, RFC 7515 §4.1.10: cty that is not a string", header: ["alg": "RS256", "kid": "k1", "cty": 7],
             expected: .protocolViolation(.malformedJWT(reason: "cty is not a string"))),
        Case(name: "Entra {tenantid} issuer without tid", options: OP.options(issuer: "https://login.microsoftonline.com/{tenantid}/v2.0"),
             expected: .protocolViolation(.missingClaim("tid"))),
    ]

    @Test("OIDC Core §3.1.3.7: each invalid way is rejected with its rule", arguments: invalidCases)
    func invalid(_ testCase: Case) {
        var claims = OP.claims()
        for (key, value) in testCase.claims { claims[key] = value }
        let raw = OP.idToken(header: testCase.header, claims: claims, signature: testCase.signature)
        #expect(authError { try validate(raw, options: testCase.options) } == testCase.expected)
    }

    static let validCases: [Case] = [
        Case(name: "IDT-05 valid-aud-as-array (one element)", claims: ["aud": ["rp-native"]]),
        Case(name: "IDT-10 exp = now − 30 s with clock tolerance 60", claims: ["exp": now - 30], options: OP.options(clockTolerance: 60)),
        Case(name: "IDT-10 default clock tolerance 30 s accepts exp = now − 20 s", claims: ["exp": now - 20]),
        Case(name: "IDT-24 at_hash absent is accepted", claims: ["at_hash": nil]),
        Case(name: "IDT-25 typ absent", header: ["alg": "RS256", "kid": "k1"]),
        Case(name: "IDT-25 typ JWT", header: ["alg": "RS256", "kid": "k1", "typ": "JWT"]),
        Case(name: "RFC 7515 §4.1.10: a cty that is not JWT (json) does not announce nesting", header: ["alg": "RS256", "kid": "k1", "cty": "json"]),
        Case(name: "IDT-19(a) ES256 token verified with the EC key", header: ["alg": "ES256", "kid": "e1"]),
        Case(name: "JWKS-01 kid-absent-single-jwks", header: ["alg": "RS256"]),
        Case(name: "azp equal to client_id with a single aud", claims: ["azp": "rp-native"]),
        Case(name: "IDT-23 auth_time recent enough", claims: ["auth_time": now - 100], options: OP.options(authTime: .maxAge(300))),
        Case(name: "DEV-05 no nonce sent (device flow): nonce not expected", claims: ["nonce": nil], options: OP.options(nonce: .none)),
        Case(name: "REF-07(a) refresh: nonce equal to the original", options: OP.options(nonce: .ifPresent("nonce-1"))),
        Case(name: "REF-07(c) refresh: nonce absent", claims: ["nonce": nil], options: OP.options(nonce: .ifPresent("nonce-1"))),
        Case(name: "explicit skipCheck of the nonce", claims: ["nonce": "whatever"], options: OP.options(nonce: .skipCheck)),
        Case(name: "explicit skipCheck of at_hash", claims: ["at_hash": "wrong"], options: OP.options(accessTokenHash: .skipCheck)),
        Case(name: "server algorithms unknown: allow-list only", options: OP.options(serverAlgorithms: nil)),
    ]

    @Test("OIDC Core §3.1.3.7: valid variants are accepted", arguments: validCases)
    func validVariants(_ testCase: Case) throws {
        var claims = OP.claims(["at_hash": OP.atHash])
        for (key, value) in testCase.claims { claims[key] = value }
        _ = try validate(OP.idToken(header: testCase.header, claims: claims), options: testCase.options)
    }

    @Test("REF-07(b) refresh: a different nonce is rejected")
    func refreshNonceDifferent() {
        #expect(authError { try validate(OP.idToken(claims: OP.claims(["nonce": "other"])), options: OP.options(nonce: .ifPresent("nonce-1"))) }
            == .protocolViolation(.nonceMismatch(expected: "nonce-1", actual: "other")))
    }

    @Test("OIDC Core §3.1.3.8: at_hash is the base64url of the left-most half of the digest")
    func atHashLeftHalf() throws {
        let crypto = OP.crypto()
        _ = try validate(OP.idToken(claims: OP.claims(["at_hash": Base64URL.encode(OP.accessTokenDigest.prefix(16))])), crypto: crypto)
        #expect(authError { try validate(OP.idToken(claims: OP.claims(["at_hash": Base64URL.encode(OP.accessTokenDigest.suffix(16))])), crypto: crypto) }
            == .protocolViolation(.atHashMismatch))
    }

    @Test("Auth0: aud array with a trusted API audience and azp = client_id")
    func auth0AudienceArray() throws {
        var options = OP.options()
        options.additionalTrustedAudiences = ["https://tenant.auth0.com/userinfo"]
        _ = try validate(OP.idToken(claims: OP.claims(["aud": ["rp-native", "https://tenant.auth0.com/userinfo"], "azp": "rp-native"])), options: options)
        #expect(authError { try validate(OP.idToken(claims: OP.claims(["aud": ["rp-native", "https://tenant.auth0.com/userinfo"]])), options: options) }
            == .protocolViolation(.azpMismatch(expected: "rp-native", actual: nil)))
    }

    @Test("Entra: the {tenantid} template is replaced by tid before comparing")
    func entraTenantTemplate() throws {
        let template = "https://login.microsoftonline.com/{tenantid}/v2.0"
        let tid = "9188040d-6c67-4c5b-b112-36a304b66dad"
        let claims = OP.claims(["iss": "https://login.microsoftonline.com/\(tid)/v2.0", "tid": tid])
        _ = try validate(OP.idToken(claims: claims), options: OP.options(issuer: template))
        let wrong = OP.claims(["iss": "https://login.microsoftonline.com/other/v2.0", "tid": tid])
        #expect(authError { try validate(OP.idToken(claims: wrong), options: OP.options(issuer: template)) }
            == .protocolViolation(.idTokenIssuerMismatch(expected: "https://login.microsoftonline.com/\(tid)/v2.0", actual: "https://login.microsoftonline.com/other/v2.0")))
    }

    @Test("JWKS-11(b) / RFC 7518 §3.3: a key the verifier cannot use is reported as unusable")
    func unusableKey() {
        let crypto = OP.crypto()
        crypto.signatureError = .unusableKey("RSA key shorter than 2048 bits")
        #expect(authError { try validate(OP.idToken(signature: Data("x".utf8)), crypto: crypto) }
            == .protocolViolation(.unsupportedKey(kid: "k1", reason: "RSA key shorter than 2048 bits")))
    }

    @Test("JWKS-02 kid-absent-multiple-jwks: the RSA keys are tried (no crash); rejected when none verifies")
    func kidAbsentMultiple() {
        let keys = JWKSet(keys: [JWK(keyType: "RSA", modulus: Data([1]), exponent: Data([1])), JWK(keyType: "RSA", modulus: Data([2]), exponent: Data([1]))])
        let crypto = OP.crypto()
        #expect(authError { try validate(OP.idToken(header: ["alg": "RS256"], signature: Data("forged".utf8)), keys: keys, crypto: crypto) }
            == .protocolViolation(.signatureInvalid(kid: nil)))
        #expect(crypto.verifiedWith.map(\.1) == keys.keys)
    }

    @Test("RFC 7516: an encrypted ID token is refused")
    func jwe() {
        #expect(authError { try validate(RawIDToken("h.k.iv.ct.tag")) } == .unsupported(.encryptedIDToken))
    }

    @Test("Signature is checked before claims: a forged token with bad claims reports the signature")
    func signatureFirst() {
        #expect(authError { try validate(OP.idToken(claims: OP.claims(["iss": "https://evil.test"]), signature: Data("forged".utf8))) }
            == .protocolViolation(.signatureInvalid(kid: "k1")))
    }

    @Test("Async validation fetches the JWKS through the cache and validates")
    func asyncWithCache() async throws {
        let stub = StubHTTPClient()
        stub.on(.get, "https://op.test/jwks", respond: jsonResponse(["keys": [["kty": "RSA", "kid": "k1", "n": "AQAB", "e": "AQAB"]]]))
        let cache = JWKSCache(metadata: OP.metadata(), http: stub.client)
        let verified = try await validateIDToken(OP.idToken(claims: OP.claims(["at_hash": OP.atHash])), options: OP.options(),
                                                 crypto: OP.crypto().provider, now: testNow, jwksCache: cache)
        #expect(verified.verifiedWith.keyID == "k1")
        #expect(stub.requests.map(\.url.absoluteString) == ["https://op.test/jwks"])
    }
}
