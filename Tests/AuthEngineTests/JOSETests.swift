import Foundation
import Synchronization
import Testing
@testable import AuthEngine

@Suite("JOSE: compact JWS, JWK Set, key selection, JWKS cache (RFC 7515, RFC 7517)")
struct JOSETests {
    @Test("RFC 7515 §7.1: compact JWS parts decode; signing input is the first two parts")
    func parseCompact() throws {
        let compact = makeJWT(header: ["alg": "RS256", "kid": "k1"], claims: ["sub": "x"])
        let jws = try CompactJWS(parsing: compact)
        #expect(jws.header.algorithm == "RS256")
        #expect(jws.header.keyID == "k1")
        #expect(jws.signature == TestCrypto.validSignature)
        let parts = compact.split(separator: ".")
        #expect(jws.signingInput == Data((parts[0] + "." + parts[1]).utf8))
    }

    @Test("RFC 7515 Appendix A.1 header decodes (published vector)")
    func rfc7515Header() throws {
        // Header and payload of RFC 7515 A.1 (HS256 example); the signature part is irrelevant here.
        let compact = "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        let jws = try CompactJWS(parsing: compact)
        #expect(jws.header.algorithm == "HS256")
        #expect(jws.header.type == "JWT")
        #expect(String(decoding: jws.payload, as: UTF8.self).contains("\"iss\":\"joe\""))
    }

    @Test("RFC 7516: a 5-part JWE is recognised and refused as an ID token")
    func jweRefused() {
        #expect(authError { try CompactJWS(parsing: "a.b.c.d.e") } == .unsupported(.encryptedIDToken))
    }

    @Test("RFC 7515 §7.1: malformed compact serialisations are refused", arguments: ["", "a.b", "a.b.c.d", "!!.e30.c2ln", "e30.e30.c2ln", "eyJhbGciOjF9.e30.c2ln"])
    func malformed(_ compact: String) {
        guard case .protocolViolation(.malformedJWT) = authError({ try CompactJWS(parsing: compact) }) else {
            Issue.record("expected malformedJWT for \(compact)")
            return
        }
    }

    @Test("RFC 7515 §4.1.11: any crit header is refused")
    func critRefused() {
        let compact = makeJWT(header: ["alg": "RS256", "crit": ["exp"], "exp": 1], claims: [:])
        #expect(authError { try CompactJWS(parsing: compact) } == .protocolViolation(.unsupportedCriticalHeader(["exp"])))
    }

    @Test("JWKS-10, RFC 7517 §5: unknown kty, missing n, bad base64url, enc keys and extra members are skipped; RSA leading zero kept")
    func parseMixedSet() throws {
        let set = try JWKSet(parsing: fixture("jwks/mixed.json"))
        #expect(set.keys.map(\.keyType) == ["RSA", "EC", "OKP"])
        let rsa = set.keys[0]
        #expect(rsa.modulus?.first == 0)
        #expect(rsa.modulus == Base64URL.decode("AKx0eXpnbW9kdWx1cw"))
        #expect(rsa.exponent == Data([1, 0, 1]))
        #expect(set.keys[1].curve == "P-256")
        #expect(set.keys[1].x?.count == 32)
        #expect(set.keys[2].x?.count == 32)
    }

    @Test("RFC 7517 Appendix A.1 (published vector): the enc EC key is skipped, the RSA signing key parsed")
    func rfc7517AppendixA1() throws {
        let set = try JWKSet(parsing: fixture("jwks/rfc7517-a1.json"))
        #expect(set.keys.count == 1)
        let rsa = try #require(set.keys.first)
        #expect(rsa.keyID == "2011-04-29")
        #expect(rsa.algorithm == "RS256")
        #expect(rsa.modulus?.count == 256)
        #expect(rsa.exponent == Data([1, 0, 1]))
        #expect(try selectVerificationKey(in: set, header: JOSEHeader(algorithm: "RS256", keyID: "2011-04-29"), algorithm: .rs256) == rsa)
    }

