import AuthEngine
import AuthEngineLive
import Dispatch
import Foundation
import Synchronization
import Testing

/// The verification contexts `OpenSSLCrypto` keeps per key and algorithm (`VerifierCache`): a
/// cached context must judge every signature afresh, and a key rotated under the same `kid` must
/// never verify with the old key's context.
@Suite("OpenSSLCrypto verifier cache")
struct VerifierCacheTests {
    let crypto = OpenSSLCrypto.live

    /// Two keys made by the openssl CLI for `algorithm`, both published as `kid` "rotating".
    private func rotatedPair(_ algorithm: JWSAlgorithm) async throws -> (old: OpenSSLVector, new: OpenSSLVector) {
        let first = try TemporaryDirectory(), second = try TemporaryDirectory()
        defer { first.remove(); second.remove() }
        var old = try await OpenSSLVector.make(algorithm, in: first)
        var new = try await OpenSSLVector.make(algorithm, in: second)
        old.key.keyID = "rotating"
        new.key.keyID = "rotating"
        return (old, new)
    }

    private func expectInvalid(
        _ algorithm: JWSAlgorithm, _ key: JWK, _ input: Data, _ signature: Data, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(throws: SignatureVerificationError.invalidSignature, sourceLocation: sourceLocation) {
            try crypto.verifySignature(algorithm, key, input, signature)
        }
    }

    @Test("RFC 7515 §5.2 step 8: with its context cached, a key still rejects a tampered signature or signing input, and still accepts the genuine one after",
          arguments: [JWSAlgorithm.rs256, .ps256, .es256, .edDSA])
    func cachedContextRejectsTampering(algorithm: JWSAlgorithm) async throws {
        let (vector, _) = try await rotatedPair(algorithm)
        for _ in 0 ..< 3 { try crypto.verifySignature(algorithm, vector.key, vector.signingInput, vector.signature) }
        var signature = vector.signature
        signature[signature.startIndex + 7] ^= 0x01
        expectInvalid(algorithm, vector.key, vector.signingInput, signature)
        var input = vector.signingInput
        input[input.startIndex + input.count - 1] ^= 0x01
        expectInvalid(algorithm, vector.key, input, vector.signature)
        expectInvalid(algorithm, vector.key, vector.signingInput, Data(vector.signature.dropLast()))
        try crypto.verifySignature(algorithm, vector.key, vector.signingInput, vector.signature)
    }

    @Test("RFC 7517 §4.5: after a key rotation under the same kid, each key's cached context verifies only its own signatures",
          arguments: [JWSAlgorithm.rs256, .ps256, .es256, .edDSA])
    func rotationUnderSameKeyID(algorithm: JWSAlgorithm) async throws {
        let (old, new) = try await rotatedPair(algorithm)
        try crypto.verifySignature(algorithm, old.key, old.signingInput, old.signature)  // cached: old key
        expectInvalid(algorithm, old.key, new.signingInput, new.signature)
        try crypto.verifySignature(algorithm, new.key, new.signingInput, new.signature)  // cached: new key
        expectInvalid(algorithm, new.key, old.signingInput, old.signature)
        try crypto.verifySignature(algorithm, old.key, old.signingInput, old.signature)
    }

    @Test("RFC 7518 §3.3: one cached RS256 context used from many threads at once gives every verification its own answer")
    func concurrentVerifications() async throws {
        let (vector, other) = try await rotatedPair(.rs256)
        let crypto = self.crypto
        let key = vector.key, input = vector.signingInput, good = vector.signature, foreign = other.signature
        try crypto.verifySignature(.rs256, key, input, good)
        let wrong = Atomic(0)
        DispatchQueue.concurrentPerform(iterations: 400) { index in
            let genuine = index % 2 == 0
            let accepted = (try? crypto.verifySignature(.rs256, key, input, genuine ? good : foreign)) != nil
            if accepted != genuine { wrong.add(1, ordering: .relaxed) }
        }
        #expect(wrong.load(ordering: .relaxed) == 0)
    }
}
