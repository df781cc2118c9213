import Foundation
import Testing
@testable import AuthEngine

/// A compact JWS from raw JSON text (to serve duplicate members, which no encoder produces).
func makeRawJWT(header: String, claims: String, signature: Data = TestCrypto.validSignature) -> RawIDToken {
    RawIDToken(Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(Data(claims.utf8)) + "." + Base64URL.encode(signature))
}

/// The default test claims as JSON text, with `extra` members appended verbatim (may repeat a name).
func rawClaims(_ extra: String = "") -> String {
    let now = Int(testNow.timeIntervalSince1970)
    return #"{"iss":"https://op.test","sub":"alice","aud":"rp-native","exp":\#(now + 600),"iat":\#(now - 10),"nonce":"nonce-1""#
        + (extra.isEmpty ? "" : "," + extra) + "}"
}

/// Duplicate JSON member names (RFC 7515 §4, RFC 7519 §4, RFC 8259 §4, PARSE-09).
@Suite("Duplicate JSON member names are refused (RFC 7515 §4, RFC 7519 §4, PARSE-09)")
struct DuplicateMemberTests {
    func validate(_ raw: RawIDToken) throws -> VerifiedIDToken {
        try validateIDToken(raw, keys: OP.keys, options: OP.options(accessTokenHash: .skipCheck), crypto: OP.crypto().provider, now: testNow)
    }