    @Test("JWKS-11(a): no keys array or not JSON is rejected", arguments: [#"{"foo":[]}"#, #"{"keys":{}}"#, "[]", "nope"])
    func invalidSet(_ body: String) {
        guard case .protocolViolation(.malformedJWKSet) = authError({ try JWKSet(parsing: Data(body.utf8)) }) else {
            Issue.record("expected malformedJWKSet")
            return
        }
    }

    @Test("JWKS-11(c): application/jwk-set+json is accepted")
    func jwkSetMediaType() throws {
        let response = HTTPResponse(status: 200, headers: ["Content-Type": "application/jwk-set+json"], body: try fixture("jwks/mixed.json"))
        #expect(try processJWKSResponse(response, url: URL(string: "https://op.test/jwks")!).keys.count == 3)
    }

    @Test("OIDC Discovery §3 jwks_uri: the JWK Set request is exact: GET, Accept application/json, redirects followed")
    func jwksRequest() throws {
        let request = try makeJWKSRequest(metadata: OP.metadata())
        #expect(request.method == .get)
        #expect(request.url.absoluteString == "https://op.test/jwks")
        #expect(request.headers == [HTTPHeader("Accept", "application/json")])
        #expect(request.body == nil)
        #expect(request.followRedirects)
    }

    @Test("The JWK Set request is refused without a jwks_uri, and for plain http off loopback")
    func jwksRequestRefusals() {
        var metadata = OP.metadata()
        metadata.jwksURI = nil
        #expect(authError { try makeJWKSRequest(metadata: metadata) } == .unsupported(.missingEndpoint("jwks_uri")))
        metadata.jwksURI = URL(string: "http://op.test/jwks")
        #expect(authError { try makeJWKSRequest(metadata: metadata) } == .unsupported(.insecureURL("http://op.test/jwks")))
    }

    static let rsaNoKid = JWK(keyType: "RSA", modulus: Data([1]), exponent: Data([1]))

    struct SelectionCase: Sendable, CustomTestStringConvertible {
        var name: String
        var keys: [JWK]
        var kid: String?
        var alg: JWSAlgorithm
        var expected: Result<Int, AuthError>
        var testDescription: String { name }
    }

    static let selectionCases: [SelectionCase] = [
        SelectionCase(name: "JWKS-01 single key without kid, header without kid", keys: [rsaNoKid], kid: nil, alg: .rs256, expected: .success(0)),
        SelectionCase(name: "JWKS-02 kid-absent-multiple-jwks: several RSA keys without kid", keys: [rsaNoKid, rsaNoKid, OP.ecKey], kid: nil, alg: .rs256,
                      expected: .failure(.protocolViolation(.multipleMatchingKeys(kid: nil, count: 2)))),
        SelectionCase(name: "JWKS-09 same kid for RSA and EC: kty decides (ES256)",
                      keys: [JWK(keyType: "RSA", keyID: "k1", modulus: Data([1]), exponent: Data([1])), JWK(keyType: "EC", keyID: "k1", curve: "P-256", x: Data([1]), y: Data([1]))],
                      kid: "k1", alg: .es256, expected: .success(1)),
        SelectionCase(name: "JWKS-07 use enc is not used", keys: [JWK(keyType: "RSA", keyID: "k1", use: "enc", modulus: Data([1]), exponent: Data([1]))],
                      kid: "k1", alg: .rs256, expected: .failure(.protocolViolation(.noMatchingKey(kid: "k1")))),
        SelectionCase(name: "JWKS-07 key_ops without verify is not used", keys: [JWK(keyType: "RSA", keyID: "k1", keyOperations: ["encrypt"], modulus: Data([1]), exponent: Data([1]))],
                      kid: "k1", alg: .rs256, expected: .failure(.protocolViolation(.noMatchingKey(kid: "k1")))),
        SelectionCase(name: "JWKS-07 alg RS512 key for an RS256 token is not used", keys: [JWK(keyType: "RSA", keyID: "k1", algorithm: "RS512", modulus: Data([1]), exponent: Data([1]))],
                      kid: "k1", alg: .rs256, expected: .failure(.protocolViolation(.noMatchingKey(kid: "k1")))),
        SelectionCase(name: "IDT-22 unknown kid", keys: [OP.rsaKey], kid: "zzz", alg: .rs256, expected: .failure(.protocolViolation(.noMatchingKey(kid: "zzz")))),
        SelectionCase(name: "Entra: key without alg selected by kid", keys: [JWK(keyType: "RSA", keyID: "a", modulus: Data([1]), exponent: Data([1])), JWK(keyType: "RSA", keyID: "b", modulus: Data([1]), exponent: Data([1]))],
                      kid: "b", alg: .rs256, expected: .success(1)),
        SelectionCase(name: "ES256 needs P-256", keys: [JWK(keyType: "EC", keyID: "e", curve: "P-384", x: Data([1]), y: Data([1]))], kid: "e", alg: .es256,
                      expected: .failure(.protocolViolation(.noMatchingKey(kid: "e")))),
        SelectionCase(name: "EdDSA needs OKP Ed25519", keys: [JWK(keyType: "OKP", keyID: "d", curve: "Ed25519", x: Data([1]))], kid: "d", alg: .edDSA, expected: .success(0)),
    ]

    @Test("ARCHITECTURE.md Refusals: key selection by kty/kid/alg/use/key_ops/crv", arguments: selectionCases)
    func selection(_ testCase: SelectionCase) throws {
        let header = JOSEHeader(algorithm: testCase.alg.rawValue, keyID: testCase.kid)
        switch testCase.expected {
        case .success(let index):
            #expect(try selectVerificationKey(in: JWKSet(keys: testCase.keys), header: header, algorithm: testCase.alg) == testCase.keys[index])
        case .failure(let expected):
            #expect(authError { try selectVerificationKey(in: JWKSet(keys: testCase.keys), header: header, algorithm: testCase.alg) } == expected)
        }
    }

    // MARK: JWKS cache

    final class Fetcher: @unchecked Sendable {
        let lock = NSLock()
        var sets: [JWKSet]
        var count = 0
        init(_ sets: [JWKSet]) { self.sets = sets }
        func next() throws(AuthError) -> JWKSet {
            lock.lock()
            defer { lock.unlock() }
            count += 1
            guard !sets.isEmpty else { throw AuthError.httpStatus(HTTPStatusFailure(status: 500, url: "https://op.test/jwks")) }
            return sets.count > 1 ? sets.removeFirst() : sets[0]
        }
    }

    static let keyA = JWK(keyType: "RSA", keyID: "A", modulus: Data([1]), exponent: Data([1]))
    static let keyB = JWK(keyType: "RSA", keyID: "B", modulus: Data([2]), exponent: Data([1]))

    @Test("JWKS-04, OIDC Core §10.1.1: an unknown kid refetches once and accepts the rotated key")
    func cacheRotation() async throws {
        let fetcher = Fetcher([JWKSet(keys: [Self.keyA]), JWKSet(keys: [Self.keyB])])
        let cache = JWKSCache { () throws(AuthError) -> JWKSet in try fetcher.next() }
        _ = try await cache.keySet(now: testNow)
        let key = try await cache.key(for: JOSEHeader(algorithm: "RS256", keyID: "B"), algorithm: .rs256, now: testNow.addingTimeInterval(5))
        #expect(key == Self.keyB)
        #expect(fetcher.count == 2)
    }

    @Test("JWKS-05: still unknown after the refetch fails closed with one refetch only")
    func cacheUnknownAfterRefetch() async {
        let fetcher = Fetcher([JWKSet(keys: [Self.keyA])])
        let cache = JWKSCache { () throws(AuthError) -> JWKSet in try fetcher.next() }
        let error = await asyncAuthError { try await cache.key(for: JOSEHeader(algorithm: "RS256", keyID: "Z"), algorithm: .rs256, now: testNow) }
        #expect(error == .protocolViolation(.noMatchingKey(kid: "Z")))
        // First lookup fetched fresh: no second fetch in the same call.
        #expect(fetcher.count == 1)
        _ = await asyncAuthError { try await cache.key(for: JOSEHeader(algorithm: "RS256", keyID: "Z"), algorithm: .rs256, now: testNow.addingTimeInterval(1)) }
        #expect(fetcher.count == 2)
    }

    @Test("JWKS-05: a failed refetch keeps serving known kids")
    func cacheRefetchFailureKeepsKeys() async throws {
        let fetcher = Fetcher([JWKSet(keys: [Self.keyA])])
        let cache = JWKSCache { () throws(AuthError) -> JWKSet in try fetcher.next() }
        _ = try await cache.keySet(now: testNow)
        fetcher.sets = []
        let error = await asyncAuthError { try await cache.key(for: JOSEHeader(algorithm: "RS256", keyID: "Z"), algorithm: .rs256, now: testNow.addingTimeInterval(2)) }
        #expect(error == .httpStatus(HTTPStatusFailure(status: 500, url: "https://op.test/jwks")))
        #expect(try await cache.key(for: JOSEHeader(algorithm: "RS256", keyID: "A"), algorithm: .rs256, now: testNow.addingTimeInterval(3)) == Self.keyA)
    }

    @Test("JWKS-04: a kid rotated in 5 s after a fetch is looked up although the cool-down is 30 s")
    func rotationSecondsAfterFetchIsFound() async throws {
        let fetcher = Fetcher([JWKSet(keys: [Self.keyA]), JWKSet(keys: [Self.keyA, Self.keyB])])
        let cache = JWKSCache(minimumRefetchAge: 30, unknownKeyCooldown: 30) { () throws(AuthError) -> JWKSet in try fetcher.next() }
        _ = try await cache.keySet(now: testNow)
        let key = try await cache.key(for: JOSEHeader(algorithm: "RS256", keyID: "B"), algorithm: .rs256, now: testNow.addingTimeInterval(5))
        #expect(key == Self.keyB)
        #expect(fetcher.count == 2)
    }

    @Test("A flood of bogus kids makes one lookup per cool-down, the first at once")
    func bogusKidFloodOneLookupPerCooldown() async throws {
        let fetcher = Fetcher([JWKSet(keys: [Self.keyA])])
        let cache = JWKSCache(minimumRefetchAge: 30, unknownKeyCooldown: 30) { () throws(AuthError) -> JWKSet in try fetcher.next() }
        _ = try await cache.keySet(now: testNow)
        for second in 1...29 {
            let error = await asyncAuthError {
                try await cache.key(for: JOSEHeader(algorithm: "RS256", keyID: "bogus-\(second)"), algorithm: .rs256, now: testNow.addingTimeInterval(Double(second)))
            }
            #expect(error == .protocolViolation(.noMatchingKey(kid: "bogus-\(second)")))
        }
        #expect(fetcher.count == 2, "the fetch, then one lookup (at 1 s)")
        _ = await asyncAuthError { try await cache.key(for: JOSEHeader(algorithm: "RS256", keyID: "bogus-31"), algorithm: .rs256, now: testNow.addingTimeInterval(31)) }
        #expect(fetcher.count == 3, "30 s after the lookup: one more")
        #expect(try await cache.key(for: JOSEHeader(algorithm: "RS256", keyID: "A"), algorithm: .rs256, now: testNow.addingTimeInterval(32)) == Self.keyA)
        #expect(fetcher.count == 3)
    }

    @Test("Concurrent tokens with unknown kids share one lookup")
    func concurrentLookupsShareOneFetch() async throws {
        let fetches = Mutex(0)
        let cache = JWKSCache(unknownKeyCooldown: 30) { () async throws(AuthError) -> JWKSet in
            let count = fetches.withLock { $0 += 1; return $0 }
            if count > 1 { try? await Task.sleep(for: .milliseconds(50)) }
            return count == 1 ? JWKSet(keys: [Self.keyA]) : JWKSet(keys: [Self.keyA, Self.keyB])
        }
        _ = try await cache.keySet(now: testNow)
        let keys = await withTaskGroup(of: JWK?.self) { group in
            for _ in 0..<8 {
                group.addTask { try? await cache.key(for: JOSEHeader(algorithm: "RS256", keyID: "B"), algorithm: .rs256, now: testNow.addingTimeInterval(2)) }
            }
            return await group.reduce(into: [JWK?]()) { $0.append($1) }
        }
        #expect(keys.allSatisfy { $0 == Self.keyB })
        #expect(fetches.withLock { $0 } == 2)
    }

    @Test("JWKS-05: a lookup that fails (503) does not start the cool-down; the next token looks up again and is accepted")
    func failedLookupDoesNotStartCooldown() async throws {
        let fetcher = Fetcher([JWKSet(keys: [Self.keyA])])
        let cache = JWKSCache(minimumRefetchAge: 30, unknownKeyCooldown: 30) { () throws(AuthError) -> JWKSet in try fetcher.next() }
        _ = try await cache.keySet(now: testNow)
        fetcher.sets = []
        let error = await asyncAuthError { try await cache.key(for: JOSEHeader(algorithm: "RS256", keyID: "B"), algorithm: .rs256, now: testNow.addingTimeInterval(2)) }
        #expect(error == .httpStatus(HTTPStatusFailure(status: 500, url: "https://op.test/jwks")))
        fetcher.sets = [JWKSet(keys: [Self.keyA, Self.keyB])]
        #expect(try await cache.key(for: JOSEHeader(algorithm: "RS256", keyID: "B"), algorithm: .rs256, now: testNow.addingTimeInterval(4)) == Self.keyB)
        #expect(fetcher.count == 3)
    }

    @Test("An outage at expiry keeps the cached keys (re-dated): a later rotation is still looked up")
    func outageAtExpiryKeepsKeys() async throws {
        let fetcher = Fetcher([JWKSet(keys: [Self.keyA])])
        let cache = JWKSCache(unknownKeyCooldown: 30) { () throws(AuthError) -> JWKSet in try fetcher.next() }
        _ = try await cache.keySet(now: testNow)
        fetcher.sets = []
        #expect(try await cache.key(for: JOSEHeader(algorithm: "RS256", keyID: "A"), algorithm: .rs256, now: testNow.addingTimeInterval(400)) == Self.keyA)
        #expect(fetcher.count == 2)
        fetcher.sets = [JWKSet(keys: [Self.keyB])]
        #expect(try await cache.key(for: JOSEHeader(algorithm: "RS256", keyID: "B"), algorithm: .rs256, now: testNow.addingTimeInterval(405)) == Self.keyB)
    }

    @Test("ARCHITECTURE.md Refusals: no kid and no match refetches only when the cache is ≥ 60 s old; max age 5 min")
    func cacheAges() async throws {
        let ec = JWKSet(keys: [OP.ecKey])
        let fetcher = Fetcher([ec])
        let cache = JWKSCache { () throws(AuthError) -> JWKSet in try fetcher.next() }
        _ = try await cache.keySet(now: testNow)
        _ = await asyncAuthError { try await cache.key(for: JOSEHeader(algorithm: "RS256"), algorithm: .rs256, now: testNow.addingTimeInterval(30)) }
        #expect(fetcher.count == 1)
        _ = await asyncAuthError { try await cache.key(for: JOSEHeader(algorithm: "RS256"), algorithm: .rs256, now: testNow.addingTimeInterval(61)) }
        #expect(fetcher.count == 2)
        _ = try await cache.keySet(now: testNow.addingTimeInterval(61 + 299))
        #expect(fetcher.count == 2)
        _ = try await cache.keySet(now: testNow.addingTimeInterval(61 + 300))
        #expect(fetcher.count == 3)
    }
}
