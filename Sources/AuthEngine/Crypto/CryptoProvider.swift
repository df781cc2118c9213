import FoundationEssentials

/// Why a signature check did not pass. The engine maps these to
/// `ProtocolViolation.signatureInvalid` / `.unsupportedKey`.
public enum SignatureVerificationError: Error, Sendable, Equatable {
    /// The signature does not verify with the key.
    case invalidSignature
    /// The key cannot be used with the algorithm (wrong `kty`/`crv`, bad sizes, RSA < 2048 bits).
    case unusableKey(String)
    /// The algorithm is not implemented (HS*, `none`).
    case unsupportedAlgorithm(JWSAlgorithm)
}

/// The cryptography the pure engine needs, injected (the live value uses OpenSSL libcrypto in
/// `AuthEngineLive`). The engine never hand-rolls a hash, a random number or a signature check.
public struct CryptoProvider: Sendable {
    /// Message digest of `data`.
    public var digest: @Sendable (_ algorithm: DigestAlgorithm, _ data: Data) -> Data
    /// `count` bytes from a cryptographically secure generator. Traps if the generator fails.
    public var randomBytes: @Sendable (_ count: Int) -> Data
    /// Verifies a JWS signature (RFC 7515 §5.2) over `signingInput` (ASCII of
    /// `BASE64URL(header).BASE64URL(payload)`). ECDSA signatures arrive as raw `r||s`
    /// (RFC 7518 §3.4); the implementation converts them to DER itself.
    public var verifySignature: @Sendable (_ algorithm: JWSAlgorithm, _ key: JWK, _ signingInput: Data, _ signature: Data)
        throws(SignatureVerificationError) -> Void
    /// A new key pair for `algorithm` (`.es256` on P-256, `.edDSA` on Ed25519).
    public var generateKeyPair: @Sendable (_ algorithm: JWSAlgorithm) throws(JWSSigningError) -> JWSKeyPair
    /// The JWS signature (RFC 7515 §5.1) of `signingInput` with `key`; ECDSA as raw `r||s`
    /// (RFC 7518 §3.4), EdDSA as the 64 signature bytes (RFC 8037 §3.1).
    public var sign: @Sendable (_ key: JWSKeyPair, _ signingInput: Data) throws(JWSSigningError) -> Data
    /// Reads a PKCS#8 PEM private key (`-----BEGIN PRIVATE KEY-----`, RFC 5958) as an ES256
    /// key pair; `.unusableKey` for anything that is not a P-256 EC key.
    public var readPKCS8P256: @Sendable (_ pem: Data) throws(JWSSigningError) -> JWSKeyPair

    public init(
        digest: @escaping @Sendable (DigestAlgorithm, Data) -> Data,
        randomBytes: @escaping @Sendable (Int) -> Data,
        verifySignature: @escaping @Sendable (JWSAlgorithm, JWK, Data, Data) throws(SignatureVerificationError) -> Void,
        generateKeyPair: @escaping @Sendable (JWSAlgorithm) throws(JWSSigningError) -> JWSKeyPair,
        sign: @escaping @Sendable (JWSKeyPair, Data) throws(JWSSigningError) -> Data,
        readPKCS8P256: @escaping @Sendable (Data) throws(JWSSigningError) -> JWSKeyPair
    ) {
        self.digest = digest
        self.randomBytes = randomBytes
        self.verifySignature = verifySignature
        self.generateKeyPair = generateKeyPair
        self.sign = sign
        self.readPKCS8P256 = readPKCS8P256
    }
}
