import FoundationEssentials

/// JWS `alg` values (RFC 7518 §3.1, RFC 8037 §3.1). `none` is parsed so that it can be
/// refused by name; it is never verified.
public enum JWSAlgorithm: String, Sendable, Hashable, Codable, CaseIterable {
    case rs256 = "RS256", rs384 = "RS384", rs512 = "RS512"
    case ps256 = "PS256", ps384 = "PS384", ps512 = "PS512"
    case es256 = "ES256", es384 = "ES384", es512 = "ES512"
    case edDSA = "EdDSA"
    case hs256 = "HS256", hs384 = "HS384", hs512 = "HS512"
    case none = "none"

    /// The key type (`kty`) a key must have to verify this algorithm (RFC 7518 §6.1).
    public var keyType: String? {
        switch self {
        case .rs256, .rs384, .rs512, .ps256, .ps384, .ps512: "RSA"
        case .es256, .es384, .es512: "EC"
        case .edDSA: "OKP"
        case .hs256, .hs384, .hs512: "oct"
        case .none: nil
        }
    }

    /// The hash used by the algorithm; also the one for `at_hash`/`c_hash` (OIDC Core §3.1.3.6).
    /// EdDSA (Ed25519) uses SHA-512 for `at_hash` by convention of OIDC implementations.
    public var digest: DigestAlgorithm? {
        switch self {
        case .rs256, .ps256, .es256, .hs256: .sha256
        case .rs384, .ps384, .es384, .hs384: .sha384
        case .rs512, .ps512, .es512, .hs512, .edDSA: .sha512
        case .none: nil
        }
    }
}

public enum DigestAlgorithm: String, Sendable, Hashable { case sha256, sha384, sha512 }

/// A JSON Web Key (RFC 7517 §4), public parts only. Byte fields hold the base64url-decoded
/// values (RFC 7518 §6.2, §6.3; RFC 8037 §2). Unknown members are ignored.
public struct JWK: Sendable, Hashable {
    /// `kty`: "RSA", "EC", "OKP" or "oct".
    public var keyType: String
    /// `kid`, when present.
    public var keyID: String?
    /// `use`: "sig" or "enc", when present.
    public var use: String?
    /// `alg`, when present (kept as a string: unknown values must not fail parsing).
    public var algorithm: String?
    /// `key_ops`, when present.
    public var keyOperations: [String]?
    /// `crv` for EC ("P-256", "P-384", "P-521") and OKP ("Ed25519").
    public var curve: String?
    /// RSA modulus `n` and exponent `e`, big-endian bytes as decoded (leading zero bytes allowed).
    public var modulus: Data?
    public var exponent: Data?
    /// EC `x`/`y` coordinates, OKP public key `x`; big-endian bytes as decoded.
    public var x: Data?
    public var y: Data?

    public init(keyType: String, keyID: String? = nil, use: String? = nil, algorithm: String? = nil,
                keyOperations: [String]? = nil, curve: String? = nil, modulus: Data? = nil,
                exponent: Data? = nil, x: Data? = nil, y: Data? = nil) {
        self.keyType = keyType
        self.keyID = keyID
        self.use = use
        self.algorithm = algorithm
        self.keyOperations = keyOperations
        self.curve = curve
        self.modulus = modulus
        self.exponent = exponent
        self.x = x
        self.y = y
    }
}
