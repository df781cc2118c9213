import AuthEngine
import CCrypto
import FoundationEssentials
import Synchronization

/// The live ``CryptoProvider``: OpenSSL 3 libcrypto (EVP APIs only, no deprecated calls).
///
/// - `digest`: SHA-256/384/512 through `EVP_Digest`.
/// - `randomBytes`: `RAND_bytes`; traps if the generator fails (there is no safe fallback).
/// - `verifySignature`: JWS signatures (RFC 7515 §5.2) for RS256/384/512 (RSASSA-PKCS1-v1_5,
///   RFC 7518 §3.3), PS256/384/512 (RSASSA-PSS, MGF1 with the same hash, salt length = hash
///   length, RFC 7518 §3.5), ES256/384/512 (ECDSA with raw `r||s`, RFC 7518 §3.4) and EdDSA
///   (Ed25519 and Ed448, RFC 8037 §3.1). Throws ``SignatureVerificationError``:
///   `.unsupportedAlgorithm` for HS* and `none`; `.unusableKey` for a key of the wrong `kty`
///   or `crv`, missing or oversized members, RSA moduli under 2048 bits, a JWK `alg` naming a
///   different algorithm or `use` other than `sig`; `.invalidSignature` otherwise.
public enum OpenSSLCrypto {
    public static let live = CryptoProvider(
        digest: { algorithm, data in digest(algorithm, data) },
        randomBytes: { count in randomBytes(count) },
        verifySignature: { algorithm, key, signingInput, signature throws(SignatureVerificationError) in
            try verifySignature(algorithm, key: key, signingInput: signingInput, signature: signature)
        },
        generateKeyPair: { algorithm throws(JWSSigningError) in try OpenSSLSigning.generateKeyPair(algorithm) },
        sign: { key, input throws(JWSSigningError) in try OpenSSLSigning.sign(key, input) },
        readPKCS8P256: { pem throws(JWSSigningError) in try OpenSSLSigning.readPKCS8P256(pem) }
    )

    /// libcrypto, loaded on first use (``LibCrypto``).
    private static var lib: LibCrypto { LibCrypto.required }

    /// Smallest RSA modulus accepted, in bits (RFC 7518 §3.3 requires 2048 or larger).
    public static let minimumRSAModulusBits = 2048
    /// Largest RSA modulus accepted, in bits (bounds the verification cost of a hostile key).
    public static let maximumRSAModulusBits = 16384

    // MARK: - Digest

    /// The digest of `data` with `algorithm`. Traps only if libcrypto itself fails.
    public static func digest(_ algorithm: DigestAlgorithm, _ data: Data) -> Data {
        let md = messageDigest(algorithm)
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = data.withUnsafeBytes { input in
            lib.EVP_Digest(input.baseAddress, input.count, &output, &length, md, nil)
        }
        precondition(ok == 1, "EVP_Digest failed")
        return Data(output.prefix(Int(length)))
    }

    // MARK: - Random

    /// `count` bytes from OpenSSL's CSPRNG. Ends the process with a one-line message if
    /// `RAND_bytes` fails (there is no safe fallback).
    public static func randomBytes(_ count: Int) -> Data {
        precondition(count >= 0 && count <= Int(Int32.max), "randomBytes: count out of range")
        guard count > 0 else { return Data() }
        var bytes = [UInt8](repeating: 0, count: count)
        let ok = lib.RAND_bytes(&bytes, Int32(count))
        guard ok == 1 else {
            lib.ERR_clear_error()
            stopProcess("RAND_bytes failed: no secure random bytes are available, so nothing can be signed in or stored safely")
        }
        return Data(bytes)
    }

    // MARK: - Signatures

    /// Verifies `signature` over `signingInput` with `key` for `algorithm`. See the type's
    /// documentation for the errors thrown.
    public static func verifySignature(
        _ algorithm: JWSAlgorithm, key: JWK, signingInput: Data, signature: Data
    ) throws(SignatureVerificationError) {
        if case .failure(let error) = LibCrypto.shared { throw .unusableKey(error.description) }
        do {
            try verifyUnclearedErrors(algorithm, key: key, signingInput: signingInput, signature: signature)
        } catch {
            // Stale errors must not leak into later, unrelated calls on this thread.
            lib.ERR_clear_error()
            throw error
        }
    }

