import Foundation
import Testing
@testable import AuthEngine

/// Protocol identifiers are compared code unit for code unit. Swift's `==` says
/// `"caf\u{E9}" == "cafe\u{301}"` (canonical equivalence) and `"\u{212A}" == "K"` (KELVIN SIGN);
/// each test serves the canonically equivalent but different spelling and expects the mismatch.
@Suite("Exact comparison of protocol identifiers (code units, no Unicode normalisation)")
struct ExactComparisonTests {
    /// "café" with U+00E9 (composed) and with "e" + U+0301 (decomposed).
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    @Test("Precondition: Swift == treats the two spellings as equal, exactlyEquals does not")
    func swiftEqualityIsCanonical() {
        #expect(Self.composed == Self.decomposed)
        #expect(!Self.composed.exactlyEquals(Self.decomposed))
        #expect("\u{212A}1" == "K1")
        #expect(!"\u{212A}1".exactlyEquals("K1"))
        #expect(Self.composed.exactlyEquals("caf\u{E9}"))
        #expect(!Optional<String>.none.exactlyEquals(""))
        #expect("BeArEr".equalsIgnoringASCIICase("bearer"))
        #expect(!"o\u{212A}p".equalsIgnoringASCIICase("okp"))
        #expect(JWSAlgorithm(exactRawValue: "RS256") == .rs256)
    }

