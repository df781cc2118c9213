import Foundation
import Testing
@testable import AuthEngine

@Suite("WWW-Authenticate challenges (RFC 9110 §11.6.1, RFC 6750 §3, RFC 9728 §5.1)")
struct ChallengeParserTests {
    func parse(_ value: String) throws -> [AuthenticationChallenge] { try parseAuthenticationChallenges(value) }

    @Test("One Bearer challenge with resource_metadata and scope")
    func oneBearer() throws {
        let challenges = try parse(#"Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp", scope="files:read files:write""#)
        #expect(challenges.count == 1)
        let bearer = try #require(challenges.first.flatMap(BearerChallenge.init))
        #expect(bearer.resourceMetadata == "https://mcp.example/.well-known/oauth-protected-resource/mcp")
        #expect(bearer.scope == ["files:read", "files:write"])
    }

    @Test("Several challenges in one value; the parameter found in the second (after a DPoP one)")
    func severalChallenges() throws {
        let value = #"DPoP algs="ES256 EdDSA", error="invalid_token", Bearer realm="mcp", resource_metadata="https://r.example/meta""#
        let challenges = try parse(value)
        #expect(challenges.map(\.scheme) == ["DPoP", "Bearer"])
        #expect(challenges[0].parameter("algs") == "ES256 EdDSA")
        let response = HTTPResponse(status: 401, headers: ["WWW-Authenticate": value])
        let preferred = try #require(BearerChallenge.challenges(in: response).challenges.preferred)
        #expect(preferred.scheme == "Bearer")
        #expect(preferred.resourceMetadata == "https://r.example/meta")
    }

    @Test("Two field lines joined with \", \" (RFC 9110 §5.3) read as their challenges")
    func acrossHeaders() throws {
        let challenges = try parse(#"Basic realm="x""# + ", " + #"Bearer resource_metadata="https://r.example/m""#)
        #expect(challenges.map(\.scheme) == ["Basic", "Bearer"])
        #expect(challenges[1].parameter("resource_metadata") == "https://r.example/m")
    }

    @Test("Quoted strings keep commas, equals signs and escaped quotes and backslashes")
    func quotedStrings() throws {
        let challenges = try parse(#"Bearer error_description="a, b=c \"quoted\" back\\slash", error=invalid_token"#)
        #expect(challenges.count == 1)
        #expect(challenges[0].parameter("error_description") == #"a, b=c "quoted" back\slash"#)
        #expect(challenges[0].parameter("error") == "invalid_token")
    }

    @Test("Scheme and parameter names are case-insensitive; values keep their case")
    func caseInsensitive() throws {
        let challenges = try parse(#"bEaReR Resource_Metadata="https://R.example/M", SCOPE=Read"#)
        let bearer = try #require(BearerChallenge(challenges[0]))
        #expect(bearer.resourceMetadata == "https://R.example/M")
        #expect(bearer.scope == ["Read"])
    }

    @Test("token68, a scheme alone, empty list elements and whitespace around = and commas")
    func token68AndEmpties() throws {
        let challenges = try parse(#" , Negotiate abc+/def==  ,, Basic , Bearer realm = "r" ,"#)
        #expect(challenges.map(\.scheme) == ["Negotiate", "Basic", "Bearer"])
        #expect(challenges[0].token68 == "abc+/def==")
        #expect(challenges[1].parameters.isEmpty && challenges[1].token68 == nil)
        #expect(challenges[2].parameter("realm") == "r")
    }

    @Test("A repeated parameter is refused (RFC 9110 §11.2), whatever its case")
    func duplicateParameter() {
        #expect(throws: ChallengeSyntaxError.self) {
            try parseAuthenticationChallenges(#"Bearer resource_metadata="https://a.example/m", RESOURCE_METADATA="https://b.example/m""#)
        }
        let response = HTTPResponse(status: 401, headers: ["www-authenticate": #"Bearer scope="a", scope="b""#])
        let (challenges, error) = BearerChallenge.challenges(in: response)
        #expect(challenges.isEmpty)
        #expect(error?.reason == .repeatedParameter("scope"))
    }

    @Test("Malformed values are refused with the byte offset", arguments: [
        #"Bearer realm="unterminated"#, #"Bearer realm="#, #"Bearer realm="a" scope="b""#, #"="x""#, #"Bearer realm="a\"#,
    ])
    func malformed(_ value: String) {
        #expect(throws: ChallengeSyntaxError.self) { try parseAuthenticationChallenges(value) }
    }

    @Test("A resource's use_dpop_nonce in a DPoP challenge after a Bearer one (two field lines, joined) is found (RFC 9449 §9); a userinfo error likewise")
    func dpopNonceAfterBearer() {
        let response = HTTPResponse(status: 401, headers: ["www-authenticate": #"Bearer realm="api", DPoP algs="ES256", error="use_dpop_nonce""#,
                                                           "dpop-nonce": "n-1"])
        #expect(DPoP.nonceChallenge(response) == "n-1")
        let quoted = HTTPResponse(status: 401, headers: ["www-authenticate": #"Bearer error_description="no use_dpop_nonce here""#, "dpop-nonce": "n-2"])
        #expect(DPoP.nonceChallenge(quoted) == nil, "the words inside another challenge's quoted string are not a DPoP error")
        let userinfo = HTTPResponse(status: 403, headers: ["www-authenticate": #"Bearer realm="x, error=\"fake\"", error="insufficient_scope""#])
        #expect(throws: AuthError.errorResponse(OAuthErrorResponse(code: .insufficientScope, status: 403))) {
            try processUserInfoResponse(userinfo, expectedSubject: "s", now: Date())
        }
    }

    @Test("Other schemes only: no Bearer challenge")
    func otherSchemes() throws {
        let response = HTTPResponse(status: 401, headers: ["www-authenticate": #"Basic realm="x", Digest nonce="n""#])
        #expect(BearerChallenge.challenges(in: response).challenges.isEmpty)
    }
}

@Suite("Protected resource metadata (RFC 9728)")
struct ProtectedResourceMetadataTests {
    func json(_ text: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(text.utf8))
    }
    let metadataURL = URL(string: "https://mcp.example/.well-known/oauth-protected-resource/mcp")!

    @Test("§3.1: the path-inserted URL, then the root; the query and a terminating slash dropped", arguments: [
        ("https://mcp.example/mcp", ["https://mcp.example/.well-known/oauth-protected-resource/mcp", "https://mcp.example/.well-known/oauth-protected-resource"]),
        ("https://mcp.example/a/b/", ["https://mcp.example/.well-known/oauth-protected-resource/a/b", "https://mcp.example/.well-known/oauth-protected-resource"]),
        ("https://mcp.example", ["https://mcp.example/.well-known/oauth-protected-resource"]),
        ("http://127.0.0.1:8080/ok/mcp?x=1", ["http://127.0.0.1:8080/.well-known/oauth-protected-resource/ok/mcp", "http://127.0.0.1:8080/.well-known/oauth-protected-resource"]),
    ])
    func wellKnownURLs(_ resource: String, _ expected: [String]) throws {
        #expect(try ProtectedResourceDiscovery.wellKnownURLs(resource: resource).map(\.0.absoluteString) == expected)
    }

    @Test("A resource on http:// only on loopback")
    func insecureResource() {
        #expect(throws: AuthError.unsupported(.insecureURL("http://mcp.example/mcp"))) {
            try ProtectedResourceDiscovery.wellKnownURLs(resource: "http://mcp.example/mcp")
        }
    }

    @Test("The document's members are read")
    func members() throws {
        let metadata = try ProtectedResourceDiscovery.processResponse(json(#"""
            {"resource":"https://mcp.example/mcp","authorization_servers":["https://as.example/t1","https://as2.example"],
             "scopes_supported":["mcp"],"bearer_methods_supported":["header"],"dpop_signing_alg_values_supported":["ES256"],"extra":1}
            """#), requestedResource: "https://mcp.example/mcp", location: .pathInserted, requestURL: metadataURL)
        #expect(metadata.authorizationServers == ["https://as.example/t1", "https://as2.example"])
        #expect(metadata.scopesSupported == ["mcp"])
        #expect(metadata.bearerMethodsSupported == ["header"])
        #expect(metadata.dpopSigningAlgValuesSupported == ["ES256"])
        #expect(metadata.wantsDPoP)
    }

    @Test("§3.3: a resource that differs is refused (host, path, trailing slash, Unicode look-alike, case)", arguments: [
        "https://other.example/mcp", "https://mcp.example/other", "https://mcp.example/mcp/", "https://mcp.examp\u{0435}/mcp",
        "https://MCP.example/mcp", "https://mcp.example",
    ])
    func resourceMismatch(_ actual: String) {
        let body = #"{"resource":"\#(actual)","authorization_servers":["https://as.example"]}"#
        #expect(throws: AuthError.protocolViolation(.protectedResourceMismatch(expected: "https://mcp.example/mcp", actual: actual, metadataURL: metadataURL.absoluteString))) {
            try ProtectedResourceDiscovery.processResponse(json(body), requestedResource: "https://mcp.example/mcp", location: .pathInserted, requestURL: metadataURL)
        }
    }

    @Test("At the root, the origin (the identifier the root URL is made from) is accepted as well as the URL asked for")
    func rootResource() throws {
        let root = URL(string: "https://mcp.example/.well-known/oauth-protected-resource")!
        for resource in ["https://mcp.example", "https://mcp.example/mcp"] {
            let metadata = try ProtectedResourceDiscovery.processResponse(json(#"{"resource":"\#(resource)","authorization_servers":["https://as.example"]}"#),
                                                                          requestedResource: "https://mcp.example/mcp", location: .root, requestURL: root)
            #expect(metadata.resource == resource)
        }
        #expect(throws: AuthError.self) {
            try ProtectedResourceDiscovery.processResponse(json(#"{"resource":"https://mcp.example/","authorization_servers":["https://as.example"]}"#),
                                                           requestedResource: "https://mcp.example/mcp", location: .root, requestURL: root)
        }
    }

    @Test("Missing or unusable members, another status, another media type, duplicate members", arguments: [
        (#"{"authorization_servers":["https://as.example"]}"#, 200, AuthError.protocolViolation(.missingField("resource"))),
        (#"{"resource":"https://mcp.example/mcp"}"#, 200, AuthError.protocolViolation(.missingField("authorization_servers"))),
        (#"{"resource":"https://mcp.example/mcp","authorization_servers":[]}"#, 200, AuthError.protocolViolation(.missingField("authorization_servers"))),
        (#"{"resource":"https://mcp.example/mcp","authorization_servers":["http://as.example"]}"#, 200, AuthError.unsupported(.insecureURL("http://as.example"))),
        (#"{"resource":"https://mcp.example/mcp","resource":"https://mcp.example/mcp","authorization_servers":["https://as.example"]}"#, 200,
         AuthError.protocolViolation(.duplicateMember(name: "resource", context: "protected resource metadata"))),
        ("{}", 404, AuthError.httpStatus(HTTPStatusFailure(status: 404, url: "https://mcp.example/.well-known/oauth-protected-resource/mcp"))),
    ])
    func refusals(_ body: String, _ status: Int, _ expected: AuthError) {
        #expect(throws: expected) {
            try ProtectedResourceDiscovery.processResponse(json(body, status: status), requestedResource: "https://mcp.example/mcp", location: .pathInserted,
                                                           requestURL: metadataURL)
        }
    }

    @Test("The metadata request carries no credentials and follows no redirect")
    func request() {
        let request = ProtectedResourceDiscovery.makeRequest(url: metadataURL)
        #expect(request.method == .get)
        #expect(request.headers == [HTTPHeader("Accept", "application/json")])
        #expect(!request.followRedirects)
    }
}

@Suite("Authorization server discovery for a resource (RFC 8414 §3, OpenID Discovery §4, MCP authorization)")
struct ResourceAuthorizationServerDiscoveryTests {
    @Test("The chain: RFC 8414 path-inserted, OpenID path-inserted, OpenID appended")
    func chain() throws {
        let issuer = "https://as.example/tenant1"
        let urls = try DiscoveryKind.chain(issuer: issuer).map { try Discovery.wellKnownURL(issuer: issuer, kind: $0).absoluteString }
        #expect(urls == ["https://as.example/.well-known/oauth-authorization-server/tenant1", "https://as.example/.well-known/openid-configuration/tenant1",
                         "https://as.example/tenant1/.well-known/openid-configuration"])
        #expect(DiscoveryKind.chain(issuer: "https://as.example") == [.oauthAuthorizationServer, .openIDConnect])
    }

    @Test("No S256 (absent or other methods) is refused")
    func s256() throws {
        var metadata = AuthorizationServerMetadata(issuer: "https://as.example")
        #expect(throws: AuthError.unsupported(.pkceS256NotAdvertised(advertised: []))) { try Discovery.requireS256(metadata) }
        metadata.codeChallengeMethodsSupported = ["plain"]
        #expect(throws: AuthError.unsupported(.pkceS256NotAdvertised(advertised: ["plain"]))) { try Discovery.requireS256(metadata) }
        metadata.codeChallengeMethodsSupported = ["plain", "S256"]
        try Discovery.requireS256(metadata)
    }

    @Test("client_id_metadata_document_supported is read")
    func clientIDMetadataDocument() throws {
        let body = #"{"issuer":"https://as.example","authorization_endpoint":"https://as.example/a","token_endpoint":"https://as.example/t","response_types_supported":["code"],"client_id_metadata_document_supported":true}"#
        let metadata = try Discovery.processResponse(HTTPResponse(status: 200, headers: ["content-type": "application/json"], body: Data(body.utf8)),
                                                     expectedIssuer: "https://as.example", kind: .oauthAuthorizationServer)
        #expect(metadata.clientIDMetadataDocumentSupported == true)
    }
}

@Suite("Dynamic client registration (RFC 7591, RFC 7592)")
struct ClientRegistrationTests {
    let metadata = AuthorizationServerMetadata(issuer: "https://as.example", registrationEndpoint: URL(string: "https://as.example/register"))
    let endpoint = URL(string: "https://as.example/register")!
    func json(_ text: String, status: Int) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(text.utf8))
    }

    @Test("§3.1: a native public client with loopback redirect URIs and the grants it uses")
    func request() throws {
        let request = try makeClientRegistrationRequest(metadata: metadata, request: ClientRegistrationRequest(redirectURIs: ["http://127.0.0.1/callback"], scope: ["mcp"]))
        #expect(request.method == .post)
        #expect(request.url == endpoint)
        #expect(!request.followRedirects)
        #expect(!request.headers.contains { $0.name.lowercased() == "authorization" })
        let body = try parseJSONObject(request.body ?? Data()).get()
        #expect(body["application_type"] == .string("native"))
        #expect(body["token_endpoint_auth_method"] == .string("none"))
        #expect(body["redirect_uris"] == .strings(["http://127.0.0.1/callback"]))
        #expect(body["grant_types"] == .strings(["authorization_code", "refresh_token"]))
        #expect(body["response_types"] == .strings(["code"]))
        #expect(body["scope"] == .string("mcp"))
    }

    @Test("No registration_endpoint: refused before anything is sent")
    func noEndpoint() {
        #expect(throws: AuthError.unsupported(.missingEndpoint("registration_endpoint"))) {
            try makeClientRegistrationRequest(metadata: AuthorizationServerMetadata(issuer: "https://as.example"), request: ClientRegistrationRequest(redirectURIs: []))
        }
    }

    @Test("§3.2.1: the client information response is kept, secrets redacted")
    func response() throws {
        let registration = try processClientRegistrationResponse(json(#"""
            {"client_id":"c1","client_secret":"s3cr3t","client_secret_expires_at":1900000000,"registration_access_token":"rat",
             "registration_client_uri":"https://as.example/register/c1","token_endpoint_auth_method":"none"}
            """#, status: 201), requestURL: endpoint, now: Date())
        #expect(registration.clientID == "c1")
        #expect(registration.clientSecret?.exposedValue == "s3cr3t")
        #expect(registration.clientSecretExpiresAt == Date(timeIntervalSince1970: 1_900_000_000))
        #expect(registration.registrationAccessToken?.exposedValue == "rat")
        #expect(registration.registrationClientURI?.absoluteString == "https://as.example/register/c1")
        #expect(!"\(registration)".contains("s3cr3t") && !"\(registration)".contains("\"rat\""))
    }

    @Test("A response without client_id is refused")
    func noClientID() {
        #expect(throws: AuthError.protocolViolation(.missingField("client_id"))) {
            try processClientRegistrationResponse(json(#"{"client_secret":"x"}"#, status: 201), requestURL: endpoint, now: Date())
        }
    }

    @Test("§3.2.2: a refusal carries the server's error and error_description")
    func refused() {
        #expect(throws: AuthError.errorResponse(OAuthErrorResponse(code: .other("invalid_redirect_uri"), description: "loopback only", status: 400))) {
            try processClientRegistrationResponse(json(#"{"error":"invalid_redirect_uri","error_description":"loopback only"}"#, status: 400),
                                                  requestURL: endpoint, now: Date())
        }
        let text = PresentableError(from: .resourceStep(.clientRegistration, url: endpoint.absoluteString,
                                                        cause: .errorResponse(OAuthErrorResponse(code: .other("invalid_client_metadata"), description: "bad", status: 400))))
        #expect(text.title.contains("client registration"))
        #expect(text.detail.contains("https://as.example/register") && text.detail.contains("invalid_client_metadata") && text.detail.contains("bad"))
    }

    @Test("RFC 7592 §2.3: DELETE with the registration access token; 204 deleted, 401 gone")
    func deletion() throws {
        let uri = URL(string: "https://as.example/register/c1")!
        let request = try makeClientDeletionRequest(registrationClientURI: uri, registrationAccessToken: RegistrationAccessToken("rat"))
        #expect(request.method == .delete)
        #expect(request.headers.first == HTTPHeader("Authorization", "Bearer rat"))
        #expect(try processClientDeletionResponse(HTTPResponse(status: 204), requestURL: uri, now: Date()))
        #expect(try !processClientDeletionResponse(HTTPResponse(status: 401), requestURL: uri, now: Date()))
        #expect(throws: AuthError.self) { try processClientDeletionResponse(HTTPResponse(status: 500), requestURL: uri, now: Date()) }
    }
}