    @Test("Why not Foundation: JSONDecoder keeps the first duplicate and JSONSerialization the last, both silently")
    func foundationResolvesDuplicatesSilently() throws {
        let data = Data(#"{"alg":"RS256","alg":"none"}"#.utf8)
        #expect(try JSONDecoder().decode([String: String].self, from: data) == ["alg": "RS256"])
        #expect((try JSONSerialization.jsonObject(with: data) as? [String: String]) == ["alg": "none"])
        #expect(parseJSONObject(data) == .failure(.duplicateMember("alg")))
    }

    @Test("PARSE-09, RFC 7515 §4: a JOSE header {alg:RS256, alg:none} is refused as a duplicate member")
    func duplicateAlgInHeader() {
        let raw = makeRawJWT(header: #"{"alg":"RS256","kid":"k1","alg":"none"}"#, claims: rawClaims())
        #expect(authError { try validate(raw) } == .protocolViolation(.duplicateMember(name: "alg", context: "JOSE header")))
        #expect(authError { try CompactJWS(parsing: raw.exposedValue) } == .protocolViolation(.duplicateMember(name: "alg", context: "JOSE header")))
    }

    @Test("PARSE-09, RFC 7515 §4: a duplicate kid in the JOSE header is refused")
    func duplicateKidInHeader() {
        let raw = makeRawJWT(header: #"{"alg":"RS256","kid":"k1","kid":"e1"}"#, claims: rawClaims())
        #expect(authError { try validate(raw) } == .protocolViolation(.duplicateMember(name: "kid", context: "JOSE header")))
    }

    @Test("PARSE-09, RFC 7519 §4: claims with two sub are refused")
    func duplicateSubInClaims() {
        let raw = makeRawJWT(header: #"{"alg":"RS256","kid":"k1"}"#, claims: rawClaims(#""sub":"mallory""#))
        #expect(authError { try validate(raw) } == .protocolViolation(.duplicateMember(name: "sub", context: "JWT claims")))
    }

    @Test("PARSE-09, RFC 7519 §4: a duplicate inside a nested claim object is refused too")
    func duplicateNestedClaim() {
        let raw = makeRawJWT(header: #"{"alg":"RS256","kid":"k1"}"#, claims: rawClaims(#""address":{"country":"FR","country":"DE"}"#))
        #expect(authError { try validate(raw) } == .protocolViolation(.duplicateMember(name: "country", context: "JWT claims")))
    }

    @Test("PARSE-09: canonically equivalent member names (composed vs decomposed é) are refused, not merged")
    func canonicallyEquivalentNames() {
        let raw = makeRawJWT(header: #"{"alg":"RS256","kid":"k1"}"#, claims: rawClaims("\"caf\u{E9}\":1,\"cafe\u{301}\":2"))
        guard case .protocolViolation(.duplicateMember(_, "JWT claims")) = authError({ try validate(raw) }) else {
            Issue.record("expected duplicateMember")
            return
        }
    }

    @Test("RFC 7519 §4: one of each claim is accepted by the strict parser")
    func uniqueMembersAccepted() throws {
        let verified = try validate(makeRawJWT(header: #"{"alg":"RS256","kid":"k1"}"#, claims: rawClaims(#""address":{"country":"FR"},"n":[1,2.5,true,null]"#)))
        #expect(verified.claims.subject == "alice")
        #expect(verified.claims.all["n"] == .array([.number(1), .number(2.5), .bool(true), .null]))
    }

    @Test("PARSE-09: a token response with two access_token (JSON) is refused")
    func duplicateInTokenResponse() {
        let response = textResponse(#"{"access_token":"a","token_type":"Bearer","access_token":"b"}"#, contentType: "application/json")
        #expect(authError { try parseTokenResponse(response, now: testNow) }
            == .protocolViolation(.duplicateMember(name: "access_token", context: "token response")))
    }

    @Test("PARSE-09, RFC 6749 §3.1: a form-encoded token response (GitHub) with a repeated member is refused")
    func duplicateInFormTokenResponse() {
        let response = textResponse("access_token=a&token_type=bearer&access_token=b", contentType: "application/x-www-form-urlencoded")
        #expect(authError { try parseTokenResponse(response, now: testNow) }
            == .protocolViolation(.duplicateMember(name: "access_token", context: "token response")))
    }

    @Test("PARSE-09: discovery with two issuer members is refused (the catalogue's example)")
    func duplicateInDiscovery() {
        let body = #"{"issuer":"https://op.test","issuer":"https://evil.test","authorization_endpoint":"https://op.test/a","token_endpoint":"https://op.test/t","jwks_uri":"https://op.test/j","response_types_supported":["code"],"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["RS256"]}"#
        #expect(authError { try Discovery.processResponse(textResponse(body, contentType: "application/json"), expectedIssuer: "https://op.test") }
            == .protocolViolation(.duplicateMember(name: "issuer", context: "discovery document")))
    }

    @Test("PARSE-09: a JWK Set whose key repeats n or kid is refused whole")
    func duplicateInJWKS() {
        let body = #"{"keys":[{"kty":"RSA","kid":"k1","kid":"k2","n":"AQAB","e":"AQAB"}]}"#
        #expect(authError { try JWKSet(parsing: Data(body.utf8)) } == .protocolViolation(.duplicateMember(name: "kid", context: "JWK Set")))
    }

    @Test("PARSE-09, UI-03: a UserInfo response with two sub is refused")
    func duplicateInUserInfo() {
        let response = textResponse(#"{"sub":"alice","sub":"mallory"}"#, contentType: "application/json")
        #expect(authError { try processUserInfoResponse(response, expectedSubject: "alice", now: testNow) }
            == .protocolViolation(.duplicateMember(name: "sub", context: "UserInfo response")))
    }

    @Test("PARSE-09: a device authorization response with two user_code is refused")
    func duplicateInDeviceResponse() {
        let response = textResponse(#"{"device_code":"d","user_code":"A","user_code":"B","verification_uri":"https://op.test/device","expires_in":600}"#,
                                    contentType: "application/json")
        #expect(authError { try processDeviceAuthorizationResponse(response, metadata: OP.metadata(), scopes: ["openid"], now: testNow) }
            == .protocolViolation(.duplicateMember(name: "user_code", context: "device authorization response")))
    }

    // MARK: PARSE-03, PARSE-07, PARSE-10 (the same strict parser)

    @Test("PARSE-03: a header or payload that is an array, a string, invalid UTF-8 or has trailing bytes is malformed", arguments: [
        (#"["alg"]"#, rawClaims()), (#""RS256""#, rawClaims()), (#"{"alg":"RS256","kid":"k1"} x"#, rawClaims()),
        (#"{"alg":"RS256","kid":"k1"}"#, "[1]"), (#"{"alg":"RS256","kid":"k1"}"#, rawClaims() + "{}"),
        (#"{"alg":"RS256","kid":"k1"}"#, "{\"sub\":\"\u{1}\"}" ), (#"{"alg":"RS256","kid":"k1"}"#, #"{"sub":"a\u0000b"}"#),
    ])
    func malformedParts(_ header: String, _ claims: String) {
        guard case .protocolViolation(.malformedJWT) = authError({ try validate(makeRawJWT(header: header, claims: claims)) }) else {
            Issue.record("expected malformedJWT for \(header) / \(claims)")
            return
        }
    }

    @Test("PARSE-03: invalid UTF-8 in the header is malformed")
    func invalidUTF8() {
        let raw = RawIDToken(Base64URL.encode(Data([0x7B, 0x22, 0x61, 0x6C, 0x67, 0x22, 0x3A, 0x22, 0xFF, 0xFE, 0x22, 0x7D])) + "." + Base64URL.encode(Data(rawClaims().utf8)) + ".c2ln")
        guard case .protocolViolation(.malformedJWT) = authError({ try validate(raw) }) else {
            Issue.record("expected malformedJWT")
            return
        }
    }

    @Test("PARSE-07: exp 1e400 is refused without overflow; exp 1.9e9 (non-integer NumericDate form) is accepted; exp -1 is expired")
    func numericDates() throws {
        let header = #"{"alg":"RS256","kid":"k1"}"#
        guard case .protocolViolation(.malformedJWT) = authError({ try validate(makeRawJWT(header: header, claims: #"{"iss":"https://op.test","sub":"a","aud":"rp-native","iat":1,"exp":1e400}"#)) }) else {
            Issue.record("expected 1e400 to be refused")
            return
        }
        let now = testNow.timeIntervalSince1970
        let accepted = try validate(makeRawJWT(header: header, claims: rawClaims().replacingOccurrences(of: "\"exp\":\(Int(now + 600))", with: "\"exp\":1.9000006e9")))
        #expect(accepted.claims.expiresAt == Date(timeIntervalSince1970: 1.9000006e9))
        guard case .protocolViolation(.expired) = authError({ try validate(makeRawJWT(header: header, claims: rawClaims().replacingOccurrences(of: "\"exp\":\(Int(now + 600))", with: "\"exp\":-1"))) }) else {
            Issue.record("expected exp -1 to be expired")
            return
        }
    }

    @Test("PARSE-07: alg:256, kid:{…}, typ:[…], aud:null are refused as wrong types", arguments: [
        #"{"alg":256,"kid":"k1"}"#, #"{"alg":"RS256","kid":{"a":1}}"#, #"{"alg":"RS256","kid":"k1","typ":["JWT"]}"#,
    ])
    func wrongHeaderTypes(_ header: String) {
        guard case .protocolViolation(.malformedJWT) = authError({ try validate(makeRawJWT(header: header, claims: rawClaims())) }) else {
            Issue.record("expected malformedJWT for \(header)")
            return
        }
    }

    @Test("PARSE-07: aud:null counts as absent and is refused")
    func audNull() {
        let raw = makeRawJWT(header: #"{"alg":"RS256","kid":"k1"}"#, claims: rawClaims().replacingOccurrences(of: #""aud":"rp-native""#, with: #""aud":null"#))
        #expect(authError { try validate(raw) } == .protocolViolation(.missingClaim("aud")))
    }

    @Test("PARSE-10: JSON nested 100 000 levels deep (and 100 levels) is refused without a crash")
    func deepNesting() {
        for depth in [100, 100_000] {
            let body = String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)
            #expect(parseJSONObject(Data(body.utf8)) == .failure(.malformed))
            #expect(authError { try processUserInfoResponse(textResponse(body, contentType: "application/json"), expectedSubject: "alice", now: testNow) }
                == .protocolViolation(.malformedJSON(context: "UserInfo response")))
        }
    }

    @Test("PARSE-10: a 10 000-key JWKS parses without a hang; the token still needs its one matching key")
    func hugeJWKS() throws {
        let keys = (0..<10_000).map { #"{"kty":"RSA","kid":"x\#($0)","n":"AQAB","e":"AQAB"}"# }.joined(separator: ",")
        let set = try JWKSet(parsing: Data(#"{"keys":[\#(keys)]}"#.utf8))
        #expect(set.keys.count == 10_000)
        #expect(authError { try selectVerificationKey(in: set, header: JOSEHeader(algorithm: "RS256", keyID: "k1"), algorithm: .rs256) }
            == .protocolViolation(.noMatchingKey(kid: "k1")))
    }
}

@Suite("UserInfo without an ID token (plain OAuth identity)")
struct UserInfoClaimsTests {
    @Test("PARSE-09: GitHub-style /user with two id members is refused; a clean one is read")
    func readClaims() throws {
        #expect(authError { try readUserInfoClaims(textResponse(#"{"id":1,"login":"a","id":2}"#, contentType: "application/json"), now: testNow) }
            == .protocolViolation(.duplicateMember(name: "id", context: "UserInfo response")))
        let claims = try readUserInfoClaims(textResponse(#"{"id":1,"login":"a"}"#, contentType: "application/json; charset=utf-8"), now: testNow)
        #expect(claims["id"] == .number(1))
        #expect(authError { try readUserInfoClaims(textResponse("{}", status: 401, contentType: "application/json"), now: testNow) }
            == .httpStatus(HTTPStatusFailure(status: 401, url: "userinfo_endpoint")))
    }
}
