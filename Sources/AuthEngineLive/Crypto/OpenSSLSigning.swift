import AuthEngine
import CCrypto
import FoundationEssentials
import LibraryLoader

/// The libcrypto functions ``OpenSSLSigning`` calls (beyond ``LibCrypto``'s), resolved on the
/// first key generation or signature. Field names are the C names.
struct LibCryptoSigning: @unchecked Sendable {
    let BIO_free: authdeck_BIO_free_fn
    let BIO_new_mem_buf: authdeck_BIO_new_mem_buf_fn
    let BN_bn2binpad: authdeck_BN_bn2binpad_fn
    let BN_clear_free: authdeck_BN_clear_free_fn
    let ECDSA_SIG_get0_r: authdeck_ECDSA_SIG_get0_r_fn
    let ECDSA_SIG_get0_s: authdeck_ECDSA_SIG_get0_s_fn
    let EVP_DigestSign: authdeck_EVP_DigestSign_fn
    let EVP_DigestSignInit: authdeck_EVP_DigestSignInit_fn
    let EVP_PKEY_CTX_set_group_name: authdeck_EVP_PKEY_CTX_set_group_name_fn
    let EVP_PKEY_generate: authdeck_EVP_PKEY_generate_fn
    let EVP_PKEY_get_bn_param: authdeck_EVP_PKEY_get_bn_param_fn
    let EVP_PKEY_get_octet_string_param: authdeck_EVP_PKEY_get_octet_string_param_fn
    let EVP_PKEY_get_raw_private_key: authdeck_EVP_PKEY_get_raw_private_key_fn
    let EVP_PKEY_get_raw_public_key: authdeck_EVP_PKEY_get_raw_public_key_fn
    let EVP_PKEY_get_utf8_string_param: authdeck_EVP_PKEY_get_utf8_string_param_fn
    let EVP_PKEY_is_a: authdeck_EVP_PKEY_is_a_fn
    let EVP_PKEY_keygen_init: authdeck_EVP_PKEY_keygen_init_fn
    let EVP_PKEY_new_raw_private_key: authdeck_EVP_PKEY_new_raw_private_key_fn
    let PEM_read_bio_PrivateKey: authdeck_PEM_read_bio_PrivateKey_fn
    let d2i_ECDSA_SIG: authdeck_d2i_ECDSA_SIG_fn

    static let shared = Result { () throws(LibraryLoadError) -> LibCryptoSigning in
        let library = try DynamicLibrary.open(.crypto)
        return LibCryptoSigning(
            BIO_free: try library.function("BIO_free"),
            BIO_new_mem_buf: try library.function("BIO_new_mem_buf"),
            BN_bn2binpad: try library.function("BN_bn2binpad"),
            BN_clear_free: try library.function("BN_clear_free"),
            ECDSA_SIG_get0_r: try library.function("ECDSA_SIG_get0_r"),
            ECDSA_SIG_get0_s: try library.function("ECDSA_SIG_get0_s"),
            EVP_DigestSign: try library.function("EVP_DigestSign"),
            EVP_DigestSignInit: try library.function("EVP_DigestSignInit"),
            EVP_PKEY_CTX_set_group_name: try library.function("EVP_PKEY_CTX_set_group_name"),
            EVP_PKEY_generate: try library.function("EVP_PKEY_generate"),
            EVP_PKEY_get_bn_param: try library.function("EVP_PKEY_get_bn_param"),
            EVP_PKEY_get_octet_string_param: try library.function("EVP_PKEY_get_octet_string_param"),
            EVP_PKEY_get_raw_private_key: try library.function("EVP_PKEY_get_raw_private_key"),
            EVP_PKEY_get_raw_public_key: try library.function("EVP_PKEY_get_raw_public_key"),
            EVP_PKEY_get_utf8_string_param: try library.function("EVP_PKEY_get_utf8_string_param"),
            EVP_PKEY_is_a: try library.function("EVP_PKEY_is_a"),
            EVP_PKEY_keygen_init: try library.function("EVP_PKEY_keygen_init"),
            EVP_PKEY_new_raw_private_key: try library.function("EVP_PKEY_new_raw_private_key"),
            PEM_read_bio_PrivateKey: try library.function("PEM_read_bio_PrivateKey"),
            d2i_ECDSA_SIG: try library.function("d2i_ECDSA_SIG"))
    }
}

