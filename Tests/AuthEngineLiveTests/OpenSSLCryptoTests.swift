import AuthEngine
import AuthEngineLive
import Foundation
import Testing

/// Published vectors (RFC 7636 Appendix B, RFC 7515 Appendix A.2/A.3, RFC 8037 Appendix A.4) and
/// signatures made at test time with the `openssl` CLI, verified through `OpenSSLCrypto.live`.
@Suite("OpenSSLCrypto")
struct OpenSSLCryptoTests {
    let crypto = OpenSSLCrypto.live

    // MARK: Published vectors

    /// RFC 7515 Appendix A.1/A.2 payload, encoded.
    static let rfc7515Payload =
        "eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"

    /// RFC 7515 Appendix A.2.1 RSA public key (n, e).
    static let rfc7515RSAKey = JWK(
        keyType: "RSA",
        modulus: try! base64URLDecoded(
            "ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMs"
                + "D1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdV"
                + "MTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ"),
        exponent: try! base64URLDecoded("AQAB")
    )
    static let rfc7515RS256SigningInput = "eyJhbGciOiJSUzI1NiJ9." + rfc7515Payload
    static let rfc7515RS256Signature =
        "cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4"
            + "BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqv"
            + "hJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGlUPQGe77Rw"

    /// RFC 7515 Appendix A.3.1 EC P-256 public key.
    static let rfc7515ECKey = JWK(
        keyType: "EC", curve: "P-256",
        x: try! base64URLDecoded("f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"),
        y: try! base64URLDecoded("x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0")
    )
    static let rfc7515ES256SigningInput = "eyJhbGciOiJFUzI1NiJ9." + rfc7515Payload
    static let rfc7515ES256Signature = "DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"

    /// RFC 8037 Appendix A.2 Ed25519 public key, A.4 signature.
    static let rfc8037Key = JWK(keyType: "OKP", curve: "Ed25519", x: try! base64URLDecoded("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"))
    static let rfc8037SigningInput = "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc"
    static let rfc8037Signature = "hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg"

    /// A P-256 key whose `x` has a leading zero byte, published short (31 bytes) as some
    /// encoders do; generated once with pyca/cryptography, with an ES256 signature.
    static let shortXKey = JWK(
        keyType: "EC", curve: "P-256",
        x: try! base64URLDecoded("sKW7KMVgCfndYbXII-4JjUoVK9CIc1QTTF8ZM8UaPg"),
        y: try! base64URLDecoded("WheB-TFByMHRTEW7F8cUVQePfLya1zuNTbOowLaLOig")
    )
    static let shortXSigningInput = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJzaG9ydC1jb29yZGluYXRlIn0"
    static let shortXSignature = "qpazDro3AKjmBTdPDm5880ETcb0hYcZQVNovWJXedDVC5jpfoY72RsshqTlM7D2mmxbum4pC9qyzgg-HtEuJOw"

