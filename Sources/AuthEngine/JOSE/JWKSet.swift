import FoundationEssentials

/// A JWK Set (RFC 7517 §5) of public signing keys. Entries with an unknown `kty`, missing
/// parameters, undecodable base64url or `use: "enc"` are skipped (JWKS-10); extra members ignored.
public struct JWKSet: Sendable, Equatable {
    public var keys: [JWK]

    public init(keys: [JWK]) { self.keys = keys }

    /// Parses a JWK Set document.
    /// - Throws: `.protocolViolation(.malformedJWKSet)` when the body is not JSON or `keys` is not an array;
    ///   `.protocolViolation(.duplicateMember)` when any object repeats a member (the whole set is refused).
    public init(parsing data: Data) throws(AuthError) {
        let object: [String: JSONValue]
        switch parseJSONObject(data) {
        case .success(let parsed): object = parsed
        case .failure(.duplicateMember(let name)): throw .protocolViolation(.duplicateMember(name: name, context: "JWK Set"))
        case .failure(.malformed): throw .protocolViolation(.malformedJWKSet(reason: "not a JSON object"))
        }
        guard let entries = object["keys"]?.arrayValue else { throw .protocolViolation(.malformedJWKSet(reason: "no keys array")) }
        keys = entries.compactMap { $0.objectValue.flatMap(JWK.init(jsonObject:)) }.filter { !$0.use.exactlyEquals("enc") }
    }
}

extension JWK {
    /// A public JWK from its JSON members (RFC 7517 §4, RFC 7518 §6, RFC 8037 §2); nil when
    /// unusable (unknown `kty`, missing or undecodable parameters). RSA `n`/`e` keep leading
    /// zero bytes; EC `x`/`y` are kept as decoded (the verifier pads short coordinates).
    init?(jsonObject object: [String: JSONValue]) {
        guard let kty = object["kty"]?.stringValue else { return nil }
        func bytes(_ name: String) -> Data? { object[name]?.stringValue.flatMap(Base64URL.decode) }
        let keyOps: [String]? = object["key_ops"]?.arrayValue.map { $0.compactMap(\.stringValue) }
        let common = (kid: object["kid"]?.stringValue, use: object["use"]?.stringValue, alg: object["alg"]?.stringValue)
        guard ["RSA", "EC", "OKP"].containsExactly(kty) else { return nil }
        switch kty {
        case "RSA":
            guard let n = bytes("n"), let e = bytes("e"), !n.isEmpty, !e.isEmpty else { return nil }
            self.init(keyType: kty, keyID: common.kid, use: common.use, algorithm: common.alg, keyOperations: keyOps, modulus: n, exponent: e)
        case "EC":
            guard let crv = object["crv"]?.stringValue, let x = bytes("x"), let y = bytes("y") else { return nil }
            self.init(keyType: kty, keyID: common.kid, use: common.use, algorithm: common.alg, keyOperations: keyOps, curve: crv, x: x, y: y)
        case "OKP":
            guard let crv = object["crv"]?.stringValue, let x = bytes("x") else { return nil }
            self.init(keyType: kty, keyID: common.kid, use: common.use, algorithm: common.alg, keyOperations: keyOps, curve: crv, x: x)
        default:
            return nil
        }
    }
}

extension JWSAlgorithm {
    /// The curves a key must have for this algorithm (RFC 7518 §3.4, RFC 8037 §3.1); nil = any.
    var allowedCurves: [String]? {
        switch self {
        case .es256: ["P-256"]
        case .es384: ["P-384"]
        case .es512: ["P-521"]
        case .edDSA: ["Ed25519", "Ed448"]
        default: nil
        }
    }
}

/// Most keys tried for one signature (key rollover and `kid`-less sets need a few; a set
/// that fits more than this is refused as ambiguous rather than verified key by key).
public let maximumVerificationCandidates = 8

/// Every key that may verify a JWS with `header` and `algorithm` (oauth4webapi's rules,
/// docs/ARCHITECTURE.md "Refusals", compared byte for byte): same `kty` as the algorithm; same `kid` when the header
/// has one; `alg` absent or equal; `use` absent or `sig`; `key_ops` absent or containing
/// `verify`; a fitting `crv`. Several candidates are normal during key rollover (a provider
/// publishing the old and the new key under one `kid`) and for `kid`-less sets (JWKS-02): the
/// ID token validation tries each and accepts the one that verifies.
/// - Throws: ``ProtocolViolation/noMatchingKey(kid:)`` for none;
///   ``ProtocolViolation/multipleMatchingKeys(kid:count:)`` for more than ``maximumVerificationCandidates``.
public func verificationKeyCandidates(in set: JWKSet, header: JOSEHeader, algorithm: JWSAlgorithm) throws(AuthError) -> [JWK] {
    let candidates = set.keys.filter { key in
        guard let keyType = algorithm.keyType, key.keyType.exactlyEquals(keyType) else { return false }
        if let kid = header.keyID, !key.keyID.exactlyEquals(kid) { return false }
        if let alg = key.algorithm, !alg.exactlyEquals(algorithm.rawValue) { return false }
        if let use = key.use, !use.exactlyEquals("sig") { return false }
        if let ops = key.keyOperations, !ops.containsExactly("verify") { return false }
        if let curves = algorithm.allowedCurves, !(key.curve.map { curves.containsExactly($0) } ?? false) { return false }
        return true
    }
    if candidates.isEmpty { throw .protocolViolation(.noMatchingKey(kid: header.keyID)) }
    if candidates.count > maximumVerificationCandidates {
        throw .protocolViolation(.multipleMatchingKeys(kid: header.keyID, count: candidates.count))
    }
    return candidates
}

/// The one key that fits (``verificationKeyCandidates(in:header:algorithm:)``); several →
/// ``ProtocolViolation/multipleMatchingKeys(kid:count:)``. ID token validation does not use
/// this: it tries every candidate.
public func selectVerificationKey(in set: JWKSet, header: JOSEHeader, algorithm: JWSAlgorithm) throws(AuthError) -> JWK {
    let candidates = try verificationKeyCandidates(in: set, header: header, algorithm: algorithm)
    guard candidates.count == 1 else { throw .protocolViolation(.multipleMatchingKeys(kid: header.keyID, count: candidates.count)) }
    return candidates[0]
}
