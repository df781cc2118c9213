import Foundation
import Testing
@testable import AuthEngine

@Suite("Discovery (OIDC Discovery 1.0, RFC 8414)")
struct DiscoveryTests {
    struct WellKnownCase: Sendable, CustomTestStringConvertible {
        var issuer: String
        var kind: DiscoveryKind
        var expected: String
        var testDescription: String { "\(issuer) \(kind)" }
    }

    @Test("DISC-04, Discovery §4.1 / RFC 8414 §3.1: well-known URL construction", arguments: [
        WellKnownCase(issuer: "https://op.test", kind: .openIDConnect, expected: "https://op.test/.well-known/openid-configuration"),
        WellKnownCase(issuer: "https://op.test/tenant1/", kind: .openIDConnect, expected: "https://op.test/tenant1/.well-known/openid-configuration"),
        WellKnownCase(issuer: "https://op.test/tenant1", kind: .openIDConnect, expected: "https://op.test/tenant1/.well-known/openid-configuration"),
        // RFC 8414 §3.1 example: https://example.com/issuer1
        WellKnownCase(issuer: "https://example.com/issuer1", kind: .oauthAuthorizationServer, expected: "https://example.com/.well-known/oauth-authorization-server/issuer1"),
        WellKnownCase(issuer: "https://op.test/tenant1/", kind: .oauthAuthorizationServer, expected: "https://op.test/.well-known/oauth-authorization-server/tenant1"),
        WellKnownCase(issuer: "https://example.com", kind: .oauthAuthorizationServer, expected: "https://example.com/.well-known/oauth-authorization-server"),
        WellKnownCase(issuer: "http://127.0.0.1:8765/o", kind: .oauthAuthorizationServer, expected: "http://127.0.0.1:8765/.well-known/oauth-authorization-server/o"),
        WellKnownCase(issuer: "http://[::1]:9000", kind: .openIDConnect, expected: "http://[::1]:9000/.well-known/openid-configuration"),
    ])
    func wellKnownURL(_ testCase: WellKnownCase) throws {
        #expect(try Discovery.wellKnownURL(issuer: testCase.issuer, kind: testCase.kind).absoluteString == testCase.expected)
    }

    @Test("DISC-01: the discovery request is a GET with Accept: application/json")
    func discoveryRequest() throws {
        let request = try Discovery.makeRequest(issuer: "https://op.test")
        #expect(request.method == .get)
        #expect(request.url.absoluteString == "https://op.test/.well-known/openid-configuration")
        #expect(request.headers == [HTTPHeader("Accept", "application/json")])
        #expect(request.body == nil)
    }

    @Test("DISC-06: issuers must be https or loopback http, without query or fragment", arguments: [
        ("http://op.test", AuthError.unsupported(.insecureURL("http://op.test"))),
        ("http://localhost:8000", AuthError.unsupported(.insecureURL("http://localhost:8000"))),
        ("https://op.test?x=1", AuthError.protocolViolation(.invalidIssuerIdentifier("https://op.test?x=1"))),
        ("https://op.test#frag", AuthError.protocolViolation(.invalidIssuerIdentifier("https://op.test#frag"))),
        ("op.test", AuthError.protocolViolation(.invalidIssuerIdentifier("op.test"))),
    ])
    func issuerIdentifierRules(_ issuer: String, _ expected: AuthError) {
        #expect(authError { try Discovery.wellKnownURL(issuer: issuer, kind: .openIDConnect) } == expected)
    }

    @Test("DISC-01, DISC-08: a valid document is accepted and unknown members are ignored")
    func acceptsValidDocument() throws {
        let response = HTTPResponse(status: 200, headers: ["Content-Type": "application/json; charset=utf-8"], body: try fixture("discovery/op-test.json"))
        let metadata = try Discovery.processResponse(response, expectedIssuer: "https://op.test")
        #expect(metadata.jwksURI?.absoluteString == "https://op.test/jwks-7f3a")
        #expect(metadata.deviceAuthorizationEndpoint?.absoluteString == "https://op.test/device")
        #expect(metadata.isLoopbackHTTP == false)
    }