    @Test("RFC 7636 Appendix B: S256 challenge of the example verifier")
    func pkceAppendixB() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        let challenge = base64URLEncoded(crypto.digest(.sha256, Data(verifier.utf8)))
        #expect(challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test("FIPS 180-2 \"abc\" digests for SHA-256/384/512", arguments: [
        (DigestAlgorithm.sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (.sha384, "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"),
        (.sha512, "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"),
    ])
    func digests(algorithm: DigestAlgorithm, expectedHex: String) {
        let hex = crypto.digest(algorithm, Data("abc".utf8)).map { String(format: "%02x", $0) }.joined()
        #expect(hex == expectedHex)
    }

    @Test("randomBytes returns the requested count and differs between calls")
    func randomBytes() {
        let first = crypto.randomBytes(32)
        let second = crypto.randomBytes(32)
        #expect(first.count == 32)
        #expect(second.count == 32)
        #expect(first != second)
        #expect(crypto.randomBytes(0).isEmpty)
    }

    @Test("RFC 7515 A.2: the RS256 example signature verifies with the example key")
    func rfc7515RS256() throws {
        try crypto.verifySignature(.rs256, Self.rfc7515RSAKey, Data(Self.rfc7515RS256SigningInput.utf8), base64URLDecoded(Self.rfc7515RS256Signature))
    }

    @Test("RFC 7515 A.3: the ES256 example signature (raw r||s) verifies with the example key")
    func rfc7515ES256() throws {
        try crypto.verifySignature(.es256, Self.rfc7515ECKey, Data(Self.rfc7515ES256SigningInput.utf8), base64URLDecoded(Self.rfc7515ES256Signature))
    }

    @Test("RFC 8037 A.4: the Ed25519 example signature verifies with the example key")
    func rfc8037EdDSA() throws {
        try crypto.verifySignature(.edDSA, Self.rfc8037Key, Data(Self.rfc8037SigningInput.utf8), base64URLDecoded(Self.rfc8037Signature))
    }

    static let publishedVectors: [(JWSAlgorithm, JWK, String, String)] = [
        (.rs256, rfc7515RSAKey, rfc7515RS256SigningInput, rfc7515RS256Signature),
        (.es256, rfc7515ECKey, rfc7515ES256SigningInput, rfc7515ES256Signature),
        (.edDSA, rfc8037Key, rfc8037SigningInput, rfc8037Signature),
    ]

    @Test("RFC 7515 §5.2 step 8: one flipped byte in the signature is invalidSignature", arguments: publishedVectors)
    func flippedSignatureByte(algorithm: JWSAlgorithm, key: JWK, signingInput: String, signature: String) throws {
        var tampered = try base64URLDecoded(signature)
        tampered[tampered.startIndex + 10] ^= 0x01
        #expect(throws: SignatureVerificationError.invalidSignature) {
            try crypto.verifySignature(algorithm, key, Data(signingInput.utf8), tampered)
        }
    }

    @Test("RFC 7515 §5.2 step 8: one flipped byte in the signing input is invalidSignature", arguments: publishedVectors)
    func flippedInputByte(algorithm: JWSAlgorithm, key: JWK, signingInput: String, signature: String) throws {
        var input = Data(signingInput.utf8)
        input[input.startIndex + 3] ^= 0x01
        let signatureBytes = try base64URLDecoded(signature)
        #expect(throws: SignatureVerificationError.invalidSignature) {
            try crypto.verifySignature(algorithm, key, input, signatureBytes)
        }
    }

    // MARK: JWK shapes (RFC 7518 §6)

    @Test("RFC 7518 §6.3.1.1: an RSA modulus with a leading zero byte is accepted")
    func rsaModulusLeadingZero() throws {
        var key = Self.rfc7515RSAKey
        key.modulus = Data([0]) + key.modulus!
        try crypto.verifySignature(.rs256, key, Data(Self.rfc7515RS256SigningInput.utf8), base64URLDecoded(Self.rfc7515RS256Signature))
    }

    @Test("RFC 7518 §6.2.1.2: an EC x coordinate shorter than the curve size is left-padded")
    func ecShortCoordinate() throws {
        #expect(Self.shortXKey.x!.count == 31)
        try crypto.verifySignature(.es256, Self.shortXKey, Data(Self.shortXSigningInput.utf8), base64URLDecoded(Self.shortXSignature))
    }

    @Test("RFC 7518 §6.2.1.2: an EC coordinate longer than the curve size is unusableKey")
    func ecLongCoordinate() throws {
        var key = Self.rfc7515ECKey
        key.x = Data([1]) + key.x!
        let signature = try base64URLDecoded(Self.rfc7515ES256Signature)
        expectUnusableKey { try crypto.verifySignature(.es256, key, Data(Self.rfc7515ES256SigningInput.utf8), signature) }
    }

    @Test("RFC 7518 §3.4: an ECDSA signature that is not 2 × the curve size is invalidSignature", arguments: [63, 65, 72])
    func ecdsaSignatureLength(length: Int) throws {
        let signature = Data(repeating: 0x5a, count: length)
        #expect(throws: SignatureVerificationError.invalidSignature) {
            try crypto.verifySignature(.es256, Self.rfc7515ECKey, Data(Self.rfc7515ES256SigningInput.utf8), signature)
        }
    }

    @Test("RFC 7518 §4: HS256/HS384/HS512 and none are unsupportedAlgorithm", arguments: [JWSAlgorithm.hs256, .hs384, .hs512, .none])
    func unsupportedAlgorithms(algorithm: JWSAlgorithm) {
        let key = JWK(keyType: "oct")
        #expect(throws: SignatureVerificationError.unsupportedAlgorithm(algorithm)) {
            try crypto.verifySignature(algorithm, key, Data("a.b".utf8), Data([1, 2, 3]))
        }
    }

    static let wrongKeyTypes: [(JWSAlgorithm, JWK)] = [
        (.rs256, rfc7515ECKey), (.ps256, rfc8037Key), (.es256, rfc7515RSAKey), (.edDSA, rfc7515ECKey),
        (.es384, rfc7515ECKey), // P-256 key for a P-384 algorithm
        (.edDSA, JWK(keyType: "OKP", curve: "X25519", x: Data(repeating: 9, count: 32))),
    ]

    @Test("RFC 7518 §6.1: a key of the wrong kty or crv for the algorithm is unusableKey", arguments: wrongKeyTypes)
    func wrongKeyType(algorithm: JWSAlgorithm, key: JWK) {
        expectUnusableKey { try crypto.verifySignature(algorithm, key, Data("a.b".utf8), Data(repeating: 1, count: 64)) }
    }

    @Test("RFC 7517 §4.4/§4.2: a key whose alg names another algorithm, or whose use is enc, is unusableKey")
    func keyAlgorithmAndUse() throws {
        let signature = try base64URLDecoded(Self.rfc7515RS256Signature)
        let input = Data(Self.rfc7515RS256SigningInput.utf8)
        var withOtherAlg = Self.rfc7515RSAKey
        withOtherAlg.algorithm = "PS256"
        expectUnusableKey { try crypto.verifySignature(.rs256, withOtherAlg, input, signature) }
        var encryptionKey = Self.rfc7515RSAKey
        encryptionKey.use = "enc"
        expectUnusableKey { try crypto.verifySignature(.rs256, encryptionKey, input, signature) }
        var matching = Self.rfc7515RSAKey
        matching.algorithm = "RS256"
        matching.use = "sig"
        try crypto.verifySignature(.rs256, matching, input, signature)
    }

    @Test("RFC 7518 §3.3: an RSA key under 2048 bits is unusableKey even with a valid signature")
    func rsa1024Refused() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let vector = try await OpenSSLVector.make(.rs256, in: directory, rsaBits: 1024)
        #expect(vector.key.modulus!.count == 128)
        expectUnusableKey { try crypto.verifySignature(.rs256, vector.key, vector.signingInput, vector.signature) }
    }

    // MARK: Signatures made by the openssl CLI at test time

    @Test("RFC 7518 §3.3/§3.4/§3.5, RFC 8037: signatures made by the openssl CLI verify; tampered ones do not",
          arguments: [JWSAlgorithm.rs384, .rs512, .ps256, .ps384, .ps512, .es256, .es384, .es512, .edDSA])
    func opensslSignatures(algorithm: JWSAlgorithm) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let vector = try await OpenSSLVector.make(algorithm, in: directory)
        try crypto.verifySignature(algorithm, vector.key, vector.signingInput, vector.signature)
        var tampered = vector.signature
        tampered[tampered.startIndex + 5] ^= 0x80
        #expect(throws: SignatureVerificationError.invalidSignature) {
            try crypto.verifySignature(algorithm, vector.key, vector.signingInput, tampered)
        }
    }

    @Test("RFC 7518 §3.5: a PSS signature does not verify as PKCS#1 v1.5, nor the reverse")
    func paddingConfusion() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pss = try await OpenSSLVector.make(.ps256, in: directory)
        #expect(throws: SignatureVerificationError.invalidSignature) {
            try crypto.verifySignature(.rs256, pss.key, pss.signingInput, pss.signature)
        }
        #expect(throws: SignatureVerificationError.invalidSignature) {
            try crypto.verifySignature(
                .ps256, Self.rfc7515RSAKey, Data(Self.rfc7515RS256SigningInput.utf8), try base64URLDecoded(Self.rfc7515RS256Signature))
        }
    }

    private func expectUnusableKey(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            try body()
            Issue.record("expected unusableKey, verification passed", sourceLocation: sourceLocation)
        } catch {
            guard case .unusableKey = error as? SignatureVerificationError else {
                Issue.record("expected unusableKey, got \(error)", sourceLocation: sourceLocation)
                return
            }
        }
    }
}

