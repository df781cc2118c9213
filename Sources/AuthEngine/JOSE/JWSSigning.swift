import FoundationEssentials
import Secrets

/// The private part of a signing key: base64url of the EC private scalar `d` (RFC 7518 §6.2.2.1)
/// or of the Ed25519 private key `d` (RFC 8037 §2).
public enum JWSPrivateKeyKind: SecretKind { public static let label = "PrivateKey" }
public typealias JWSPrivateKey = Redacted<JWSPrivateKeyKind>

/// A key pair the client signs with (DPoP proofs, RFC 9449; Apple's client secret): ES256 on
/// P-256 or EdDSA on Ed25519. Stored as a private JWK (RFC 7517 §4, RFC 7518 §6.2.2): the
/// public members `kty`, `crv`, `x`, `y` and the redacted `d`, plus `alg`.
public struct JWSKeyPair: Sendable, Hashable {
    /// `.es256` or `.edDSA`.
    public var algorithm: JWSAlgorithm
    /// The public key (`kty`, `crv`, `x`, and `y` for EC); no `d`.
    public var publicKey: JWK
    /// `d`, base64url.
    public var privateKey: JWSPrivateKey

    public init(algorithm: JWSAlgorithm, publicKey: JWK, privateKey: JWSPrivateKey) {
        self.algorithm = algorithm
        self.publicKey = publicKey
        self.privateKey = privateKey
    }

    /// The algorithms a key pair can be made for (ES256 by default, EdDSA where advertised).
    public static let signingAlgorithms: [JWSAlgorithm] = [.es256, .edDSA]

    /// The public key as a JSON object for a JOSE header's `jwk` (RFC 7515 §4.1.3): the
    /// required members only (RFC 7638 §3.2), never `d`.
    public var publicJWKObject: [String: JSONValue] { JWKThumbprint.requiredMembers(publicKey) }
}

/// Why a key could not be made, read or used to sign.
public enum JWSSigningError: Error, Sendable, Equatable {
    /// Only ES256 and EdDSA keys are made and used for signing.
    case unsupportedAlgorithm(JWSAlgorithm)
    /// The key is not usable: wrong type or curve, bad sizes, not PKCS#8 (the reason says which).
    case unusableKey(String)
    /// libcrypto failed to sign (or is not installed).
    case signingFailed(String)
}

extension JWSSigningError: CustomStringConvertible {
    /// The reason in words, for error details (never the enum case's debug form).
    public var description: String {
        switch self {
        case .unsupportedAlgorithm(let algorithm): "\(algorithm.rawValue) keys are not made or used for signing (ES256 or EdDSA)"
        case .unusableKey(let reason): reason
        case .signingFailed(let reason): "signing failed: \(reason)"
        }
    }
}

/// RFC 7638 JWK thumbprints.
public enum JWKThumbprint {
    /// The required members of `key` (RFC 7638 §3.2): EC `crv, kty, x, y`; OKP `crv, kty, x`;
    /// RSA `e, kty, n`; byte members base64url.
    public static func requiredMembers(_ key: JWK) -> [String: JSONValue] {
        var members: [String: JSONValue] = ["kty": .string(key.keyType)]
        if let curve = key.curve { members["crv"] = .string(curve) }
        if let x = key.x { members["x"] = .string(Base64URL.encode(x)) }
        if let y = key.y { members["y"] = .string(Base64URL.encode(y)) }
        if let n = key.modulus { members["n"] = .string(Base64URL.encode(n)) }
        if let e = key.exponent { members["e"] = .string(Base64URL.encode(e)) }
        return members
    }

    /// The SHA-256 thumbprint (RFC 7638 §3.1), base64url: the digest of the required members
    /// in lexicographic order without whitespace.
    public static func sha256(of key: JWK, crypto: CryptoProvider) -> String {
        Base64URL.encode(crypto.digest(.sha256, canonicalJSON(.object(requiredMembers(key)))))
    }
}

/// UTF-8 JSON with members in lexicographic order and no whitespace (RFC 7638 §3.3; jansson's
/// compact writer: `/` not escaped, integral numbers as integers).
func canonicalJSON(_ value: JSONValue) -> Data {
    value.serialized()
}

/// Makes compact JWS (RFC 7515 §7.1) with a ``JWSKeyPair``.
public enum CompactJWSSigner {
    /// `BASE64URL(header).BASE64URL(claims).BASE64URL(signature)`; `alg` is set from the key.
    /// ECDSA signatures are raw `r||s` (RFC 7518 §3.4).
    /// - Throws: ``JWSSigningError`` from the crypto provider.
    public static func sign(
        header: [String: JSONValue], claims: [String: JSONValue], key: JWSKeyPair, crypto: CryptoProvider
    ) throws(JWSSigningError) -> String {
        var header = header
        header["alg"] = .string(key.algorithm.rawValue)
        let signingInput = Base64URL.encode(canonicalJSON(.object(header))) + "." + Base64URL.encode(canonicalJSON(.object(claims)))
        let signature = try crypto.sign(key, Data(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }
}
