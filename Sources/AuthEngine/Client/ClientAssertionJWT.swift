import FoundationEssentials

/// Client authentication with a JWT (RFC 7523 §2.2 and §3, RFC 7521 §4.2; OIDC Core §9
/// `private_key_jwt`): an assertion signed by the client's own key, made fresh for each request.
public enum ClientAssertionJWT {
    /// RFC 7523 §2.2 `client_assertion_type`.
    public static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// The longest lifetime of an assertion authdeck signs (seconds): it is used at once.
    public static let maximumLifetime: TimeInterval = 60

    /// A signed assertion (RFC 7523 §3): header `alg` (the key's), `typ: JWT`, `kid` (the key's
    /// RFC 7638 SHA-256 thumbprint, as ``publicJWK(_:crypto:)`` registers it); claims `iss` and
    /// `sub` = `clientID`, `aud` = `audience` (the token endpoint, or the issuer, as the provider
    /// says), `jti` (128 random bits, never reused), `iat` and `exp` (seconds; `exp` at most
    /// ``maximumLifetime`` after `now`).
    /// - Throws: `.unsupported(.clientAssertionSigningFailed)` when the key cannot sign.
    public static func sign(clientID: String, audience: String, key: JWSKeyPair, now: Date, lifetime: TimeInterval = maximumLifetime,
                            crypto: CryptoProvider) throws(AuthError) -> ClientAssertion {
        let issuedAt = now.timeIntervalSince1970.rounded(.down)
        let claims: [String: JSONValue] = [
            "iss": .string(clientID), "sub": .string(clientID), "aud": .string(audience),
            "jti": .string(Base64URL.encode(crypto.randomBytes(16))),
            "iat": .number(issuedAt), "exp": .number(issuedAt + min(max(lifetime, 1), maximumLifetime)),
        ]
        let header: [String: JSONValue] = ["typ": .string("JWT"), "kid": .string(JWKThumbprint.sha256(of: key.publicKey, crypto: crypto))]
        do {
            return ClientAssertion(try CompactJWSSigner.sign(header: header, claims: claims, key: key, crypto: crypto))
        } catch {
            throw .unsupported(.clientAssertionSigningFailed(String(describing: error)))
        }
    }

    /// The public JWK to register with the provider (RFC 7517 §4): the required members
    /// (RFC 7638 §3.2), `kid` (the thumbprint the assertions name), `alg` and `use: sig`; never `d`.
    public static func publicJWK(_ key: JWSKeyPair, crypto: CryptoProvider) -> JSONValue {
        var members = key.publicJWKObject
        members["kid"] = .string(JWKThumbprint.sha256(of: key.publicKey, crypto: crypto))
        members["alg"] = .string(key.algorithm.rawValue)
        members["use"] = .string("sig")
        return .object(members)
    }
}
