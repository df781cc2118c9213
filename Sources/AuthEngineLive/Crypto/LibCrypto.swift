import CCrypto
import LibraryLoader
#if canImport(Glibc)
import Glibc
#endif

/// The libcrypto functions ``OpenSSLCrypto`` calls, resolved with `dlopen` / `dlsym` the first
/// time it hashes, draws random bytes or verifies a signature. Commands that do none of these
/// (`authdeck token` with a valid cached token, `status`, `--version`) never load libcrypto
/// (about 0.7 ms of start-up, PERFORMANCE.md). Field names are the C names.
struct LibCrypto: @unchecked Sendable {
    let BN_bin2bn: authdeck_BN_bin2bn_fn
    let BN_free: authdeck_BN_free_fn
    let ECDSA_SIG_free: authdeck_ECDSA_SIG_free_fn
    let ECDSA_SIG_new: authdeck_ECDSA_SIG_new_fn
    let ECDSA_SIG_set0: authdeck_ECDSA_SIG_set0_fn
    let ERR_clear_error: authdeck_ERR_clear_error_fn
    let EVP_Digest: authdeck_EVP_Digest_fn
    let EVP_DigestVerify: authdeck_EVP_DigestVerify_fn
    let EVP_DigestVerifyInit: authdeck_EVP_DigestVerifyInit_fn
    let EVP_MD_CTX_copy_ex: authdeck_EVP_MD_CTX_copy_ex_fn
    let EVP_MD_CTX_free: authdeck_EVP_MD_CTX_free_fn
    let EVP_MD_CTX_new: authdeck_EVP_MD_CTX_new_fn
    let EVP_MD_CTX_set_flags: authdeck_EVP_MD_CTX_set_flags_fn
    let EVP_PKEY_CTX_free: authdeck_EVP_PKEY_CTX_free_fn
    let EVP_PKEY_CTX_new_from_name: authdeck_EVP_PKEY_CTX_new_from_name_fn
    let EVP_PKEY_CTX_set_rsa_padding: authdeck_EVP_PKEY_CTX_set_rsa_padding_fn
    let EVP_PKEY_CTX_set_rsa_pss_saltlen: authdeck_EVP_PKEY_CTX_set_rsa_pss_saltlen_fn
    let EVP_PKEY_free: authdeck_EVP_PKEY_free_fn
    let EVP_PKEY_fromdata: authdeck_EVP_PKEY_fromdata_fn
    let EVP_PKEY_fromdata_init: authdeck_EVP_PKEY_fromdata_init_fn
    let EVP_PKEY_new_raw_public_key: authdeck_EVP_PKEY_new_raw_public_key_fn
    let EVP_sha256: authdeck_EVP_sha256_fn
    let EVP_sha384: authdeck_EVP_sha384_fn
    let EVP_sha512: authdeck_EVP_sha512_fn
    let OSSL_PARAM_BLD_free: authdeck_OSSL_PARAM_BLD_free_fn
    let OSSL_PARAM_BLD_new: authdeck_OSSL_PARAM_BLD_new_fn
    let OSSL_PARAM_BLD_push_BN: authdeck_OSSL_PARAM_BLD_push_BN_fn
    let OSSL_PARAM_BLD_push_octet_string: authdeck_OSSL_PARAM_BLD_push_octet_string_fn
    let OSSL_PARAM_BLD_push_utf8_string: authdeck_OSSL_PARAM_BLD_push_utf8_string_fn
    let OSSL_PARAM_BLD_to_param: authdeck_OSSL_PARAM_BLD_to_param_fn
    let OSSL_PARAM_free: authdeck_OSSL_PARAM_free_fn
    let RAND_bytes: authdeck_RAND_bytes_fn
    let i2d_ECDSA_SIG: authdeck_i2d_ECDSA_SIG_fn

