import AuthEngine
import Foundation
import Testing

@Suite("The DPoP key pair as a private JWK without Codable (RFC 7517 §4, RFC 7518 §6.2.2, RFC 8037 §2)")
struct JWSKeyPairJSONTests {
    /// Exactly what the earlier Codable `JWSKeyPair.encode(to:)` wrote through `JSONEncoder()`
    /// (members in its encode order; base64url needs no escapes): ES256 with `y`, EdDSA without.
    static let codableES256 = #"{"alg":"ES256","kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0","d":"jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI"}"#
    static let codableEdDSA = #"{"alg":"EdDSA","kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A"}"#

    func read(_ text: String) throws -> JWSKeyPair {
        guard case .success(let value) = parseJSON(Data(text.utf8)) else { throw JSONShapeError(path: [], expected: "JSON") }
        return try JWSKeyPair(json: value)
    }

    @Test("RFC 9449: an ES256 key stored by the Codable code reads back to the same key; the new writer round-trips it")
    func es256() throws {
        let key = try read(Self.codableES256)
        #expect(key.algorithm == .es256 && key.publicKey.keyType == "EC" && key.publicKey.curve == "P-256")
        #expect(key.publicKey.x == Base64URL.decode("f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"))
        #expect(key.publicKey.y == Base64URL.decode("x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"))
        #expect(key.privateKey.exposedValue == "jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI")
        #expect(try read(String(decoding: key.json.serialized(), as: UTF8.self)) == key)
    }

    @Test("RFC 8037 §2: an EdDSA key (no y) stored by the Codable code reads back; written without y")
    func edDSA() throws {
        let key = try read(Self.codableEdDSA)
        #expect(key.algorithm == .edDSA && key.publicKey.y == nil && key.publicKey.curve == "Ed25519")
        let written = String(decoding: key.json.serialized(), as: UTF8.self)
        #expect(!written.contains(#""y""#))
        #expect(try read(written) == key)
    }

    @Test("A key whose alg is not a signing algorithm, or whose x is not base64url, is refused naming the member, never d")
    func refused() {
        #expect(throws: JSONShapeError(path: [.member("alg")], expected: "ES256 or EdDSA")) {
            try read(#"{"alg":"RS256","kty":"RSA","crv":"x","d":"SECRET-D"}"#)
        }
        #expect(throws: JSONShapeError(path: [.member("alg")], expected: "ES256 or EdDSA")) {
            try read(#"{"alg":"es256","kty":"EC","crv":"P-256","d":"SECRET-D"}"#)
        }
        #expect(throws: JSONShapeError(path: [.member("x")], expected: "base64url")) {
            try read(#"{"alg":"ES256","kty":"EC","crv":"P-256","x":"***","d":"SECRET-D"}"#)
        }
        #expect(throws: JSONShapeError(path: [.member("d")], expected: "a string")) {
            try read(#"{"alg":"ES256","kty":"EC","crv":"P-256"}"#)
        }
    }

    @Test("RFC 7638 §3.3: the thumbprint input is the required members, sorted, no whitespace")
    func canonicalThumbprintInput() throws {
        let key = try read(Self.codableES256)
        #expect(String(decoding: JSONValue.object(JWKThumbprint.requiredMembers(key.publicKey)).serialized(), as: UTF8.self)
                == #"{"crv":"P-256","kty":"EC","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}"#)
    }
}