    @Test("DISC-03 exact: discovery issuer composed vs decomposed é is an issuer mismatch")
    func discoveryIssuer() {
        let expected = "https://op.test/" + Self.composed
        let served = "https://op.test/" + Self.decomposed
        let response = jsonResponse(["issuer": served, "authorization_endpoint": "https://op.test/a", "token_endpoint": "https://op.test/t",
                                     "jwks_uri": "https://op.test/j", "response_types_supported": ["code"],
                                     "subject_types_supported": ["public"], "id_token_signing_alg_values_supported": ["RS256"]])
        #expect(authError { try Discovery.processResponse(response, expectedIssuer: expected) }
            == .protocolViolation(.issuerMismatch(expected: expected, actual: served)))
    }

    @Test("IDT-03 exact: ID token iss composed vs decomposed é is rejected")
    func idTokenIssuer() {
        let issuer = "https://op.test/" + Self.composed
        let claims = IDTokenClaims.fixture(["iss": "https://op.test/" + Self.decomposed])
        #expect(authError { try validateIDTokenClaims(claims, options: OP.options(issuer: issuer), crypto: OP.crypto().provider, now: testNow, algorithm: .rs256) }
            == .protocolViolation(.idTokenIssuerMismatch(expected: issuer, actual: "https://op.test/" + Self.decomposed)))
    }

    @Test("IDT-04 exact: aud / client_id composed vs decomposed é is an audience mismatch")
    func audience() {
        var options = OP.options()
        options.clientID = Self.composed
        let claims = IDTokenClaims.fixture(["aud": Self.decomposed])
        #expect(authError { try validateIDTokenClaims(claims, options: options, crypto: OP.crypto().provider, now: testNow, algorithm: .rs256) }
            == .protocolViolation(.audienceMismatch(expected: Self.composed, actual: [Self.decomposed])))
    }

    @Test("IDT-06 exact: a trusted extra audience matches only byte for byte")
    func trustedAudience() {
        var options = OP.options()
        options.additionalTrustedAudiences = ["https://api.test/" + Self.composed]
        let claims = IDTokenClaims.fixture(["aud": [OP.clientID, "https://api.test/" + Self.decomposed], "azp": OP.clientID])
        #expect(authError { try validateIDTokenClaims(claims, options: options, crypto: OP.crypto().provider, now: testNow, algorithm: .rs256) }
            == .protocolViolation(.audienceMismatch(expected: OP.clientID, actual: [OP.clientID, "https://api.test/" + Self.decomposed])))
    }

    @Test("IDT-07 exact: azp composed vs decomposed é is an azp mismatch")
    func authorizedParty() {
        var options = OP.options()
        options.clientID = Self.composed
        let claims = IDTokenClaims.fixture(["aud": Self.composed, "azp": Self.decomposed])
        #expect(authError { try validateIDTokenClaims(claims, options: options, crypto: OP.crypto().provider, now: testNow, algorithm: .rs256) }
            == .protocolViolation(.azpMismatch(expected: Self.composed, actual: Self.decomposed)))
    }

    @Test("IDT-15 exact: nonce composed vs decomposed é is a nonce mismatch (code flow and refresh)")
    func nonce() {
        let claims = IDTokenClaims.fixture(["nonce": Self.decomposed])
        #expect(authError { try validateIDTokenClaims(claims, options: OP.options(nonce: .value(Self.composed)), crypto: OP.crypto().provider, now: testNow, algorithm: .rs256) }
            == .protocolViolation(.nonceMismatch(expected: Self.composed, actual: Self.decomposed)))
        #expect(authError { try validateIDTokenClaims(claims, options: OP.options(nonce: .ifPresent(Self.composed)), crypto: OP.crypto().provider, now: testNow, algorithm: .rs256) }
            == .protocolViolation(.nonceMismatch(expected: Self.composed, actual: Self.decomposed)))
    }

    @Test("IDT-24 exact: at_hash with KELVIN SIGN for K is an at_hash mismatch")
    func accessTokenHash() throws {
        // A digest whose base64url starts with "K" (0x28 = 0b001010_00).
        let digest = Data([0x28] + (1..<32).map { UInt8($0) })
        let crypto = TestCrypto(digests: [(.sha256, Data(OP.accessToken.exposedValue.utf8), digest)])
        let correct = Base64URL.encode(digest.prefix(16))
        #expect(correct.hasPrefix("K"))
        try validateIDTokenClaims(IDTokenClaims.fixture(["at_hash": correct]), options: OP.options(), crypto: crypto.provider, now: testNow, algorithm: .rs256)
        let kelvin = "\u{212A}" + correct.dropFirst()
        #expect(kelvin == correct)
        #expect(authError { try validateIDTokenClaims(IDTokenClaims.fixture(["at_hash": kelvin]), options: OP.options(), crypto: crypto.provider, now: testNow, algorithm: .rs256) }
            == .protocolViolation(.atHashMismatch))
    }

    @Test("ARES-02 exact: state composed vs decomposed é is a state mismatch")
    func state() {
        var pending = OP.pending()
        pending.state = Self.composed
        let callback = OP.callback([("code", "c"), ("state", Self.decomposed)])
        #expect(authError { try validateAuthorizationResponse(callback: callback, pending: pending, metadata: OP.metadata()) }
            == .protocolViolation(.stateMismatch(expected: Self.composed, actual: Self.decomposed)))
        guard case .finish(page: .failure) = decideRedirectCallback(callback, pending: pending, metadata: OP.metadata()).verdict else {
            Issue.record("expected the sign-in to end with a failure page")
            return
        }
    }

    @Test("ARES-04 exact: RFC 9207 iss composed vs decomposed é is an issuer mismatch")
    func authorizationResponseIssuer() {
        var pending = OP.pending()
        pending.expectedIssuer = "https://op.test/" + Self.composed
        let callback = OP.callback([("code", "c"), ("state", "state-1"), ("iss", "https://op.test/" + Self.decomposed)])
        #expect(authError { try validateAuthorizationResponse(callback: callback, pending: pending, metadata: OP.metadata(issSupported: true)) }
            == .protocolViolation(.authorizationResponseIssuerMismatch(expected: pending.expectedIssuer, actual: "https://op.test/" + Self.decomposed)))
    }

    @Test("ARES-11 exact: the redirect path composed vs decomposed é is not the callback")
    func redirectPath() {
        var pending = OP.pending()
        pending.redirectURI = "http://127.0.0.1:49152/" + Self.composed
        let callback = OP.callback([("code", "c"), ("state", "state-1")], path: "/" + Self.decomposed)
        #expect(authError { try validateAuthorizationResponse(callback: callback, pending: pending, metadata: OP.metadata()) }
            == .protocolViolation(.redirectPathMismatch(expected: "/" + Self.composed, actual: "/" + Self.decomposed)))
    }

    @Test("ARES-10 exact: parameter names are compared byte for byte (both spellings are distinct, not a repeat)")
    func parameterNames() throws {
        let callback = OP.callback([("code", "c"), ("state", "state-1"), (Self.composed, "1"), (Self.decomposed, "2")])
        _ = try validateAuthorizationResponse(callback: callback, pending: OP.pending(), metadata: OP.metadata())
    }

    @Test("LOG-03 exact: end-session state composed vs decomposed é is not a confirmation")
    func endSessionState() {
        let pending = PendingEndSession(url: URL(string: "https://op.test/logout")!, state: Self.composed,
                                        postLogoutRedirectURI: "http://127.0.0.1:49152/logout-callback")
        let callback = OP.callback([("state", Self.decomposed)], path: "/logout-callback")
        #expect(authError { try validateEndSessionCallback(callback, pending: pending) }
            == .protocolViolation(.endSessionStateMismatch(expected: Self.composed, actual: Self.decomposed)))
        #expect(decideEndSessionCallback(callback, pending: pending).verdict == .ignore)
    }

    @Test("UI-03 exact: userinfo sub composed vs decomposed é is a subject mismatch")
    func userInfoSubject() {
        #expect(authError { try processUserInfoResponse(jsonResponse(["sub": Self.decomposed]), expectedSubject: Self.composed, now: testNow) }
            == .protocolViolation(.userInfoSubjectMismatch(expected: Self.composed, actual: Self.decomposed)))
    }

    @Test("REF-05 exact: a refreshed ID token's sub composed vs decomposed é is another user")
    func refreshedSubject() {
        let original = IDTokenClaims.fixture(["sub": Self.composed])
        #expect(authError { try checkRefreshedIdentity(IDTokenClaims.fixture(["sub": Self.decomposed]), original: original) }
            == .protocolViolation(.refreshedIDTokenSubjectMismatch(expected: Self.composed, actual: Self.decomposed)))
    }

    @Test("REF-04 exact: a refreshed ID token's iss composed vs decomposed é is another issuer")
    func refreshedIssuer() {
        let original = IDTokenClaims.fixture(["iss": "https://op.test/" + Self.composed])
        #expect(authError { try checkRefreshedIdentity(IDTokenClaims.fixture(["iss": "https://op.test/" + Self.decomposed]), original: original) }
            == .protocolViolation(.refreshedIDTokenIssuerMismatch(expected: "https://op.test/" + Self.composed, actual: "https://op.test/" + Self.decomposed)))
    }

    @Test("JWKS-07 exact: kid composed vs decomposed é matches no key")
    func keyID() {
        let key = JWK(keyType: "RSA", keyID: "k-" + Self.composed, use: "sig", modulus: Data([1]), exponent: Data([1]))
        #expect(authError { try selectVerificationKey(in: JWKSet(keys: [key]), header: JOSEHeader(algorithm: "RS256", keyID: "k-" + Self.decomposed), algorithm: .rs256) }
            == .protocolViolation(.noMatchingKey(kid: "k-" + Self.decomposed)))
    }

    @Test("JWKS-10 exact: kty spelled with KELVIN SIGN (O\u{212A}P) is not OKP and is skipped")
    func keyType() throws {
        let body = #"{"keys":[{"kty":"O\u212AP","crv":"Ed25519","x":"AQ"},{"kty":"OKP","crv":"Ed25519","x":"AQ","kid":"good"}]}"#
        let set = try JWKSet(parsing: Data(body.utf8))
        #expect(set.keys.map(\.keyID) == ["good"])
    }

    @Test("JWKS-07 exact: use/alg/key_ops/crv must match byte for byte", arguments: [
        JWK(keyType: "EC", keyID: "e", use: "sig", curve: "P-256\u{301}", x: Data([1]), y: Data([2])),
        JWK(keyType: "EC", keyID: "e", use: "sig", algorithm: "ES256\u{301}", curve: "P-256", x: Data([1]), y: Data([2])),
    ])
    func keyParameters(_ key: JWK) {
        #expect(authError { try selectVerificationKey(in: JWKSet(keys: [key]), header: JOSEHeader(algorithm: "ES256", keyID: "e"), algorithm: .es256) }
            == .protocolViolation(.noMatchingKey(kid: "e")))
    }
}

@Suite("Secrets compare byte for byte")
struct RedactedEqualityTests {
    @Test("REF-03 exact: a token spelled with KELVIN SIGN is not equal to the stored one (so a refreshed ID token is never taken as unchanged)")
    func redactedIsByteEqual() {
        let stored = RawIDToken("eyJK.payload.sig")
        let served = RawIDToken("eyJ\u{212A}.payload.sig")
        #expect(stored.exposedValue == served.exposedValue)
        #expect(stored != served)
        #expect(Set([stored, served]).count == 2)
        #expect(AccessToken("caf\u{E9}") != AccessToken("cafe\u{301}"))
        #expect(AccessToken("same") == AccessToken("same"))
    }
}

extension IDTokenClaims {
    /// Claims of the default test token with `overrides`.
    static func fixture(_ overrides: [String: Any?] = [:]) -> IDTokenClaims {
        try! IDTokenClaims(payload: JSONSerialization.data(withJSONObject: OP.claims(overrides)))
    }
}
