import AuthEngine
import AuthEngineLive
import Foundation
import Testing

/// The one JOSE signer (DPoP proofs, Apple's client secret): key pairs on libcrypto, RFC 7638
/// thumbprints, compact JWS verified by the engine's own verifier and by the `openssl` CLI.
@Suite("JWS signing")
struct JWSSigningTests {
    let crypto = OpenSSLCrypto.live

    @Test("RFC 7638 §3.1: the thumbprint of the example RSA key")
    func rfc7638Example() throws {
        let key = JWK(
            keyType: "RSA",
            modulus: try base64URLDecoded(
                "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"),
            exponent: Data([1, 0, 1]))
        #expect(JWKThumbprint.sha256(of: key, crypto: crypto) == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
    }

    @Test("RFC 7518 §3.4 / RFC 8037 §3.1: generated ES256 and EdDSA keys sign compact JWS the engine verifies",
          arguments: [JWSAlgorithm.es256, .edDSA])
    func generatedKeysSign(algorithm: JWSAlgorithm) throws {
        let key = try crypto.generateKeyPair(algorithm)
        #expect(key.algorithm == algorithm)
        let jws = try CompactJWSSigner.sign(header: ["typ": .string("test+jwt"), "jwk": .object(key.publicJWKObject)],
                                            claims: ["sub": .string("alice"), "iat": .number(1_700_000_000)], key: key, crypto: crypto)
        let parsed = try CompactJWS(parsing: jws)
        #expect(parsed.header.algorithm == algorithm.rawValue)
        #expect(String(decoding: parsed.payload, as: UTF8.self) == #"{"iat":1700000000,"sub":"alice"}"#)
        if algorithm == .es256 { #expect(parsed.signature.count == 64) }
        try crypto.verifySignature(algorithm, key.publicKey, parsed.signingInput, parsed.signature)
        var tampered = parsed.signature
        tampered[5] ^= 0x01
        #expect(throws: SignatureVerificationError.invalidSignature) {
            try crypto.verifySignature(algorithm, key.publicKey, parsed.signingInput, tampered)
        }
        // Two keys are never the same key.
        let other = try crypto.generateKeyPair(algorithm)
        #expect(JWKThumbprint.sha256(of: other.publicKey, crypto: crypto) != JWKThumbprint.sha256(of: key.publicKey, crypto: crypto))
    }

    @Test("A key pair is stored as a private JWK and never shows d in its description")
    func keyPairStorage() throws {
        let key = try crypto.generateKeyPair(.es256)
        let encoded = key.json.serialized()
        let object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: String])
        #expect(Set(object.keys) == ["alg", "kty", "crv", "x", "y", "d"])
        guard case .success(let parsed) = parseJSON(encoded) else { Issue.record("not JSON"); return }
        #expect(try JWSKeyPair(json: parsed) == key)
        let ed = try crypto.generateKeyPair(.edDSA)
        guard case .success(let edParsed) = parseJSON(ed.json.serialized()) else { Issue.record("not JSON"); return }
        #expect(try JWSKeyPair(json: edParsed) == ed && edParsed.objectValue?["y"] == nil)
        #expect(!String(describing: key).contains(key.privateKey.exposedValue))
        #expect(key.publicJWKObject["d"] == nil)
    }

    @Test("RFC 7518 §3.4: a signature from a PKCS#8 P-256 key made by openssl verifies with openssl dgst -verify")
    func opensslVerifiesSignature() async throws {
        let directory = try TemporaryDirectory()
        let keyPath = directory.path("AuthKey.p8"), publicPath = directory.path("public.pem")
        try await runTool(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", keyPath])
        try await runTool(["openssl", "pkey", "-in", keyPath, "-pubout", "-out", publicPath])
        let key = try crypto.readPKCS8P256(try Data(contentsOf: URL(fileURLWithPath: keyPath)))
        let jws = try CompactJWSSigner.sign(header: ["kid": .string("ABC123DEFG")], claims: ["iss": .string("TEAM")], key: key, crypto: crypto)
        try await expectOpenSSLVerifies(jws, publicKeyPath: publicPath, in: directory)
    }

    @Test("PKCS#8 reader: an RSA key and an SEC1 EC key are refused with the reason")
    func pkcs8Refusals() async throws {
        let directory = try TemporaryDirectory()
        let rsaPath = directory.path("rsa.pem"), sec1Path = directory.path("sec1.pem")
        try await runTool(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", rsaPath])
        try await runTool(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", sec1Path])
        #expect(throws: JWSSigningError.unusableKey("not an EC key (Apple keys are P-256)")) {
            try crypto.readPKCS8P256(try Data(contentsOf: URL(fileURLWithPath: rsaPath)))
        }
        #expect(throws: JWSSigningError.unusableKey("not a PKCS#8 PEM private key (expected -----BEGIN PRIVATE KEY-----)")) {
            try crypto.readPKCS8P256(try Data(contentsOf: URL(fileURLWithPath: sec1Path)))
        }
    }
}

/// Verifies an ES256 compact JWS with `openssl dgst -sha256 -verify`: raw `r||s` becomes a DER
/// `ECDSA-Sig-Value` through `openssl asn1parse -genconf`.
func expectOpenSSLVerifies(_ jws: String, publicKeyPath: String, in directory: TemporaryDirectory) async throws {
    let parts = jws.split(separator: ".").map(String.init)
    try #require(parts.count == 3)
    let signature = try #require(Base64URL.decode(parts[2]))
    try #require(signature.count == 64)
    func hex(_ data: Data) -> String { data.map { String(format: "%02X", $0) }.joined() }
    let config = "asn1=SEQUENCE:sig\n[sig]\nr=INTEGER:0x\(hex(signature.prefix(32)))\ns=INTEGER:0x\(hex(signature.suffix(32)))\n"
    let configPath = directory.path("sig.conf"), derPath = directory.path("sig.der"), inputPath = directory.path("input")
    try Data(config.utf8).write(to: URL(fileURLWithPath: configPath))
    try Data((parts[0] + "." + parts[1]).utf8).write(to: URL(fileURLWithPath: inputPath))
    try await runTool(["openssl", "asn1parse", "-genconf", configPath, "-out", derPath, "-noout"])
    let output = try await runTool(["openssl", "dgst", "-sha256", "-verify", publicKeyPath, "-signature", derPath, inputPath])
    #expect(String(decoding: output, as: UTF8.self).contains("Verified OK"))
}