    static func load(_ spec: LibrarySpec = .crypto) throws(LibraryLoadError) -> LibCrypto {
        let library = try DynamicLibrary.open(spec)
        return LibCrypto(
            BN_bin2bn: try library.function("BN_bin2bn"),
            BN_free: try library.function("BN_free"),
            ECDSA_SIG_free: try library.function("ECDSA_SIG_free"),
            ECDSA_SIG_new: try library.function("ECDSA_SIG_new"),
            ECDSA_SIG_set0: try library.function("ECDSA_SIG_set0"),
            ERR_clear_error: try library.function("ERR_clear_error"),
            EVP_Digest: try library.function("EVP_Digest"),
            EVP_DigestVerify: try library.function("EVP_DigestVerify"),
            EVP_DigestVerifyInit: try library.function("EVP_DigestVerifyInit"),
            EVP_MD_CTX_copy_ex: try library.function("EVP_MD_CTX_copy_ex"),
            EVP_MD_CTX_free: try library.function("EVP_MD_CTX_free"),
            EVP_MD_CTX_new: try library.function("EVP_MD_CTX_new"),
            EVP_MD_CTX_set_flags: try library.function("EVP_MD_CTX_set_flags"),
            EVP_PKEY_CTX_free: try library.function("EVP_PKEY_CTX_free"),
            EVP_PKEY_CTX_new_from_name: try library.function("EVP_PKEY_CTX_new_from_name"),
            EVP_PKEY_CTX_set_rsa_padding: try library.function("EVP_PKEY_CTX_set_rsa_padding"),
            EVP_PKEY_CTX_set_rsa_pss_saltlen: try library.function("EVP_PKEY_CTX_set_rsa_pss_saltlen"),
            EVP_PKEY_free: try library.function("EVP_PKEY_free"),
            EVP_PKEY_fromdata: try library.function("EVP_PKEY_fromdata"),
            EVP_PKEY_fromdata_init: try library.function("EVP_PKEY_fromdata_init"),
            EVP_PKEY_new_raw_public_key: try library.function("EVP_PKEY_new_raw_public_key"),
            EVP_sha256: try library.function("EVP_sha256"),
            EVP_sha384: try library.function("EVP_sha384"),
            EVP_sha512: try library.function("EVP_sha512"),
            OSSL_PARAM_BLD_free: try library.function("OSSL_PARAM_BLD_free"),
            OSSL_PARAM_BLD_new: try library.function("OSSL_PARAM_BLD_new"),
            OSSL_PARAM_BLD_push_BN: try library.function("OSSL_PARAM_BLD_push_BN"),
            OSSL_PARAM_BLD_push_octet_string: try library.function("OSSL_PARAM_BLD_push_octet_string"),
            OSSL_PARAM_BLD_push_utf8_string: try library.function("OSSL_PARAM_BLD_push_utf8_string"),
            OSSL_PARAM_BLD_to_param: try library.function("OSSL_PARAM_BLD_to_param"),
            OSSL_PARAM_free: try library.function("OSSL_PARAM_free"),
            RAND_bytes: try library.function("RAND_bytes"),
            i2d_ECDSA_SIG: try library.function("i2d_ECDSA_SIG"))
    }

    /// The process's libcrypto, loaded once.
    static let shared = Result { () throws(LibraryLoadError) -> LibCrypto in try load() }

    /// ``shared`` for the calls that cannot fail (digest, random bytes): without libcrypto there is
    /// no safe fallback, so the process stops with the loader's message (library, Debian package).
    static var required: LibCrypto {
        switch shared {
        case .success(let lib): return lib
        case .failure(let error): stopProcess(error.description)
        }
    }
}

/// Ends the process with one line on stderr and exit status 1: for the few failures with no safe
/// way on (no libcrypto installed, no secure random bytes). No backtrace, nothing secret in it.
func stopProcess(_ message: String) -> Never {
    let line = Array("authdeck: \(message)\n".utf8)
    _ = line.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count) }
    _exit(1)
}
