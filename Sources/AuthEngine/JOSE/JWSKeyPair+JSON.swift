import FoundationEssentials

// The private JWK of a ``JWSKeyPair`` (RFC 7517 §4, RFC 7518 §6.2.2, RFC 8037 §2), read and
// written in one place: `{"alg":"ES256","kty":"EC","crv":"P-256","x":"…","y":"…","d":"…"}`
// (`y` only for EC). The same members the earlier Codable code wrote; `d` leaves the redacted
// type only here.
extension JWSKeyPair {
    /// Reads a private JWK: `alg` one of ``signingAlgorithms`` (compared exactly), `kty` and
    /// `crv` strings, `x`/`y` base64url when present, `d` a string.
    /// - Throws: ``JSONShapeError`` naming the member (never its value).
    public init(json: JSONValue, path: [JSONPathComponent] = []) throws(JSONShapeError) {
        let reader = try JSONReader(json, path: path)
        let alg = try reader.string("alg")
        guard let algorithm = Self.signingAlgorithms.first(where: { $0.rawValue.exactlyEquals(alg) }) else {
            throw reader.shapeError("alg", expected: "ES256 or EdDSA")
        }
        func bytes(_ name: String) throws(JSONShapeError) -> Data? {
            guard let text = try reader.optionalString(name) else { return nil }
            guard let data = Base64URL.decode(text) else { throw reader.shapeError(name, expected: "base64url") }
            return data
        }
        self.init(algorithm: algorithm,
                  publicKey: JWK(keyType: try reader.string("kty"), curve: try reader.string("crv"), x: try bytes("x"), y: try bytes("y")),
                  privateKey: JWSPrivateKey(try reader.string("d")))
    }

    /// The private JWK (with `d`): only for the account's secret set, never a header or a log.
    public var json: JSONValue {
        .object(omittingNil: [
            "alg": .string(algorithm.rawValue),
            "kty": .string(publicKey.keyType),
            "crv": publicKey.curve.map(JSONValue.string),
            "x": publicKey.x.map { .string(Base64URL.encode($0)) },
            "y": publicKey.y.map { .string(Base64URL.encode($0)) },
            "d": .string(privateKey.exposedValue),
        ])
    }
}