    @Test("DISC-06: a loopback http provider (django-oauth-toolkit) is accepted and flagged")
    func loopbackProviderFlagged() throws {
        let response = HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: try fixture("discovery/django-oauth-toolkit.json"))
        let metadata = try Discovery.processResponse(response, expectedIssuer: "http://127.0.0.1:8765/o")
        #expect(metadata.isLoopbackHTTP)
        #expect(metadata.revocationEndpoint == nil)
        let completed = try metadata.overriding(
            revocationEndpoint: URL(string: "http://127.0.0.1:8765/o/revoke_token/"),
            introspectionEndpoint: URL(string: "http://127.0.0.1:8765/o/introspect/"),
            deviceAuthorizationEndpoint: URL(string: "http://127.0.0.1:8765/o/device-authorization/"))
        #expect(completed.revocationEndpoint?.absoluteString == "http://127.0.0.1:8765/o/revoke_token/")
        #expect(completed.deviceAuthorizationEndpoint != nil)
        #expect(authError { try metadata.overriding(revocationEndpoint: URL(string: "http://op.test/revoke")) }
            == .unsupported(.insecureURL("http://op.test/revoke")))
    }

    static let issuerVariants = [
        "https://op.testINVALID", "https://op.test/", "https://OP.test", "https://op.test:443", "https://op.t%65st",
    ]

    @Test("DISC-02, DISC-03, Discovery §4.3: the issuer must match byte for byte", arguments: issuerVariants)
    func issuerMismatch(_ served: String) throws {
        var object = try #require(try JSONSerialization.jsonObject(with: fixture("discovery/op-test.json")) as? [String: Any])
        object["issuer"] = served
        #expect(authError { try Discovery.processResponse(jsonResponse(object), expectedIssuer: "https://op.test") }
            == .protocolViolation(.issuerMismatch(expected: "https://op.test", actual: served)))
    }

    @Test("DISC-05: every REQUIRED member must be present", arguments: [
        "jwks_uri", "authorization_endpoint", "token_endpoint", "response_types_supported", "subject_types_supported",
        "id_token_signing_alg_values_supported",
    ])
    func requiredMembers(_ member: String) throws {
        var object = try #require(try JSONSerialization.jsonObject(with: fixture("discovery/op-test.json")) as? [String: Any])
        object[member] = nil
        #expect(authError { try Discovery.processResponse(jsonResponse(object), expectedIssuer: "https://op.test") }
            == .protocolViolation(.missingField(member)))
    }

    @Test("DISC-05: response_types_supported must contain code")
    func responseTypeCode() throws {
        var object = try #require(try JSONSerialization.jsonObject(with: fixture("discovery/op-test.json")) as? [String: Any])
        object["response_types_supported"] = ["id_token"]
        #expect(authError { try Discovery.processResponse(jsonResponse(object), expectedIssuer: "https://op.test") }
            == .protocolViolation(.responseTypeCodeNotSupported))
    }

    @Test("DISC-06: an http endpoint off loopback is refused")
    func insecureEndpoint() throws {
        var object = try #require(try JSONSerialization.jsonObject(with: fixture("discovery/op-test.json")) as? [String: Any])
        object["token_endpoint"] = "http://op.test/token"
        #expect(authError { try Discovery.processResponse(jsonResponse(object), expectedIssuer: "https://op.test") }
            == .unsupported(.insecureURL("http://op.test/token")))
    }

    @Test("DISC-09: only HS256 advertised means ID tokens cannot be verified")
    func noSupportedAlgorithm() throws {
        var object = try #require(try JSONSerialization.jsonObject(with: fixture("discovery/op-test.json")) as? [String: Any])
        object["id_token_signing_alg_values_supported"] = ["HS256"]
        #expect(authError { try Discovery.processResponse(jsonResponse(object), expectedIssuer: "https://op.test") }
            == .unsupported(.noSupportedSigningAlgorithm(advertised: ["HS256"])))
    }

    @Test("DISC-07: 404/500, text/html and invalid JSON fail", arguments: [
        (textResponse("nope", status: 404, contentType: "text/html"), AuthError.httpStatus(HTTPStatusFailure(status: 404, url: "https://op.test"))),
        (textResponse("oops", status: 500, contentType: "application/json"), AuthError.httpStatus(HTTPStatusFailure(status: 500, url: "https://op.test"))),
        (textResponse("<html>", contentType: "text/html"), AuthError.protocolViolation(.unexpectedContentType(expected: "application/json", actual: "text/html"))),
        (textResponse("{not json", contentType: "application/json"), AuthError.protocolViolation(.malformedJSON(context: "discovery document"))),
        (textResponse("[1,2]", contentType: "application/json"), AuthError.protocolViolation(.malformedJSON(context: "discovery document"))),
    ])
    func fetchFailures(_ response: HTTPResponse, _ expected: AuthError) {
        #expect(authError { try Discovery.processResponse(response, expectedIssuer: "https://op.test") } == expected)
    }

    @Test("RFC 8414 §3.2/§3.3: an OAuth metadata document needs no OIDC members but the same issuer rule")
    func oauthMetadata() throws {
        let object: [String: Any] = ["issuer": "https://as.test/tenant1", "authorization_endpoint": "https://as.test/authorize",
                                     "token_endpoint": "https://as.test/token", "response_types_supported": ["code"],
                                     "revocation_endpoint": "https://as.test/revoke", "introspection_endpoint": "https://as.test/introspect"]
        let metadata = try Discovery.processResponse(jsonResponse(object), expectedIssuer: "https://as.test/tenant1", kind: .oauthAuthorizationServer)
        #expect(metadata.revocationEndpoint?.absoluteString == "https://as.test/revoke")
        #expect(authError { try Discovery.processResponse(jsonResponse(object), expectedIssuer: "https://as.test/tenant1") }
            == .protocolViolation(.missingField("jwks_uri")))
    }

    @Test("GitHub preset: metadata from manual endpoints, https only")
    func manualMetadata() throws {
        let metadata = try AuthorizationServerMetadata.manual(
            issuer: "https://github.com", authorizationEndpoint: URL(string: "https://github.com/login/oauth/authorize"),
            tokenEndpoint: URL(string: "https://github.com/login/oauth/access_token")!,
            deviceAuthorizationEndpoint: URL(string: "https://github.com/login/device/code"))
        #expect(metadata.tokenEndpoint?.absoluteString == "https://github.com/login/oauth/access_token")
        #expect(metadata.jwksURI == nil)
        #expect(authError {
            try AuthorizationServerMetadata.manual(issuer: "https://github.com", authorizationEndpoint: nil,
                                                   tokenEndpoint: URL(string: "http://github.com/token")!)
        } == .unsupported(.insecureURL("http://github.com/token")))
    }

    @Test("Metadata round-trips through its JSON mapping with wire names (RFC 8414 §2)")
    func jsonRoundTrip() throws {
        guard case .success(let document) = parseJSON(try fixture("discovery/op-test.json")) else { Issue.record("fixture not JSON"); return }
        let metadata = try AuthorizationServerMetadata(json: document)
        #expect(metadata.jwksURI?.absoluteString == "https://op.test/jwks-7f3a")
        let encoded = metadata.json.serialized()
        let object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        #expect(object["jwks_uri"] as? String == "https://op.test/jwks-7f3a")
        guard case .success(let again) = parseJSON(encoded) else { Issue.record("not JSON"); return }
        #expect(try AuthorizationServerMetadata(json: again) == metadata)
    }

    @Test("DISC-08: a member of the wrong type is a malformed discovery document (as JSONDecoder refused it); unknown members are ignored")
    func wrongMemberType() throws {
        let base = #""issuer":"https://op.test","authorization_endpoint":"https://op.test/a","token_endpoint":"https://op.test/t","jwks_uri":"https://op.test/j","response_types_supported":["code"],"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["RS256"]"#
        func response(_ extra: String) -> HTTPResponse {
            HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(("{" + base + extra + "}").utf8))
        }
        func process(_ extra: String) -> AuthError? {
            authError { _ = try Discovery.processResponse(response(extra), expectedIssuer: "https://op.test") }
        }
        let accepted = try Discovery.processResponse(response(#","x_vendor":{"nested":[1,2]},"claims_supported":null"#), expectedIssuer: "https://op.test")
        #expect(accepted.claimsSupported == nil && accepted.tokenEndpoint?.absoluteString == "https://op.test/t")
        #expect(process(#","require_pushed_authorization_requests":"yes""#) == .protocolViolation(.malformedJSON(context: "discovery document")))
        #expect(process(#","scopes_supported":["openid",7]"#) == .protocolViolation(.malformedJSON(context: "discovery document")))
        #expect(process(#","userinfo_endpoint":42"#) == .protocolViolation(.malformedJSON(context: "discovery document")))
    }
}