/// Key pairs and JWS signatures on OpenSSL 3 libcrypto (EVP APIs): ES256 (P-256, ECDSA with
/// SHA-256, signatures as raw `r||s`, RFC 7518 §3.4) and EdDSA (Ed25519, RFC 8037 §3.1).
/// Every failure is a ``JWSSigningError``; libcrypto's error queue is cleared after one.
public enum OpenSSLSigning {
    private static let coordinateSize = 32

    private static func libraries() throws(JWSSigningError) -> (LibCrypto, LibCryptoSigning) {
        switch (LibCrypto.shared, LibCryptoSigning.shared) {
        case (.success(let base), .success(let signing)): return (base, signing)
        case (.failure(let error), _), (_, .failure(let error)): throw .signingFailed(error.description)
        }
    }

    /// A new key pair: P-256 for `.es256`, Ed25519 for `.edDSA`.
    public static func generateKeyPair(_ algorithm: JWSAlgorithm) throws(JWSSigningError) -> JWSKeyPair {
        let (lib, sig) = try libraries()
        defer { lib.ERR_clear_error() }
        let name: String
        switch algorithm {
        case .es256: name = "EC"
        case .edDSA: name = "ED25519"
        default: throw .unsupportedAlgorithm(algorithm)
        }
        guard let context = lib.EVP_PKEY_CTX_new_from_name(nil, name, nil) else { throw .signingFailed("\(name) not available in libcrypto") }
        defer { lib.EVP_PKEY_CTX_free(context) }
        guard sig.EVP_PKEY_keygen_init(context) == 1 else { throw .signingFailed("key generation refused") }
        if algorithm == .es256, sig.EVP_PKEY_CTX_set_group_name(context, authdeck_group_p256()) != 1 {
            throw .signingFailed("P-256 not available in libcrypto")
        }
        var pkey: OpaquePointer?
        guard sig.EVP_PKEY_generate(context, &pkey) == 1, let pkey else { throw .signingFailed("key generation failed") }
        defer { lib.EVP_PKEY_free(pkey) }
        return try export(pkey, algorithm: algorithm, lib: lib, sig: sig)
    }

