import Foundation
import Synchronization
import Testing
@testable import AuthEngine

/// Key rollover. Providers publish the old and the new signing key, sometimes under
/// one `kid`; every candidate that fits (`kty`, `use`, `alg`, `crv`) is tried, and the token is
/// accepted when one verifies.
@Suite("Key rollover: every fitting candidate is tried (OIDC Core §10.1.1, RFC 7517 §4.5)")
struct KeyRolloverTests {
    static let old = JWK(keyType: "RSA", keyID: "k1", use: "sig", algorithm: "RS256", modulus: Data([1, 1]), exponent: Data([1, 0, 1]))
    static let new = JWK(keyType: "RSA", keyID: "k1", use: "sig", algorithm: "RS256", modulus: Data([2, 2]), exponent: Data([1, 0, 1]))

    /// A verifier that accepts only signatures made "with" `signer` (the key's modulus), and records each key tried.
    final class KeyBoundCrypto: Sendable {
        let signer: JWK
        let tried = Mutex<[JWK]>([])
        init(signer: JWK) { self.signer = signer }
        var provider: CryptoProvider {
            CryptoProvider(
                digest: { _, _ in Data(repeating: 0, count: 32) },
                randomBytes: { Data(repeating: 1, count: $0) },
                verifySignature: { [self] (_: JWSAlgorithm, key: JWK, _: Data, _: Data) throws(SignatureVerificationError) in
                    tried.withLock { $0.append(key) }
                    if key.modulus != signer.modulus { throw .invalidSignature }
                },
                generateKeyPair: UnusedSigning.generateKeyPair, sign: UnusedSigning.sign, readPKCS8P256: UnusedSigning.readPKCS8P256)
        }
    }

    static let options = OP.options(accessTokenHash: .skipCheck)

    @Test("Two RSA keys with the same kid: the token signed with the new one is accepted (was: ambiguous key)")
    func sameKidNewKeyVerifies() throws {
        let crypto = KeyBoundCrypto(signer: Self.new)
        let verified = try validateIDToken(OP.idToken(), keys: JWKSet(keys: [Self.old, Self.new]), options: Self.options, crypto: crypto.provider, now: testNow)
        #expect(verified.verifiedWith == Self.new)
        #expect(crypto.tried.withLock { $0 } == [Self.old, Self.new])
    }

    @Test("Two RSA keys with the same kid: the old one still verifies tokens signed before the rollover")
    func sameKidOldKeyVerifies() throws {
        let crypto = KeyBoundCrypto(signer: Self.old)
        let verified = try validateIDToken(OP.idToken(), keys: JWKSet(keys: [Self.old, Self.new]), options: Self.options, crypto: crypto.provider, now: testNow)
        #expect(verified.verifiedWith == Self.old)
    }

