import Foundation
import Testing
@testable import AuthEngine

/// Rules of OIDC Core §3.1.3.7 / §12.2, RFC 7515, RFC 7519 and RFC 9207 that had no test of
/// their own; each fails without its check.
@Suite("Spec rules, one test each (OIDC Core §3.1.3.7, §12.2; RFC 7515; RFC 7519; RFC 9207)")
struct SpecRuleTests {
    static func original(_ overrides: [String: Any?] = [:]) throws -> IDTokenClaims {
        try IDTokenClaims(payload: JSONSerialization.data(withJSONObject: OP.claims(overrides)))
    }

    func refreshed(_ overrides: [String: Any?], original: IDTokenClaims) throws -> VerifiedIDToken {
        let tokens = TokenSet(response: TokenResponse(accessToken: OP.accessToken, tokenType: "Bearer"), requestedScopes: [], now: testNow)
        let options = IDTokenValidationOptions(refreshOf: original, metadata: OP.metadata(), client: OP.client, tokens: tokens)
        return try validateRefreshedIDToken(OP.idToken(claims: OP.claims(overrides)), original: original, options: options, keys: OP.keys,
                                            crypto: OP.crypto().provider, now: testNow)
    }

    // MARK: OIDC Core §12.2

    @Test("OIDC Core §12.2: the refreshed aud must be the original's (an added trusted audience is still another aud)")
    func refreshedAudience() throws {
        let original = try Self.original()
        var options = IDTokenValidationOptions(refreshOf: original, metadata: OP.metadata(), client: OP.client,
                                               tokens: TokenSet(response: TokenResponse(accessToken: OP.accessToken, tokenType: "Bearer"), requestedScopes: [], now: testNow))
        options.additionalTrustedAudiences = ["https://api.test"]
        let raw = OP.idToken(claims: OP.claims(["aud": [OP.clientID, "https://api.test"], "azp": OP.clientID]))
        let error = authError { try validateRefreshedIDToken(raw, original: original, options: options, keys: OP.keys, crypto: OP.crypto().provider, now: testNow) }
        #expect(error == .protocolViolation(.refreshedIDTokenAudienceMismatch(expected: [OP.clientID], actual: [OP.clientID, "https://api.test"])))
        #expect(error?.invalidatesGrant == true)
    }

    @Test("OIDC Core §12.2: aud as a string or a one-element array is the same aud")
    func refreshedAudienceSameSet() throws {
        _ = try refreshed(["aud": [OP.clientID]], original: try Self.original())
    }