    /// The JWS signature of `signingInput` with `key` (raw `r||s` for ES256).
    public static func sign(_ key: JWSKeyPair, _ signingInput: Data) throws(JWSSigningError) -> Data {
        let (lib, sig) = try libraries()
        defer { lib.ERR_clear_error() }
        let pkey = try privateKey(key, lib: lib, sig: sig)
        defer { lib.EVP_PKEY_free(pkey) }
        guard let context = lib.EVP_MD_CTX_new() else { throw .signingFailed("out of memory") }
        defer { lib.EVP_MD_CTX_free(context) }
        let digest = key.algorithm == .es256 ? lib.EVP_sha256() : nil
        guard sig.EVP_DigestSignInit(context, nil, digest, nil, pkey) == 1 else { throw .unusableKey("key rejected by libcrypto") }
        var length = 0
        let input = [UInt8](signingInput)
        guard sig.EVP_DigestSign(context, nil, &length, input, input.count) == 1, length > 0 else {
            throw .signingFailed("EVP_DigestSign failed")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard sig.EVP_DigestSign(context, &signature, &length, input, input.count) == 1 else {
            throw .signingFailed("EVP_DigestSign failed")
        }
        signature.removeSubrange(length...)
        guard key.algorithm == .es256 else { return Data(signature) }
        return try rawECDSA(der: signature, lib: lib, sig: sig)
    }

    /// A PKCS#8 PEM private key (RFC 5958, `-----BEGIN PRIVATE KEY-----`) on P-256, as an
    /// ES256 key pair. Encrypted keys are refused (no passphrase prompt).
    public static func readPKCS8P256(_ pem: Data) throws(JWSSigningError) -> JWSKeyPair {
        let (lib, sig) = try libraries()
        defer { lib.ERR_clear_error() }
        guard String(decoding: pem, as: UTF8.self).contains("-----BEGIN PRIVATE KEY-----") else {
            throw .unusableKey("not a PKCS#8 PEM private key (expected -----BEGIN PRIVATE KEY-----)")
        }
        let bytes = [UInt8](pem)
        guard let bio = sig.BIO_new_mem_buf(bytes, Int32(bytes.count)) else { throw .signingFailed("out of memory") }
        defer { _ = sig.BIO_free(bio) }
        // A callback that supplies no passphrase: an encrypted key fails instead of prompting.
        guard let pkey = sig.PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in -1 }, nil) else {
            throw .unusableKey("the PEM private key could not be read (damaged or encrypted)")
        }
        defer { lib.EVP_PKEY_free(pkey) }
        guard sig.EVP_PKEY_is_a(pkey, "EC") == 1 else { throw .unusableKey("not an EC key (Apple keys are P-256)") }
        var group = [CChar](repeating: 0, count: 64)
        var groupLength = 0
        guard sig.EVP_PKEY_get_utf8_string_param(pkey, authdeck_param_group_name(), &group, group.count, &groupLength) == 1 else {
            throw .unusableKey("the EC key names no curve")
        }
        let curve = String(decoding: group.prefix(groupLength).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard curve.exactlyEquals("prime256v1") || curve.exactlyEquals("P-256") else {
            throw .unusableKey("curve \(curve) (expected P-256)")
        }
        return try export(pkey, algorithm: .es256, lib: lib, sig: sig)
    }

    // MARK: -

    private static func export(_ pkey: OpaquePointer, algorithm: JWSAlgorithm, lib: LibCrypto,
                               sig: LibCryptoSigning) throws(JWSSigningError) -> JWSKeyPair {
        if algorithm == .edDSA {
            var priv = [UInt8](repeating: 0, count: 32), pub = [UInt8](repeating: 0, count: 32)
            var privLength = priv.count, pubLength = pub.count
            guard sig.EVP_PKEY_get_raw_private_key(pkey, &priv, &privLength) == 1, privLength == 32,
                  sig.EVP_PKEY_get_raw_public_key(pkey, &pub, &pubLength) == 1, pubLength == 32
            else { throw .signingFailed("Ed25519 key export failed") }
            return JWSKeyPair(algorithm: .edDSA, publicKey: JWK(keyType: "OKP", curve: "Ed25519", x: Data(pub)),
                              privateKey: JWSPrivateKey(Base64URL.encode(Data(priv))))
        }
        var point = [UInt8](repeating: 0, count: 1 + 2 * coordinateSize)
        var pointLength = 0
        guard sig.EVP_PKEY_get_octet_string_param(pkey, authdeck_param_pub_key(), &point, point.count, &pointLength) == 1,
              pointLength == point.count, point[0] == 0x04
        else { throw .signingFailed("EC public key export failed") }
        var d: OpaquePointer?
        guard sig.EVP_PKEY_get_bn_param(pkey, authdeck_param_priv_key(), &d) == 1, let d else {
            throw .signingFailed("EC private key export failed")
        }
        defer { sig.BN_clear_free(d) }
        var scalar = [UInt8](repeating: 0, count: coordinateSize)
        guard sig.BN_bn2binpad(d, &scalar, Int32(coordinateSize)) == Int32(coordinateSize) else {
            throw .signingFailed("EC private key export failed")
        }
        let x = Data(point[1...coordinateSize]), y = Data(point[(coordinateSize + 1)...])
        return JWSKeyPair(algorithm: .es256, publicKey: JWK(keyType: "EC", curve: "P-256", x: x, y: y),
                          privateKey: JWSPrivateKey(Base64URL.encode(Data(scalar))))
    }