    private static func verifyUnclearedErrors(
        _ algorithm: JWSAlgorithm, key: JWK, signingInput: Data, signature: Data
    ) throws(SignatureVerificationError) {
        switch algorithm {
        case .hs256, .hs384, .hs512, .none:
            throw .unsupportedAlgorithm(algorithm)
        default:
            break
        }
        guard let keyType = algorithm.keyType, key.keyType.exactlyEquals(keyType) else {
            throw .unusableKey("kty \(key.keyType) cannot verify \(algorithm.rawValue)")
        }
        if let keyAlgorithm = key.algorithm, !keyAlgorithm.exactlyEquals(algorithm.rawValue) {
            throw .unusableKey("key alg \(keyAlgorithm) does not match \(algorithm.rawValue)")
        }
        if let use = key.use, !use.exactlyEquals("sig") {
            throw .unusableKey("key use \(use) is not sig")
        }
        if let operations = key.keyOperations, !operations.containsExactly("verify") {
            throw .unusableKey("key_ops does not contain verify")
        }

        let verifier = try VerifierCache.shared.verifier(key, algorithm: algorithm) { () throws(SignatureVerificationError) in
            try makeVerifier(algorithm, key: key)
        }
        switch algorithm {
        case .es256, .es384, .es512:
            guard signature.count == 2 * ECCurve(algorithm: algorithm).coordinateSize else { throw .invalidSignature }
            try verifier.verify(signingInput: signingInput, signature: try ecdsaDER(rawSignature: signature))
        default:
            try verifier.verify(signingInput: signingInput, signature: signature)
        }
    }

    /// The public key of `key` and a verification context for `algorithm` (``Verifier``).
    private static func makeVerifier(_ algorithm: JWSAlgorithm, key: JWK) throws(SignatureVerificationError) -> Verifier {
        switch algorithm {
        case .rs256, .rs384, .rs512:
            try Verifier(key: try rsaPublicKey(key), digest: algorithm.digest.map(messageDigest), pss: false)
        case .ps256, .ps384, .ps512:
            try Verifier(key: try rsaPublicKey(key), digest: algorithm.digest.map(messageDigest), pss: true)
        case .es256, .es384, .es512:
            try Verifier(key: try ecPublicKey(key, curve: ECCurve(algorithm: algorithm)), digest: algorithm.digest.map(messageDigest), pss: false)
        case .edDSA:
            try Verifier(key: try edwardsPublicKey(key), digest: nil, pss: false)
        case .hs256, .hs384, .hs512, .none:
            throw .unsupportedAlgorithm(algorithm)
        }
    }

    private static func messageDigest(_ algorithm: DigestAlgorithm) -> OpaquePointer {
        switch algorithm {
        case .sha256: lib.EVP_sha256()!
        case .sha384: lib.EVP_sha384()!
        case .sha512: lib.EVP_sha512()!
        }
    }

    // MARK: RSA

    private static func rsaPublicKey(_ key: JWK) throws(SignatureVerificationError) -> OpaquePointer {
        guard let modulus = key.modulus, let exponent = key.exponent, !modulus.isEmpty, !exponent.isEmpty else {
            throw .unusableKey("RSA key without n or e")
        }
        let n = modulus.drop(while: { $0 == 0 })
        let e = exponent.drop(while: { $0 == 0 })
        let bits = n.isEmpty ? 0 : (n.count - 1) * 8 + (8 - n.first!.leadingZeroBitCount)
        guard bits >= minimumRSAModulusBits else {
            throw .unusableKey("RSA modulus of \(bits) bits (at least \(minimumRSAModulusBits) required)")
        }
        guard bits <= maximumRSAModulusBits else {
            throw .unusableKey("RSA modulus of \(bits) bits (at most \(maximumRSAModulusBits) accepted)")
        }
        guard !e.isEmpty, e.count <= 8 else { throw .unusableKey("RSA exponent out of range") }

        let nBN = bigNumber(Data(n))
        let eBN = bigNumber(Data(e))
        defer {
            lib.BN_free(nBN)
            lib.BN_free(eBN)
        }
        guard let nBN, let eBN, let builder = lib.OSSL_PARAM_BLD_new() else { throw .unusableKey("out of memory") }
        defer { lib.OSSL_PARAM_BLD_free(builder) }
        // The key names are static C strings from the shim: the builder keeps the pointers.
        guard lib.OSSL_PARAM_BLD_push_BN(builder, authdeck_param_rsa_n(), nBN) == 1,
              lib.OSSL_PARAM_BLD_push_BN(builder, authdeck_param_rsa_e(), eBN) == 1,
              let params = lib.OSSL_PARAM_BLD_to_param(builder)
        else { throw .unusableKey("RSA parameters rejected by libcrypto") }
        defer { lib.OSSL_PARAM_free(params) }
        return try publicKey(fromData: params, algorithmName: "RSA")
    }

    private static func bigNumber(_ bytes: Data) -> OpaquePointer? {
        bytes.withUnsafeBytes { buffer in
            lib.BN_bin2bn(buffer.bindMemory(to: UInt8.self).baseAddress, Int32(buffer.count), nil)
        }
    }

    private static func publicKey(
        fromData params: UnsafeMutablePointer<OSSL_PARAM>, algorithmName: String
    ) throws(SignatureVerificationError) -> OpaquePointer {
        guard let context = lib.EVP_PKEY_CTX_new_from_name(nil, algorithmName, nil) else {
            throw .unusableKey("\(algorithmName) not available in libcrypto")
        }
        defer { lib.EVP_PKEY_CTX_free(context) }
        var pkey: OpaquePointer?
        guard lib.EVP_PKEY_fromdata_init(context) == 1,
              lib.EVP_PKEY_fromdata(context, &pkey, authdeck_evp_pkey_public_key_selection(), params) == 1,
              let pkey
        else { throw .unusableKey("\(algorithmName) public key rejected by libcrypto") }
        return pkey
    }