    @Test("OIDC Core §12.2 (errata 2): azp must be the original's; absent in the original means absent in the refresh")
    func refreshedAuthorizedParty() throws {
        #expect(authError { try refreshed(["azp": OP.clientID], original: try Self.original()) }
            == .protocolViolation(.refreshedIDTokenAuthorizedPartyMismatch(expected: nil, actual: OP.clientID)))
        #expect(authError { try refreshed([:], original: try Self.original(["azp": OP.clientID])) }
            == .protocolViolation(.refreshedIDTokenAuthorizedPartyMismatch(expected: OP.clientID, actual: nil)))
        _ = try refreshed(["azp": OP.clientID], original: try Self.original(["azp": OP.clientID]))
    }

    @Test("OIDC Core §12.2: auth_time, when present, may not go back before the original authentication's; a later one (the user signed in again elsewhere) is kept")
    func refreshedAuthTime() throws {
        let authTime = testNow.timeIntervalSince1970 - 3600
        let original = try Self.original(["auth_time": authTime])
        _ = try refreshed(["auth_time": authTime], original: original)
        _ = try refreshed([:], original: original)
        let later = try refreshed(["auth_time": testNow.timeIntervalSince1970 - 5], original: original)
        #expect(later.claims.authTime == Date(timeIntervalSince1970: testNow.timeIntervalSince1970 - 5))
        #expect(authError { try refreshed(["auth_time": authTime - 60], original: original) }
            == .protocolViolation(.refreshedIDTokenAuthTimeMismatch(expected: Date(timeIntervalSince1970: authTime),
                                                                    actual: Date(timeIntervalSince1970: authTime - 60))))
    }

    @Test("OIDC Core §12.2: a nonce in a refreshed ID token when the original had none is rejected")
    func refreshedNonceWithoutOriginal() throws {
        let original = try Self.original(["nonce": nil])
        _ = try refreshed(["nonce": nil], original: original)
        #expect(authError { try refreshed(["nonce": "injected"], original: original) }
            == .protocolViolation(.nonceMismatch(expected: nil, actual: "injected")))
    }

    @Test("OIDC Core §12.2: a refreshed ID token is held to the first sign-in's rules too, with the keys from the JWKS cache (device-flow original without nonce)")
    func refreshedIDTokenChecksFirstSignInRules() async throws {
        let raw = OP.idToken(claims: OP.claims(["nonce": nil, "aud": [OP.clientID, "other"], "azp": OP.clientID]))
        let tokens = TokenSet(response: TokenResponse(accessToken: AccessToken("x"), tokenType: "Bearer"), requestedScopes: [], now: testNow)
        let original = try Self.original(["nonce": nil])
        let error = await asyncAuthError {
            try await validateRefreshedIDToken(raw, original: original, metadata: OP.metadata(), client: OP.client, tokens: tokens,
                                               crypto: OP.crypto().provider, now: testNow,
                                               jwksCache: JWKSCache { () async throws(AuthError) -> JWKSet in OP.keys })
        }
        // `other` is not trusted: the first-login rules (§3.1.3.7 step 3) already refuse it.
        #expect(error == .protocolViolation(.audienceMismatch(expected: OP.clientID, actual: [OP.clientID, "other"])))
    }

    // MARK: OIDC Core §3.1.3.7

    @Test("OIDC Core §3.1.3.7 step 4: several audiences (all trusted) need an azp")
    func multipleAudiencesNeedAzp() {
        var options = OP.options()
        options.additionalTrustedAudiences = ["https://api.test"]
        let claims = IDTokenClaims.fixture(["aud": [OP.clientID, "https://api.test"]])
        #expect(authError { try validateIDTokenClaims(claims, options: options, crypto: OP.crypto().provider, now: testNow, algorithm: .rs256) }
            == .protocolViolation(.azpMismatch(expected: OP.clientID, actual: nil)))
    }

    @Test("OIDC Core §3.1.3.7 step 10: iat beyond the clock tolerance in the future is rejected; within it accepted")
    func iatInFuture() throws {
        let now = testNow.timeIntervalSince1970
        try validateIDTokenClaims(IDTokenClaims.fixture(["iat": now + 20]), options: OP.options(), crypto: OP.crypto().provider, now: testNow, algorithm: .rs256)
        #expect(authError { try validateIDTokenClaims(IDTokenClaims.fixture(["iat": now + 40]), options: OP.options(), crypto: OP.crypto().provider, now: testNow, algorithm: .rs256) }
            == .protocolViolation(.issuedInFuture(iat: Date(timeIntervalSince1970: now + 40), now: testNow)))
    }

    @Test("IDT-12 (F1 iat-is-week-in-past), OIDC Core §3.1.3.7 step 10: an iat a week ago is rejected although exp is ahead; 10 min + clock tolerance is the bound")
    func iatTooLongAgo() throws {
        let now = testNow.timeIntervalSince1970
        let bound = IDTokenValidationOptions.maximumIssuedAtAge
        #expect(bound == 600)
        func check(_ iat: Double, _ options: IDTokenValidationOptions = OP.options()) throws {
            try validateIDTokenClaims(IDTokenClaims.fixture(["iat": iat, "exp": now + 3600]), options: options, crypto: OP.crypto().provider,
                                      now: testNow, algorithm: .rs256)
        }
        #expect(authError { try check(now - 7 * 86_400) }
            == .protocolViolation(.issuedTooLongAgo(iat: Date(timeIntervalSince1970: now - 7 * 86_400), now: testNow, maximumAge: bound)))
        #expect(authError { try check(now - bound - 31) }
            == .protocolViolation(.issuedTooLongAgo(iat: Date(timeIntervalSince1970: now - bound - 31), now: testNow, maximumAge: bound)))
        try check(now - bound - 29)
        var unbounded = OP.options()
        unbounded.issuedAt = .skipCheck
        try check(now - 7 * 86_400, unbounded)
        #expect(PresentableError(from: .protocolViolation(.issuedTooLongAgo(iat: testNow, now: testNow, maximumAge: bound))).specReference == "OIDC Core §3.1.3.7 step 10")
    }

    @Test("OIDC Core §3.1.3.7 step 7: an alg the server does not advertise is refused even when we verify it")
    func algNotAdvertised() {
        #expect(authError { try validateIDToken(OP.idToken(header: ["alg": "ES256", "kid": "e1"]), keys: OP.keys, options: OP.options(serverAlgorithms: ["RS256"]),
                                                crypto: OP.crypto().provider, now: testNow) }
            == .protocolViolation(.algorithmNotAllowed(alg: "ES256", allowed: ["RS256"])))
    }

    // MARK: RFC 7515

    @Test("RFC 7515 §5.2 step 2: base64url with whitespace, line breaks or padding is malformed", arguments: [" ", "\n", "="])
    func base64urlStrict(_ extra: String) {
        let good = OP.idToken().exposedValue
        let parts = good.split(separator: ".").map(String.init)
        let bad = parts[0] + extra + "." + parts[1] + "." + parts[2]
        guard case .protocolViolation(.malformedJWT) = authError({ try CompactJWS(parsing: bad) }) else {
            Issue.record("expected malformedJWT with \(extra.debugDescription)")
            return
        }
    }

    @Test("RFC 7515 §4.1.1: alg is case-sensitive (rs256 is not RS256)")
    func algCaseSensitive() {
        #expect(authError { try validateIDToken(OP.idToken(header: ["alg": "rs256", "kid": "k1"]), keys: OP.keys, options: OP.options(), crypto: OP.crypto().provider, now: testNow) }
            == .protocolViolation(.algorithmNotAllowed(alg: "rs256", allowed: ["ES256", "RS256"])))
    }

    @Test("RFC 7515 §4.1.4 / RFC 7517 §4.5: kid is case-sensitive (K1 does not select k1)")
    func kidCaseSensitive() {
        #expect(authError { try selectVerificationKey(in: OP.keys, header: JOSEHeader(algorithm: "RS256", keyID: "K1"), algorithm: .rs256) }
            == .protocolViolation(.noMatchingKey(kid: "K1")))
    }

    @Test("RFC 7515 §4.1.9 / RFC 8725 §3.11: typ is compared case-insensitively as a media type (jwt, application/JWT accepted)", arguments: ["jwt", "application/JWT"])
    func typCaseInsensitive(_ typ: String) throws {
        _ = try validateIDToken(OP.idToken(header: ["alg": "RS256", "kid": "k1", "typ": typ]), keys: OP.keys, options: OP.options(accessTokenHash: .skipCheck),
                                crypto: OP.crypto().provider, now: testNow)
    }

    // MARK: RFC 7519

    @Test("RFC 7519 §4.1.6: iat must be a NumericDate number (a string is invalid)")
    func iatType() {
        #expect(authError { try IDTokenClaims(payload: JSONSerialization.data(withJSONObject: OP.claims(["iat": "1900000000"]))) }
            == .protocolViolation(.invalidClaim(name: "iat", expected: "a NumericDate number")))
    }

    @Test("RFC 7519 §4.1.5: nbf must be a NumericDate number")
    func nbfType() {
        #expect(authError { try IDTokenClaims(payload: JSONSerialization.data(withJSONObject: OP.claims(["nbf": "soon"]))) }
            == .protocolViolation(.invalidClaim(name: "nbf", expected: "a NumericDate number")))
    }

    @Test("RFC 7519 §7.3: StringOrURI values are compared without case folding (sub Alice is not alice on refresh)")
    func subjectCaseSensitive() throws {
        #expect(authError { try refreshed(["sub": "Alice"], original: try Self.original()) }
            == .protocolViolation(.refreshedIDTokenSubjectMismatch(expected: "alice", actual: "Alice")))
    }

    // MARK: RFC 9207

    @Test("RFC 9207 §2.4: iss is compared after form-decoding, by simple string comparison (no normalisation)", arguments: [
        "https://op.test/", "https://OP.test", "https://op.test:443", "https://op%2Etest",
    ])
    func issSimpleComparison(_ iss: String) {
        let callback = OP.callback([("code", "c"), ("state", "state-1"), ("iss", iss)])
        #expect(authError { try validateAuthorizationResponse(callback: callback, pending: OP.pending(), metadata: OP.metadata(issSupported: true)) }
            == .protocolViolation(.authorizationResponseIssuerMismatch(expected: "https://op.test", actual: iss)))
    }

    @Test("RFC 9207 §2.4: iss is required on error responses too when advertised; the error is not assumed to be the provider's")
    func issOnErrorResponses() {
        let callback = OP.callback([("error", "access_denied"), ("error_description", "x"), ("state", "state-1")])
        let error = authError { try validateAuthorizationResponse(callback: callback, pending: OP.pending(), metadata: OP.metadata(issSupported: true)) }
        #expect(error == .protocolViolation(.missingAuthorizationResponseIssuer(expected: "https://op.test", unverifiedError: .accessDenied)))
        // With the right iss the same error is the provider's denial.
        let good = OP.callback([("error", "access_denied"), ("state", "state-1"), ("iss", "https://op.test")])
        #expect(authError { try validateAuthorizationResponse(callback: good, pending: OP.pending(), metadata: OP.metadata(issSupported: true)) }
            == .authorizationDenied(AuthorizationErrorParameters(code: .accessDenied, stateMatched: true)))
    }
}