    private static func privateKey(_ key: JWSKeyPair, lib: LibCrypto, sig: LibCryptoSigning) throws(JWSSigningError) -> OpaquePointer {
        guard let d = Base64URL.decode(key.privateKey.exposedValue) else { throw .unusableKey("d is not base64url") }
        switch key.algorithm {
        case .edDSA:
            guard key.publicKey.curve.exactlyEquals("Ed25519"), d.count == 32 else { throw .unusableKey("not an Ed25519 key") }
            let bytes = [UInt8](d)
            guard let pkey = sig.EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, bytes, bytes.count) else {
                throw .unusableKey("Ed25519 private key rejected by libcrypto")
            }
            return pkey
        case .es256:
            guard key.publicKey.curve.exactlyEquals("P-256"), d.count == coordinateSize,
                  let x = key.publicKey.x, let y = key.publicKey.y, x.count == coordinateSize, y.count == coordinateSize
            else { throw .unusableKey("not a P-256 key of 32-byte coordinates") }
            let point = [UInt8]([0x04]) + [UInt8](x) + [UInt8](y)
            let dBytes = [UInt8](d)
            guard let scalar = lib.BN_bin2bn(dBytes, Int32(dBytes.count), nil) else { throw .signingFailed("out of memory") }
            defer { sig.BN_clear_free(scalar) }
            guard let builder = lib.OSSL_PARAM_BLD_new() else { throw .signingFailed("out of memory") }
            defer { lib.OSSL_PARAM_BLD_free(builder) }
            let params: UnsafeMutablePointer<OSSL_PARAM>? = point.withUnsafeBytes { buffer in
                guard lib.OSSL_PARAM_BLD_push_utf8_string(builder, authdeck_param_group_name(), authdeck_group_p256(), 0) == 1,
                      lib.OSSL_PARAM_BLD_push_octet_string(builder, authdeck_param_pub_key(), buffer.baseAddress, buffer.count) == 1,
                      lib.OSSL_PARAM_BLD_push_BN(builder, authdeck_param_priv_key(), scalar) == 1
                else { return nil }
                return lib.OSSL_PARAM_BLD_to_param(builder)
            }
            guard let params else { throw .unusableKey("EC parameters rejected by libcrypto") }
            defer { lib.OSSL_PARAM_free(params) }
            guard let context = lib.EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw .signingFailed("EC not available") }
            defer { lib.EVP_PKEY_CTX_free(context) }
            var pkey: OpaquePointer?
            guard lib.EVP_PKEY_fromdata_init(context) == 1,
                  lib.EVP_PKEY_fromdata(context, &pkey, authdeck_evp_pkey_keypair_selection(), params) == 1, let pkey
            else { throw .unusableKey("EC private key rejected by libcrypto") }
            return pkey
        default:
            throw .unsupportedAlgorithm(key.algorithm)
        }
    }

    /// DER `ECDSA-Sig-Value` to RFC 7518 §3.4 raw `r||s` (32 bytes each, left-padded).
    private static func rawECDSA(der: [UInt8], lib: LibCrypto, sig: LibCryptoSigning) throws(JWSSigningError) -> Data {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return sig.d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw .signingFailed("libcrypto returned an unreadable signature") }
        defer { lib.ECDSA_SIG_free(parsed) }
        var raw = [UInt8](repeating: 0, count: 2 * coordinateSize)
        let ok = raw.withUnsafeMutableBufferPointer { buffer in
            sig.BN_bn2binpad(sig.ECDSA_SIG_get0_r(parsed), buffer.baseAddress, Int32(coordinateSize)) == Int32(coordinateSize)
                && sig.BN_bn2binpad(sig.ECDSA_SIG_get0_s(parsed), buffer.baseAddress! + coordinateSize, Int32(coordinateSize))
                    == Int32(coordinateSize)
        }
        guard ok else { throw .signingFailed("signature halves longer than 32 bytes") }
        return Data(raw)
    }
}
