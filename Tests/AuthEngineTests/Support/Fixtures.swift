import Foundation
@testable import AuthEngine

/// RFC 7636 Appendix B: the verifier octets, the verifier, the SHA-256 of its ASCII and the challenge.
enum RFC7636AppendixB {
    static let octets = Data([116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186,
                              22, 212, 37, 77, 105, 214, 191, 240, 91, 88, 5, 88, 83, 132, 141, 121])
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let sha256OfVerifier = Data([19, 211, 30, 150, 26, 26, 216, 236, 47, 22, 177, 12, 76, 152, 46, 8,
                                        118, 168, 120, 173, 109, 241, 68, 86, 110, 225, 137, 74, 203, 112, 249, 195])
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
}

/// The conformance catalogue's test OP (docs/CONFORMANCE.md).
enum OP {
    static let issuer = "https://op.test"
    static let clientID = "rp-native"
    static let redirectURI = URL(string: "http://127.0.0.1:49152/callback")!

    static func metadata(issSupported: Bool? = nil, authorizationEndpoint: String = "https://op.test/authorize") -> AuthorizationServerMetadata {
        AuthorizationServerMetadata(
            issuer: issuer, authorizationEndpoint: URL(string: authorizationEndpoint), tokenEndpoint: URL(string: "https://op.test/token"),
            userinfoEndpoint: URL(string: "https://op.test/userinfo"), jwksURI: URL(string: "https://op.test/jwks"),
            responseTypesSupported: ["code"], subjectTypesSupported: ["public"], idTokenSigningAlgValuesSupported: ["RS256", "ES256"],
            revocationEndpoint: URL(string: "https://op.test/revoke"), introspectionEndpoint: URL(string: "https://op.test/introspect"),
            deviceAuthorizationEndpoint: URL(string: "https://op.test/device"), endSessionEndpoint: URL(string: "https://op.test/logout"),
            authorizationResponseIssParameterSupported: issSupported)
    }

    static let client = ClientConfiguration(clientID: clientID)

    /// A pending request with fixed values (state "state-1", nonce "nonce-1").
    static func pending(scopes: [String] = ["openid", "profile"], maxAge: Int? = nil) -> PendingAuthorization {
        PendingAuthorization(
            authorizationURL: URL(string: "https://op.test/authorize?x=1")!, state: "state-1",
            nonce: scopes.contains("openid") ? "nonce-1" : nil, codeVerifier: CodeVerifier(RFC7636AppendixB.verifier),
            redirectURI: redirectURI.absoluteString, expectedIssuer: issuer, clientID: clientID, requestedScopes: scopes,
            maxAge: maxAge)
    }

    static func callback(_ parameters: [(String, String)], path: String = "/callback", method: String = "GET") -> RedirectCallback {
        RedirectCallback(method: method, path: path, parameters: parameters.map { (name: $0.0, value: $0.1) })
    }

    /// A validated response for the default pending request.
    static func validated(code: String = "code-abc", pending: PendingAuthorization = OP.pending()) throws -> ValidatedAuthorizationResponse {
        try validateAuthorizationResponse(callback: callback([("code", code), ("state", pending.state)]), pending: pending, metadata: metadata())
    }

    /// The RSA signing key `k1` (bytes are placeholders: the stub verifier decides).
    static let rsaKey = JWK(keyType: "RSA", keyID: "k1", use: "sig", algorithm: "RS256", modulus: Data([0, 1, 2, 3]), exponent: Data([1, 0, 1]))
    static let ecKey = JWK(keyType: "EC", keyID: "e1", curve: "P-256", x: Data([1]), y: Data([2]))
    static let keys = JWKSet(keys: [rsaKey, ecKey])

    static let accessToken = AccessToken("at-secret-value-123")
    /// A made-up SHA-256 output for `accessToken` (the test digest is a table); `at_hash` is its left half.
    static let accessTokenDigest = Data((0..<32).map { UInt8($0 * 7 % 256) })
    static var atHash: String { Base64URL.encode(accessTokenDigest.prefix(16)) }

    static func claims(_ overrides: [String: Any?] = [:]) -> [String: Any] {
        var claims: [String: Any] = [
            "iss": issuer, "sub": "alice", "aud": clientID, "exp": testNow.timeIntervalSince1970 + 600,
            "iat": testNow.timeIntervalSince1970 - 10, "nonce": "nonce-1",
        ]
        for (key, value) in overrides { claims[key] = value }
        return claims
    }

    static func idToken(header: [String: Any] = ["alg": "RS256", "kid": "k1", "typ": "JWT"], claims: [String: Any] = OP.claims(),
                        signature: Data = TestCrypto.validSignature) -> RawIDToken {
        RawIDToken(makeJWT(header: header, claims: claims, signature: signature))
    }

    static func options(nonce: ExpectedNonce = .value("nonce-1"), accessTokenHash: ExpectedAccessTokenHash = .accessToken(accessToken),
                        clockTolerance: TimeInterval = 30, isPublic: Bool = true, authTime: AuthTimeRequirement = .notRequested,
                        issuer: String = OP.issuer, serverAlgorithms: [String]? = ["RS256", "ES256"]) -> IDTokenValidationOptions {
        IDTokenValidationOptions(issuer: issuer, clientID: clientID, clientIsPublic: isPublic, nonce: nonce,
                                 accessTokenHash: accessTokenHash, authTime: authTime, clockTolerance: clockTolerance, serverAlgorithms: serverAlgorithms)
    }

    static func crypto() -> TestCrypto {
        TestCrypto(digests: [(.sha256, Data(accessToken.exposedValue.utf8), accessTokenDigest),
                             (.sha256, Data(RFC7636AppendixB.verifier.utf8), RFC7636AppendixB.sha256OfVerifier)])
    }
}