    // MARK: EC

    private struct ECCurve {
        var name: String
        var coordinateSize: Int
        var groupName: UnsafePointer<CChar>

        init(algorithm: JWSAlgorithm) {
            switch algorithm {
            case .es384: self = ECCurve(name: "P-384", coordinateSize: 48, groupName: authdeck_group_p384())
            case .es512: self = ECCurve(name: "P-521", coordinateSize: 66, groupName: authdeck_group_p521())
            default: self = ECCurve(name: "P-256", coordinateSize: 32, groupName: authdeck_group_p256())
            }
        }

        private init(name: String, coordinateSize: Int, groupName: UnsafePointer<CChar>) {
            self.name = name
            self.coordinateSize = coordinateSize
            self.groupName = groupName
        }
    }

    private static func ecPublicKey(_ key: JWK, curve: ECCurve) throws(SignatureVerificationError) -> OpaquePointer {
        guard key.curve.exactlyEquals(curve.name) else {
            throw .unusableKey("crv \(key.curve ?? "(absent)") (expected \(curve.name))")
        }
        guard let x = key.x, let y = key.y else { throw .unusableKey("EC key without x or y") }
        // Coordinates may arrive shorter than the field size (leading zeros dropped): left-pad.
        guard let paddedX = leftPadded(x, to: curve.coordinateSize),
              let paddedY = leftPadded(y, to: curve.coordinateSize)
        else { throw .unusableKey("EC coordinate longer than \(curve.coordinateSize) bytes") }
        // SEC 1 §2.3.3 uncompressed point: 0x04 || X || Y.
        let point = Data([0x04]) + paddedX + paddedY

        guard let builder = lib.OSSL_PARAM_BLD_new() else { throw .unusableKey("out of memory") }
        defer { lib.OSSL_PARAM_BLD_free(builder) }
        // The builder keeps the point pointer until to_param: build the params inside the closure.
        let params: UnsafeMutablePointer<OSSL_PARAM>? = point.withUnsafeBytes { buffer in
            guard lib.OSSL_PARAM_BLD_push_utf8_string(builder, authdeck_param_group_name(), curve.groupName, 0) == 1,
                  lib.OSSL_PARAM_BLD_push_octet_string(builder, authdeck_param_pub_key(), buffer.baseAddress, buffer.count) == 1
            else { return nil }
            return lib.OSSL_PARAM_BLD_to_param(builder)
        }
        guard let params else { throw .unusableKey("EC parameters rejected by libcrypto") }
        defer { lib.OSSL_PARAM_free(params) }
        return try publicKey(fromData: params, algorithmName: "EC")
    }

    private static func leftPadded(_ bytes: Data, to size: Int) -> Data? {
        let significant = bytes.drop(while: { $0 == 0 })
        guard significant.count <= size else { return nil }
        return Data(repeating: 0, count: size - significant.count) + significant
    }

    /// RFC 7518 §3.4 raw `r||s` (each half the signature) to the DER `ECDSA-Sig-Value` OpenSSL verifies.
    private static func ecdsaDER(rawSignature: Data) throws(SignatureVerificationError) -> Data {
        let half = rawSignature.count / 2
        guard let signature = lib.ECDSA_SIG_new() else { throw .invalidSignature }
        defer { lib.ECDSA_SIG_free(signature) }
        guard let r = bigNumber(Data(rawSignature.prefix(half))) else { throw .invalidSignature }
        guard let s = bigNumber(Data(rawSignature.suffix(half))) else {
            lib.BN_free(r)
            throw .invalidSignature
        }
        guard lib.ECDSA_SIG_set0(signature, r, s) == 1 else { // takes ownership of r and s on success
            lib.BN_free(r)
            lib.BN_free(s)
            throw .invalidSignature
        }
        let length = lib.i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { throw .invalidSignature }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return lib.i2d_ECDSA_SIG(signature, &cursor)
        }
        guard written == length else { throw .invalidSignature }
        return Data(der)
    }

    // MARK: OKP

    private static func edwardsPublicKey(_ key: JWK) throws(SignatureVerificationError) -> OpaquePointer {
        let type: Int32
        let size: Int
        switch ["Ed25519", "Ed448"].first(where: { key.curve.exactlyEquals($0) }) {
        case "Ed25519": (type, size) = (EVP_PKEY_ED25519, 32)
        case "Ed448": (type, size) = (EVP_PKEY_ED448, 57)
        default: throw .unusableKey("crv \(key.curve ?? "(absent)") (expected Ed25519 or Ed448)")
        }
        guard let x = key.x, x.count == size else { throw .unusableKey("OKP x must be \(size) bytes") }
        let pkey = x.withUnsafeBytes { buffer in
            lib.EVP_PKEY_new_raw_public_key(type, nil, buffer.bindMemory(to: UInt8.self).baseAddress, buffer.count)
        }
        guard let pkey else { throw .unusableKey("OKP public key rejected by libcrypto") }
        return pkey
    }
}