/// A key and a signature made with the `openssl` CLI, converted to JWS form
/// (public JWK members, raw `r||s` for ECDSA).
struct OpenSSLVector {
    var key: JWK
    var signingInput: Data
    var signature: Data

    static func make(_ algorithm: JWSAlgorithm, in directory: TemporaryDirectory, rsaBits: Int = 2048) async throws -> OpenSSLVector {
        let keyPath = directory.path("key.pem")
        let inputPath = directory.path("input.txt")
        let signaturePath = directory.path("signature.bin")
        let signingInput = Data("eyJhbGciOiJ\(algorithm.rawValue)In0.eyJzdWIiOiJhbGljZSJ9".utf8)
        try signingInput.write(to: URL(fileURLWithPath: inputPath))
        let digestFlag = "-" + (algorithm.digest?.rawValue ?? "sha256")

        switch algorithm {
        case .rs256, .rs384, .rs512, .ps256, .ps384, .ps512:
            try await runTool(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:\(rsaBits)", "-out", keyPath])
            var sign = ["openssl", "dgst", digestFlag, "-sign", keyPath, "-out", signaturePath]
            if algorithm.rawValue.hasPrefix("PS") {
                sign += ["-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:digest"]
            }
            try await runTool(sign + [inputPath])
            let modulusLine = String(decoding: try await runTool(["openssl", "rsa", "-in", keyPath, "-noout", "-modulus"]), as: UTF8.self)
            let modulusHex = modulusLine.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "Modulus=", with: "")
            return OpenSSLVector(
                key: JWK(keyType: "RSA", modulus: try bytes(hex: modulusHex), exponent: Data([1, 0, 1])),
                signingInput: signingInput,
                signature: try Data(contentsOf: URL(fileURLWithPath: signaturePath))
            )
        case .es256, .es384, .es512:
            let (curve, size) = algorithm == .es256 ? ("P-256", 32) : algorithm == .es384 ? ("P-384", 48) : ("P-521", 66)
            try await runTool(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:\(curve)", "-out", keyPath])
            // The SubjectPublicKeyInfo DER ends with the uncompressed point 04 || x || y.
            let spki = try await runTool(["openssl", "pkey", "-in", keyPath, "-pubout", "-outform", "DER"])
            let point = spki.suffix(1 + 2 * size)
            guard point.first == 0x04 else { throw FixtureError("unexpected EC SPKI") }
            try await runTool(["openssl", "dgst", digestFlag, "-sign", keyPath, "-out", signaturePath, inputPath])
            // DER ECDSA-Sig-Value → raw r || s through `openssl asn1parse`.
            let parsed = String(decoding: try await runTool(["openssl", "asn1parse", "-inform", "DER", "-in", signaturePath]), as: UTF8.self)
            let integers = try parsed.split(separator: "\n").filter { $0.contains("INTEGER") }.map { line in
                try bytes(hex: String(line.split(separator: ":").last!))
            }
            guard integers.count == 2 else { throw FixtureError("unexpected ECDSA signature: \(parsed)") }
            let raw = try integers.map { integer -> Data in
                let trimmed = integer.drop(while: { $0 == 0 })
                guard trimmed.count <= size else { throw FixtureError("ECDSA integer too long") }
                return Data(repeating: 0, count: size - trimmed.count) + trimmed
            }
            return OpenSSLVector(
                key: JWK(keyType: "EC", curve: curve, x: Data(point.dropFirst().prefix(size)), y: Data(point.suffix(size))),
                signingInput: signingInput,
                signature: raw[0] + raw[1]
            )
        case .edDSA:
            try await runTool(["openssl", "genpkey", "-algorithm", "ED25519", "-out", keyPath])
            let spki = try await runTool(["openssl", "pkey", "-in", keyPath, "-pubout", "-outform", "DER"])
            try await runTool(["openssl", "pkeyutl", "-sign", "-inkey", keyPath, "-rawin", "-in", inputPath, "-out", signaturePath])
            return OpenSSLVector(
                key: JWK(keyType: "OKP", curve: "Ed25519", x: Data(spki.suffix(32))),
                signingInput: signingInput,
                signature: try Data(contentsOf: URL(fileURLWithPath: signaturePath))
            )
        case .hs256, .hs384, .hs512, .none:
            throw FixtureError("no openssl vector for \(algorithm)")
        }
    }

    static func bytes(hex: String) throws -> Data {
        let digits = Array(hex.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        guard digits.count % 2 == 0 else { throw FixtureError("odd hex length") }
        var data = Data()
        var index = 0
        while index < digits.count {
            guard let byte = UInt8(String(decoding: digits[index ..< index + 2], as: UTF8.self), radix: 16) else {
                throw FixtureError("bad hex")
            }
            data.append(byte)
            index += 2
        }
        return data
    }
}
