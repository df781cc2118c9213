import AuthEngine
import CCrypto
import FoundationEssentials
import Synchronization

/// One public key built from a JWK and a verification context initialised for it once, for one
/// JWS algorithm: `EVP_DigestVerifyInit` with the digest (none for EdDSA) and, for PS*, the
/// RSA-PSS padding and salt length (RFC 7518 §3.5).
///
/// `EVP_DigestVerifyInit` fetches the signature implementation and builds an `EVP_PKEY_CTX` on
/// every call, which for RS256 (≈ 20 µs per verification) was a large part of the work
/// (PERFORMANCE.md, "Signatures"). Each ``verify(signingInput:signature:)`` copies the template
/// into a context of its own (`EVP_MD_CTX_copy_ex`) and verifies with that copy, so the template
/// is never used mid-verification and several threads can verify with one key at once. The copies
/// are made under a lock: OpenSSL documents reading one `EVP_MD_CTX` from several threads for
/// none of its functions, and a copy is cheap (about 1 k instructions against ≈ 290 k for an
/// RSA-2048 verification).
final class Verifier: @unchecked Sendable {
    /// The `EVP_PKEY`, owned.
    private let key: OpaquePointer
    /// The initialised `EVP_MD_CTX`, owned; only ever copied.
    private let template: OpaquePointer
    private let copying = Mutex(())

    /// Takes ownership of `key`, also when it throws.
    /// - Parameters:
    ///   - digest: the `EVP_MD` (nil for EdDSA, which hashes itself).
    ///   - pss: RSASSA-PSS, MGF1 with the same digest, salt length = digest length.
    /// - Throws: `.unusableKey` when libcrypto refuses the key or the PSS parameters.
    init(key: OpaquePointer, digest: OpaquePointer?, pss: Bool) throws(SignatureVerificationError) {
        let lib = LibCrypto.required
        guard let template = lib.EVP_MD_CTX_new() else {
            lib.EVP_PKEY_free(key)
            throw .unusableKey("out of memory")
        }
        var keyContext: OpaquePointer?
        var problem: String?
        if lib.EVP_DigestVerifyInit(template, &keyContext, digest, nil, key) != 1 {
            problem = "key rejected by libcrypto"
        } else if pss,
                  lib.EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PSS_PADDING) != 1
                  || lib.EVP_PKEY_CTX_set_rsa_pss_saltlen(keyContext, RSA_PSS_SALTLEN_DIGEST) != 1 {
            problem = "RSA-PSS parameters rejected by libcrypto"
        }
        if let problem {
            lib.EVP_MD_CTX_free(template)
            lib.EVP_PKEY_free(key)
            throw .unusableKey(problem)
        }
        self.key = key
        self.template = template
    }

    deinit {
        let lib = LibCrypto.required
        lib.EVP_MD_CTX_free(template)
        lib.EVP_PKEY_free(key)
    }

    /// One-shot `EVP_DigestVerify` of `signature` over `signingInput` on a copy of the template.
    /// - Throws: `.invalidSignature` when the signature does not verify (or libcrypto cannot
    ///   allocate the copy).
    func verify(signingInput: Data, signature: Data) throws(SignatureVerificationError) {
        let lib = LibCrypto.required
        guard let context = lib.EVP_MD_CTX_new() else { throw .invalidSignature }
        defer { lib.EVP_MD_CTX_free(context) }
        let copied = copying.withLock { _ in lib.EVP_MD_CTX_copy_ex(context, template) }
        guard copied == 1 else { throw .invalidSignature }
        // The copy is used once: without this flag EVP_DigestVerifyFinal duplicates the key
        // context again to keep the copy reusable.
        lib.EVP_MD_CTX_set_flags(context, EVP_MD_CTX_FLAG_FINALISE)
        let result = signature.withUnsafeBytes { sig in
            signingInput.withUnsafeBytes { input in
                lib.EVP_DigestVerify(
                    context,
                    sig.bindMemory(to: UInt8.self).baseAddress, sig.count,
                    input.bindMemory(to: UInt8.self).baseAddress, input.count
                )
            }
        }
        guard result == 1 else { throw .invalidSignature }
    }
}

/// The ``Verifier``s made so far, for the next verification with the same key and algorithm:
/// building an `EVP_PKEY` from a JWK (`OSSL_PARAM_BLD`, `EVP_PKEY_fromdata`) and initialising a
/// verification costs several times an RSA verification, and every ID token of a provider is
/// checked against the same few JWKS keys. At most ``capacity`` entries, then the cache starts
/// over (a verification still holding a dropped verifier keeps it alive until it returns).
///
/// Keyed by the algorithm and every member of the JWK, compared exactly (code unit for code unit,
/// byte for byte), never `String ==`: a rotated key published under the same `kid` is another
/// entry, and two keys that are merely canonically equivalent never share one.
final class VerifierCache: Sendable {
    static let shared = VerifierCache()
    static let capacity = 64

    private struct Entry: Hashable {
        let algorithm: JWSAlgorithm
        let key: JWK

        static func == (a: Entry, b: Entry) -> Bool {
            a.algorithm.rawValue.exactlyEquals(b.algorithm.rawValue)
                && a.key.keyType.exactlyEquals(b.key.keyType)
                && a.key.keyID.exactlyEquals(b.key.keyID)
                && a.key.use.exactlyEquals(b.key.use)
                && a.key.algorithm.exactlyEquals(b.key.algorithm)
                && a.key.curve.exactlyEquals(b.key.curve)
                && sameOperations(a.key.keyOperations, b.key.keyOperations)
                && sameBytes(a.key.modulus, b.key.modulus) && sameBytes(a.key.exponent, b.key.exponent)
                && sameBytes(a.key.x, b.key.x) && sameBytes(a.key.y, b.key.y)
        }

        /// Byte-for-byte equality with one `memcmp` (`Data ==` was a visible part of a lookup).
        private static func sameBytes(_ a: Data?, _ b: Data?) -> Bool {
            switch (a, b) {
            case (nil, nil): true
            case (let a?, let b?):
                a.count == b.count && a.withUnsafeBytes { a in
                    b.withUnsafeBytes { b in a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 }
                }
            default: false
            }
        }

        private static func sameOperations(_ a: [String]?, _ b: [String]?) -> Bool {
            switch (a, b) {
            case (nil, nil): true
            case (let a?, let b?): a.count == b.count && zip(a, b).allSatisfy { $0.exactlyEquals($1) }
            default: false
            }
        }

        /// The key material only (equality decides the rest): one pass over a few hundred bytes.
        func hash(into hasher: inout Hasher) {
            func combine(_ part: Data?) {
                guard let part else { return hasher.combine(-1) }
                hasher.combine(part.count)
                part.withUnsafeBytes { hasher.combine(bytes: $0) }
            }
            combine(key.modulus)
            combine(key.exponent)
            combine(key.x)
            combine(key.y)
        }
    }

    private let verifiers = Mutex<[Entry: Verifier]>([:])

    /// The cached verifier for `key` and `algorithm`, or the one `make` builds (then cached).
    func verifier(
        _ key: JWK, algorithm: JWSAlgorithm, make: () throws(SignatureVerificationError) -> Verifier
    ) throws(SignatureVerificationError) -> Verifier {
        let entry = Entry(algorithm: algorithm, key: key)
        if let found = verifiers.withLock({ $0[entry] }) { return found }
        let made = try make()
        verifiers.withLock { verifiers in
            if verifiers.count >= Self.capacity { verifiers.removeAll() }
            verifiers[entry] = made
        }
        return made
    }
}