    @Test("Two candidates and neither verifies: signatureInvalid, never accepted")
    func noCandidateVerifies() {
        let attacker = JWK(keyType: "RSA", keyID: "k1", modulus: Data([9]), exponent: Data([1]))
        let crypto = KeyBoundCrypto(signer: attacker)
        #expect(authError { try validateIDToken(OP.idToken(), keys: JWKSet(keys: [Self.old, Self.new]), options: Self.options, crypto: crypto.provider, now: testNow) }
            == .protocolViolation(.signatureInvalid(kid: "k1")))
    }

    @Test("Only keys that fit are tried: an EC key, an enc key and an RS512 key under the same kid are skipped")
    func onlyFittingCandidates() throws {
        let ec = JWK(keyType: "EC", keyID: "k1", curve: "P-256", x: Data([1]), y: Data([2]))
        let enc = JWK(keyType: "RSA", keyID: "k1", use: "enc", modulus: Data([2, 2]), exponent: Data([1]))
        let rs512 = JWK(keyType: "RSA", keyID: "k1", algorithm: "RS512", modulus: Data([2, 2]), exponent: Data([1]))
        let crypto = KeyBoundCrypto(signer: Self.new)
        _ = try validateIDToken(OP.idToken(), keys: JWKSet(keys: [ec, enc, rs512, Self.old, Self.new]), options: Self.options, crypto: crypto.provider, now: testNow)
        #expect(crypto.tried.withLock { $0 } == [Self.old, Self.new])
    }

    @Test("JWKS-02 kid-absent-multiple-jwks: RSA, P-256, secp256k1 and OKP keys without kid; the RS256 token verifies with the third RSA key")
    func kidAbsentMultipleAccepted() throws {
        let rsa = (1...3).map { JWK(keyType: "RSA", modulus: Data([UInt8($0)]), exponent: Data([1])) }
        let others = [JWK(keyType: "EC", curve: "P-256", x: Data([1]), y: Data([2])), JWK(keyType: "EC", curve: "secp256k1", x: Data([1]), y: Data([2])),
                      JWK(keyType: "OKP", curve: "Ed25519", x: Data([1]))]
        let crypto = KeyBoundCrypto(signer: rsa[2])
        let verified = try validateIDToken(OP.idToken(header: ["alg": "RS256"]), keys: JWKSet(keys: others + rsa), options: Self.options,
                                           crypto: crypto.provider, now: testNow)
        #expect(verified.verifiedWith == rsa[2])
        #expect(crypto.tried.withLock { $0 }.allSatisfy { $0.keyType == "RSA" })
    }

    @Test("JWKS-09, RFC 7517 §4.5: kid k1 on an RSA and an EC key; an ES256 token uses the EC key")
    func sameKidDifferentKty() throws {
        let ec = JWK(keyType: "EC", keyID: "k1", curve: "P-256", x: Data([3]), y: Data([4]))
        let crypto = KeyBoundCrypto(signer: JWK(keyType: "EC", modulus: nil))
        // The stub compares moduli: nil == nil for EC keys, so only EC keys verify.
        let verified = try validateIDToken(OP.idToken(header: ["alg": "ES256", "kid": "k1"]), keys: JWKSet(keys: [Self.old, ec]), options: Self.options,
                                           crypto: crypto.provider, now: testNow)
        #expect(verified.verifiedWith == ec)
        #expect(crypto.tried.withLock { $0 } == [ec])
    }

    @Test("More fitting keys than the limit are refused as ambiguous, without verifying each")
    func tooManyCandidates() {
        let keys = (0...maximumVerificationCandidates).map { JWK(keyType: "RSA", keyID: "k1", modulus: Data([UInt8($0)]), exponent: Data([1])) }
        let crypto = KeyBoundCrypto(signer: keys[0])
        #expect(authError { try validateIDToken(OP.idToken(), keys: JWKSet(keys: keys), options: Self.options, crypto: crypto.provider, now: testNow) }
            == .protocolViolation(.multipleMatchingKeys(kid: "k1", count: maximumVerificationCandidates + 1)))
        #expect(crypto.tried.withLock { $0 }.isEmpty)
    }

    @Test("JWKS-04 sibling: a key replaced under the same kid — after a minute the cache re-fetches once and accepts")
    func replacedUnderSameKid() async throws {
        let fetches = Mutex(0)
        let cache = JWKSCache { () async throws(AuthError) -> JWKSet in
            fetches.withLock { $0 += 1; return $0 == 1 ? JWKSet(keys: [Self.old]) : JWKSet(keys: [Self.new]) }
        }
        _ = try await cache.keySet(now: testNow.addingTimeInterval(-61))
        let crypto = KeyBoundCrypto(signer: Self.new)
        let verified = try await validateIDToken(OP.idToken(), options: Self.options, crypto: crypto.provider, now: testNow, jwksCache: cache)
        #expect(verified.verifiedWith == Self.new)
        #expect(fetches.withLock { $0 } == 2)
    }

    @Test("JWKS-05 sibling: with a fresh cache (< 60 s) a bad signature is refused without a re-fetch")
    func freshCacheNoRefetch() async throws {
        let fetches = Mutex(0)
        let cache = JWKSCache { () async throws(AuthError) -> JWKSet in
            fetches.withLock { $0 += 1 }
            return JWKSet(keys: [Self.old])
        }
        _ = try await cache.keySet(now: testNow.addingTimeInterval(-5))
        let crypto = KeyBoundCrypto(signer: Self.new)
        let error = await asyncAuthError { try await validateIDToken(OP.idToken(), options: Self.options, crypto: crypto.provider, now: testNow, jwksCache: cache) }
        #expect(error == .protocolViolation(.signatureInvalid(kid: "k1")))
        #expect(fetches.withLock { $0 } == 1)
    }

    @Test("Key rollover through the cache: two keys with kid k1 in one fetched set, the new one verifies")
    func rolloverThroughCache() async throws {
        let cache = JWKSCache { () async throws(AuthError) -> JWKSet in JWKSet(keys: [Self.old, Self.new]) }
        let crypto = KeyBoundCrypto(signer: Self.new)
        let verified = try await validateIDToken(OP.idToken(), options: Self.options, crypto: crypto.provider, now: testNow, jwksCache: cache)
        #expect(verified.verifiedWith == Self.new)
    }
}
