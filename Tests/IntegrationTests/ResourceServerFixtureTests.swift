// The resource-server fixtures (Tests/ResourceServer) against the specs they are written from:
// what they serve and, first, what they refuse. Plain HTTP with curl (TestSupport's
// ResourceServerFixture.request): these tests check the fixtures, not the engine.
import Foundation
import Testing
import TestSupport

@Suite("Resource server fixture")
struct ResourceServerFixtureTests {
    // RFC 7636 Appendix B: a published verifier and its S256 challenge.
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    static let redirectURI = "http://127.0.0.1:5555/callback"

    @Test("RFC 9728 §5.1 + §3.1: the 401 challenge names the path-inserted metadata, whose resource is the URL asked for; RFC 8414 §3.1 path-inserted only")
    func challengeAndPathInsertedMetadata() async throws {
        let server = try await ResourceServerFixture.start()
        defer { Task { await server.stop() } }
        let answer = try await server.request("GET", server.resourceURL(scenario: "ok"))
        #expect(answer.status == 401)
        let metadataURL = server.protectedResourceMetadataURL(scenario: "ok")
        #expect(answer.values("WWW-Authenticate") == ["Bearer resource_metadata=\"\(metadataURL)\", scope=\"mcp:read\""])

        let metadata = try await json(server, "GET", metadataURL)
        #expect(metadata["resource"] as? String == server.resourceURL(scenario: "ok"))
        #expect(metadata["authorization_servers"] as? [String] == [server.issuer(scenario: "ok")])

        let asm = try await json(server, "GET", "\(server.base)/.well-known/oauth-authorization-server/ok/as")
        #expect(asm["issuer"] as? String == server.issuer(scenario: "ok"))
        #expect(asm["code_challenge_methods_supported"] as? [String] == ["S256"])
        #expect(asm["authorization_response_iss_parameter_supported"] as? Bool == true)
        #expect(asm["client_id_metadata_document_supported"] as? Bool == true)
        for other in ["/.well-known/openid-configuration/ok/as", "/ok/as/.well-known/openid-configuration",
                      "/.well-known/oauth-authorization-server", "/.well-known/oauth-protected-resource/ok"] {
            #expect(try await server.request("GET", server.base + other).status == 404, "\(other)")
        }
    }

    @Test("RFC 9728 §3: no-param has no resource_metadata; root-metadata serves only at the root, resource = the URL asked for")
    func fallbackLocations() async throws {
        let server = try await ResourceServerFixture.start()
        defer { Task { await server.stop() } }
        let noParam = try await server.request("GET", server.resourceURL(scenario: "no-param"))
        #expect(noParam.values("WWW-Authenticate") == ["Bearer realm=\"authdeck-fixture\""])
        #expect(try await json(server, "GET", server.protectedResourceMetadataURL(scenario: "no-param"))["resource"]
            as? String == server.resourceURL(scenario: "no-param"))

        #expect(try await server.request("GET", server.protectedResourceMetadataURL(scenario: "root-metadata")).status == 404)
        let root = try await json(server, "GET", "\(server.base)/.well-known/oauth-protected-resource")
        #expect(root["resource"] as? String == server.resourceURL(scenario: "root-metadata"))

        for (scenario, path) in [("oidc-inserted", "/.well-known/openid-configuration/oidc-inserted/as"),
                                 ("oidc-appended", "/oidc-appended/as/.well-known/openid-configuration")] {
            #expect(try await server.request("GET", "\(server.base)/.well-known/oauth-authorization-server/\(scenario)/as")
                .status == 404)
            let document = try await json(server, "GET", server.base + path)
            #expect(document["issuer"] as? String == server.issuer(scenario: scenario))
            #expect(document["jwks_uri"] as? String == server.issuer(scenario: scenario) + "/jwks")
        }
    }

    @Test("RFC 9728 §3.3 refusal cases: the metadata resource differs by host, path, trailing slash, a look-alike letter; RFC 8414 §3.3 issuer differs")
    func lyingMetadata() async throws {
        let server = try await ResourceServerFixture.start()
        defer { Task { await server.stop() } }
        let expected = [
            "wrong-resource-host": "http://localhost:\(server.port)/wrong-resource-host/mcp",
            "wrong-resource-path": "\(server.base)/wrong-resource-path/other",
            "wrong-resource-slash": "\(server.base)/wrong-resource-slash/mcp/",
            "wrong-resource-lookalike": "\(server.base)/wrong-resource-lookalike/m\u{0441}p",
        ]
        for (scenario, resource) in expected {
            let metadata = try await json(server, "GET", server.protectedResourceMetadataURL(scenario: scenario))
            let served = try #require(metadata["resource"] as? String)
            #expect(Array(served.unicodeScalars) == Array(resource.unicodeScalars), "\(scenario)")
            #expect(Array(served.utf8) != Array(server.resourceURL(scenario: scenario).utf8), "\(scenario)")
        }
        let asm = try await json(server, "GET", "\(server.base)/.well-known/oauth-authorization-server/wrong-issuer/as")
        #expect(asm["issuer"] as? String == server.issuer(scenario: "ok"))
        let plain = try await json(server, "GET", "\(server.base)/.well-known/oauth-authorization-server/no-s256/as")
        #expect(plain["code_challenge_methods_supported"] as? [String] == ["plain"])
        let absent = try await json(server, "GET", "\(server.base)/.well-known/oauth-authorization-server/no-pkce-methods/as")
        #expect(absent["code_challenge_methods_supported"] == nil)
    }

    @Test("RFC 9110 §11.6.1: resource_metadata only in a second challenge, in one header or two, after DPoP, in odd case; metadata only at that URL")
    func secondChallenges() async throws {
        let server = try await ResourceServerFixture.start()
        defer { Task { await server.stop() } }
        let one = try await server.request("GET", server.resourceURL(scenario: "second-challenge"))
        let prm = "\(server.base)/second-challenge/prm"
        #expect(one.values("WWW-Authenticate") == [
            "Basic realm=\"fixture, resource_metadata=\\\"http://localhost:\(server.port)/trap\\\"\", "
                + "Bearer realm=\"mcp\", scope=\"mcp:read\", resource_metadata=\"\(prm)\""])
        let two = try await server.request("GET", server.resourceURL(scenario: "second-challenge-header"))
        #expect(two.values("WWW-Authenticate") == [
            "Basic realm=\"fixture\"", "Bearer resource_metadata=\"\(server.base)/second-challenge-header/prm\""])
        let dpop = try await server.request("GET", server.resourceURL(scenario: "second-challenge-dpop"))
        #expect(dpop.values("WWW-Authenticate").first?.hasPrefix("DPoP algs=\"ES256\", error=\"invalid_token\", Bearer ") == true)
        let odd = try await server.request("GET", server.resourceURL(scenario: "challenge-case"))
        #expect(odd.values("WWW-Authenticate").first?.hasPrefix("bEARER SCOPE=\"mcp:read\", Resource_Metadata=") == true)

        #expect(try await server.request("GET", server.protectedResourceMetadataURL(scenario: "second-challenge")).status == 404)
        #expect(try await json(server, "GET", prm)["resource"] as? String == server.resourceURL(scenario: "second-challenge"))
        #expect(try await server.request("GET", "http://localhost:\(server.port)/trap").status == 404)
    }

    @Test("Discovery redirects to another host (localhost): a 302 from the metadata URLs, valid metadata only when followed")
    func redirectsToAnotherHost() async throws {
        let server = try await ResourceServerFixture.start()
        defer { Task { await server.stop() } }
        let prm = try await server.request("GET", server.protectedResourceMetadataURL(scenario: "redirect-other-host"))
        #expect(prm.status == 302)
        #expect(prm.values("Location") == ["http://localhost:\(server.port)/.well-known/oauth-protected-resource/redirect-other-host/mcp"])
        let asm = try await server.request("GET", "\(server.base)/.well-known/oauth-authorization-server/redirect-other-host-as/as")
        #expect(asm.status == 302)
        #expect(asm.values("Location").first?.hasPrefix("http://localhost:\(server.port)/") == true)
    }

    @Test("RFC 7591 + RFC 6749 §4.1 + RFC 7636 + RFC 8707 + RFC 9207: register, authorize, token bound to the resource, refresh rotation; reuse revokes the grant")
    func codeFlowRotationAndReuseDetection() async throws {
        let server = try await ResourceServerFixture.start()
        defer { Task { await server.stop() } }
        let client = try await register(server, "ok")
        #expect(client["client_secret"] == nil)
        let clientID = try #require(client["client_id"] as? String)
        let callback = try await authorize(server, "ok", clientID: clientID)
        #expect(callback["state"] == "state-1")
        #expect(callback["iss"] == server.issuer(scenario: "ok"))
        let code = try #require(callback["code"])

        let tokens = try await tokenRequest(server, "ok", ["grant_type": "authorization_code", "code": code,
            "redirect_uri": Self.redirectURI, "code_verifier": Self.verifier, "client_id": clientID,
            "resource": server.resourceURL(scenario: "ok")])
        #expect(tokens.status == 200)
        #expect(tokens.values("Cache-Control") == ["no-store"])
        let access = try #require(tokens.jsonObject?["access_token"] as? String)
        let refresh = try #require(tokens.jsonObject?["refresh_token"] as? String)

        let reused = try await tokenRequest(server, "ok", ["grant_type": "authorization_code", "code": code,
            "redirect_uri": Self.redirectURI, "code_verifier": Self.verifier, "client_id": clientID,
            "resource": server.resourceURL(scenario: "ok")])
        #expect(reused.jsonObject?["error"] as? String == "invalid_grant")

        // The code's reuse revoked the grant: sign in again for the rest.
        let second = try await authorize(server, "ok", clientID: clientID)
        let fresh = try await tokenRequest(server, "ok", ["grant_type": "authorization_code", "code": second["code"] ?? "",
            "redirect_uri": Self.redirectURI, "code_verifier": Self.verifier, "client_id": clientID,
            "resource": server.resourceURL(scenario: "ok")])
        let access2 = try #require(fresh.jsonObject?["access_token"] as? String)
        let refresh2 = try #require(fresh.jsonObject?["refresh_token"] as? String)
        #expect(try await server.request("GET", server.resourceURL(scenario: "ok"), headers: ["Authorization: Bearer \(access)"])
            .status == 401)
        #expect(try await server.request("GET", server.resourceURL(scenario: "ok"), headers: ["Authorization: Bearer \(access2)"])
            .status == 200)
        // RFC 8707: a token for ok is no token for another resource.
        let elsewhere = try await server.request("GET", server.resourceURL(scenario: "no-param"),
                                                 headers: ["Authorization: Bearer \(access2)"])
        #expect(elsewhere.status == 401)
        #expect(elsewhere.values("WWW-Authenticate").first?.contains("error=\"invalid_token\"") == true)
        _ = refresh

        let noResource = try await tokenRequest(server, "ok", ["grant_type": "refresh_token", "refresh_token": refresh2,
                                                               "client_id": clientID])
        #expect(noResource.jsonObject?["error"] as? String == "invalid_target")
        let rotated = try await tokenRequest(server, "ok", ["grant_type": "refresh_token", "refresh_token": refresh2,
            "client_id": clientID, "resource": server.resourceURL(scenario: "ok")])
        let access3 = try #require(rotated.jsonObject?["access_token"] as? String)
        #expect(rotated.jsonObject?["refresh_token"] as? String != refresh2)
        let replay = try await tokenRequest(server, "ok", ["grant_type": "refresh_token", "refresh_token": refresh2,
            "client_id": clientID, "resource": server.resourceURL(scenario: "ok")])
        #expect(replay.status == 400)
        #expect(replay.jsonObject?["error"] as? String == "invalid_grant")
        #expect(try await server.request("GET", server.resourceURL(scenario: "ok"), headers: ["Authorization: Bearer \(access3)"])
            .status == 401)

        let log = try await server.log()
        let discovery = log.filter { ["prm", "asm-8414"].contains($0.endpoint ?? "") }
        #expect(discovery.allSatisfy { !$0.hasAuthorization && !$0.hasCookie })
        #expect(log.filter { $0.endpoint == "token" }.allSatisfy { $0.form?["code_verifier"].map { $0 == ["<masked>"] } ?? true })
        #expect(log.contains { $0.endpoint == "register" && $0.json?["application_type"] == .string("native") })
    }

    @Test("RFC 6749 §3.1.2 + RFC 8252 §7.3: redirect URIs match exactly, the loopback IP port aside; a mismatch is a 400 without redirect")
    func exactRedirectMatching() async throws {
        let server = try await ResourceServerFixture.start()
        defer { Task { await server.stop() } }
        let clientID = try #require(try await register(server, "ok", redirectURIs: ["http://127.0.0.1/callback"])["client_id"] as? String)
        #expect(try await authorizeRaw(server, "ok", clientID: clientID, redirectURI: "http://127.0.0.1:5555/callback").status == 302)
        for refused in ["http://127.0.0.1:5555/callback/", "http://localhost:5555/callback", "http://127.0.0.1:5555/Callback",
                        "http://127.0.0.2:5555/callback", "http://127.0.0.1:5555/callback?x=1"] {
            let answer = try await authorizeRaw(server, "ok", clientID: clientID, redirectURI: refused)
            #expect(answer.status == 400, "\(refused)")
            #expect(answer.values("Location").isEmpty, "\(refused)")
        }
        #expect(try await authorizeRaw(server, "ok", clientID: "never-registered").status == 400)
    }

    @Test("RFC 7636 §4.3 + RFC 8707 §2 + RFC 6749 §4.1.2.1: plain or missing PKCE, a missing or foreign resource, an unknown scope come back as errors with iss")
    func authorizationRefusals() async throws {
        let server = try await ResourceServerFixture.start()
        defer { Task { await server.stop() } }
        let clientID = try #require(try await register(server, "ok")["client_id"] as? String)
        let cases: [(String, [String: String?], String)] = [
            ("plain PKCE", ["code_challenge_method": "plain"], "invalid_request"),
            ("no method", ["code_challenge_method": nil], "invalid_request"),
            ("no challenge", ["code_challenge": nil], "invalid_request"),
            ("no resource", ["resource": nil], "invalid_target"),
            ("another resource", ["resource": server.resourceURL(scenario: "no-param")], "invalid_target"),
            ("slash resource", ["resource": server.resourceURL(scenario: "ok") + "/"], "invalid_target"),
            ("openid", ["scope": "openid mcp:read"], "invalid_scope"),
            ("token flow", ["response_type": "token"], "unsupported_response_type"),
        ]
        for (name, changes, error) in cases {
            let answer = try await authorizeRaw(server, "ok", clientID: clientID, changes: changes)
            #expect(answer.status == 302, "\(name)")
            let query = queryItems(answer.values("Location").first ?? "")
            #expect(query["error"] == error, "\(name)")
            #expect(query["code"] == nil, "\(name)")
            #expect(query["iss"] == server.issuer(scenario: "ok"), "\(name)")
        }
    }

    @Test("RFC 9207 §2: iss-other answers another issuer's iss; iss-missing none (and its metadata says so)")
    func issVariants() async throws {
        let server = try await ResourceServerFixture.start()
        defer { Task { await server.stop() } }
        let other = try await authorize(server, "iss-other", clientID: try #require(try await register(server, "iss-other")["client_id"] as? String))
        #expect(other["iss"] == server.issuer(scenario: "ok"))
        let missing = try await authorize(server, "iss-missing", clientID: try #require(try await register(server, "iss-missing")["client_id"] as? String))
        #expect(missing["iss"] == nil)
        #expect(missing["code"] != nil)
        let asm = try await json(server, "GET", "\(server.base)/.well-known/oauth-authorization-server/iss-missing/as")
        #expect(asm["authorization_response_iss_parameter_supported"] as? Bool == false)
    }

    @Test("RFC 7591 §3.2.2: non-loopback http redirect, fragment, unknown auth method refused; refused and client-id-less scenarios; no-dcr has no endpoint")
    func registrationRefusals() async throws {
        let server = try await ResourceServerFixture.start()
        defer { Task { await server.stop() } }
        let url = server.issuer(scenario: "ok") + "/register"
        let cases: [(String, String)] = [
            (#"{"redirect_uris": ["http://example.com/cb"], "token_endpoint_auth_method": "none"}"#, "invalid_redirect_uri"),
            (#"{"redirect_uris": ["http://127.0.0.1/cb#x"], "token_endpoint_auth_method": "none"}"#, "invalid_redirect_uri"),
            (#"{"token_endpoint_auth_method": "none"}"#, "invalid_redirect_uri"),
            (#"{"redirect_uris": ["http://127.0.0.1/cb"], "token_endpoint_auth_method": "client_secret_jwt"}"#, "invalid_client_metadata"),
            (#"{"redirect_uris": ["http://127.0.0.1/cb"], "grant_types": ["implicit"]}"#, "invalid_client_metadata"),
            (#"["not an object"]"#, "invalid_client_metadata"),
        ]
        for (body, error) in cases {
            let answer = try await server.request("POST", url, headers: ["Content-Type: application/json"], body: Data(body.utf8))
            #expect(answer.status == 400, "\(body)")
            #expect(answer.jsonObject?["error"] as? String == error, "\(body)")
            #expect((answer.jsonObject?["error_description"] as? String)?.isEmpty == false, "\(body)")
        }
        // RFC 7591 §2: token_endpoint_auth_method defaults to client_secret_basic, with a secret.
        let confidential = try await register(server, "ok", method: nil)
        #expect(confidential["token_endpoint_auth_method"] as? String == "client_secret_basic")
        #expect(confidential["client_secret"] is String)
        #expect(confidential["client_secret_expires_at"] as? Int == 0)

        let refused = try await server.request("POST", server.issuer(scenario: "registration-refused") + "/register",
            headers: ["Content-Type: application/json"], body: Data(Self.registration(["http://127.0.0.1/cb"], "none").utf8))
        #expect(refused.status == 400)
        #expect(refused.jsonObject?["error"] as? String == "invalid_redirect_uri")
        let refusedMetadata = try await server.request("POST", server.issuer(scenario: "registration-refused-metadata") + "/register",
            headers: ["Content-Type: application/json"], body: Data(Self.registration(["http://127.0.0.1/cb"], "none").utf8))
        #expect(refusedMetadata.jsonObject?["error"] as? String == "invalid_client_metadata")
        let noID = try await register(server, "registration-no-client-id")
        #expect(noID["client_id"] == nil)
        #expect(noID["redirect_uris"] != nil)

        let asm = try await json(server, "GET", "\(server.base)/.well-known/oauth-authorization-server/no-dcr/as")
        #expect(asm["registration_endpoint"] == nil)
        #expect(try await server.request("POST", server.issuer(scenario: "no-dcr") + "/register",
            headers: ["Content-Type: application/json"], body: Data(Self.registration(["http://127.0.0.1/cb"], "none").utf8)).status == 404)
    }

    @Test("RFC 7592 §2.3: DELETE needs the registration access token; afterwards the client is unknown and its grants revoked")
    func registrationDelete() async throws {
        let server = try await ResourceServerFixture.start()
        defer { Task { await server.stop() } }
        let client = try await register(server, "ok")
        let clientID = try #require(client["client_id"] as? String)
        let uri = try #require(client["registration_client_uri"] as? String)
        let rat = try #require(client["registration_access_token"] as? String)
        #expect(uri == server.issuer(scenario: "ok") + "/register/" + clientID)
        let callback = try await authorize(server, "ok", clientID: clientID)
        let tokens = try await tokenRequest(server, "ok", ["grant_type": "authorization_code", "code": callback["code"] ?? "",
            "redirect_uri": Self.redirectURI, "code_verifier": Self.verifier, "client_id": clientID,
            "resource": server.resourceURL(scenario: "ok")])
        let access = try #require(tokens.jsonObject?["access_token"] as? String)

        #expect(try await server.request("DELETE", uri).status == 401)
        #expect(try await server.request("DELETE", uri, headers: ["Authorization: Bearer wrong"]).status == 401)
        #expect(try await server.request("GET", uri, headers: ["Authorization: Bearer \(rat)"]).status == 200)
        #expect(try await server.request("DELETE", uri, headers: ["Authorization: Bearer \(rat)"]).status == 204)
        #expect(try await server.request("DELETE", uri, headers: ["Authorization: Bearer \(rat)"]).status == 401)
        #expect(try await authorizeRaw(server, "ok", clientID: clientID).status == 400)
        #expect(try await server.request("GET", server.resourceURL(scenario: "ok"), headers: ["Authorization: Bearer \(access)"])
            .status == 401)
    }

    @Test("RFC 7009 §2: revoking the refresh token ends the grant; another client's token is refused; unknown tokens are 200")
    func revocation() async throws {
        let server = try await ResourceServerFixture.start()
        defer { Task { await server.stop() } }
        let clientID = try #require(try await register(server, "ok")["client_id"] as? String)
        let otherID = try #require(try await register(server, "ok")["client_id"] as? String)
        let callback = try await authorize(server, "ok", clientID: clientID)
        let tokens = try await tokenRequest(server, "ok", ["grant_type": "authorization_code", "code": callback["code"] ?? "",
            "redirect_uri": Self.redirectURI, "code_verifier": Self.verifier, "client_id": clientID,
            "resource": server.resourceURL(scenario: "ok")])
        let access = try #require(tokens.jsonObject?["access_token"] as? String)
        let refresh = try #require(tokens.jsonObject?["refresh_token"] as? String)
        let revoke = server.issuer(scenario: "ok") + "/revoke"
        #expect(try await form(server, revoke, ["token": refresh, "client_id": otherID]).status == 400)
        #expect(try await form(server, revoke, ["token": "unknown", "client_id": clientID]).status == 200)
        #expect(try await server.request("GET", server.resourceURL(scenario: "ok"), headers: ["Authorization: Bearer \(access)"])
            .status == 200)
        #expect(try await form(server, revoke, ["token": refresh, "token_type_hint": "refresh_token", "client_id": clientID])
            .status == 200)
        #expect(try await server.request("GET", server.resourceURL(scenario: "ok"), headers: ["Authorization: Bearer \(access)"])
            .status == 401)
    }

    @Test("Client ID metadata documents: the URL is the client id; a document naming another client_id, or without the redirect URI, is refused")
    func clientMetadataDocuments() async throws {
        let server = try await ResourceServerFixture.start()
        defer { Task { await server.stop() } }
        let good = try await server.publishClientMetadata(name: "authdeck",
            document: #"{"client_name": "authdeck", "redirect_uris": ["http://127.0.0.1/callback"], "token_endpoint_auth_method": "none"}"#)
        #expect(good == "\(server.base)/__client-metadata/authdeck.json")
        let callback = try await authorize(server, "no-dcr", clientID: good)
        #expect(callback["code"] != nil)
        let tokens = try await tokenRequest(server, "no-dcr", ["grant_type": "authorization_code", "code": callback["code"] ?? "",
            "redirect_uri": Self.redirectURI, "code_verifier": Self.verifier, "client_id": good,
            "resource": server.resourceURL(scenario: "no-dcr")])
        #expect(tokens.status == 200)

        let mismatch = try await server.publishClientMetadata(name: "mismatch",
            document: #"{"client_id": "http://127.0.0.1:1/other.json", "redirect_uris": ["http://127.0.0.1/callback"]}"#)
        #expect(try await authorizeRaw(server, "no-dcr", clientID: mismatch).status == 400)
        let elsewhere = try await server.publishClientMetadata(name: "elsewhere",
            document: #"{"redirect_uris": ["http://127.0.0.1/other"]}"#)
        #expect(try await authorizeRaw(server, "no-dcr", clientID: elsewhere).status == 400)
        let secret = try await server.publishClientMetadata(name: "secret",
            document: #"{"redirect_uris": ["http://127.0.0.1/callback"], "token_endpoint_auth_method": "client_secret_post"}"#)
        #expect(try await authorizeRaw(server, "no-dcr", clientID: secret).status == 400)
        #expect(try await authorizeRaw(server, "no-dcr", clientID: "\(server.base)/__client-metadata/absent.json").status == 400)
        #expect(try await server.log().contains { $0.endpoint == "client-metadata" && $0.status == 404 })
    }

    @Test("RFC 6750 §3.1: insufficient_scope names the scopes needed; the expire control makes tokens invalid_token")
    func insufficientScopeAndExpiry() async throws {
        let server = try await ResourceServerFixture.start()
        defer { Task { await server.stop() } }
        let clientID = try #require(try await register(server, "insufficient-scope")["client_id"] as? String)
        let callback = try await authorize(server, "insufficient-scope", clientID: clientID)
        let tokens = try await tokenRequest(server, "insufficient-scope", ["grant_type": "authorization_code",
            "code": callback["code"] ?? "", "redirect_uri": Self.redirectURI, "code_verifier": Self.verifier,
            "client_id": clientID, "resource": server.resourceURL(scenario: "insufficient-scope")])
        let access = try #require(tokens.jsonObject?["access_token"] as? String)
        let admin = try await server.request("GET", server.resourceURL(scenario: "insufficient-scope") + "/admin",
                                             headers: ["Authorization: Bearer \(access)"])
        #expect(admin.status == 403)
        #expect(admin.values("WWW-Authenticate").first?.hasPrefix(
            "Bearer error=\"insufficient_scope\", scope=\"mcp:read mcp:admin\", resource_metadata=") == true)

        try await server.expireAccessTokens(scenario: "insufficient-scope")
        let expired = try await server.request("GET", server.resourceURL(scenario: "insufficient-scope"),
                                               headers: ["Authorization: Bearer \(access)"])
        #expect(expired.status == 401)
        #expect(expired.values("WWW-Authenticate").first?.contains("expired") == true)
    }

    @Test("RFC 9449: the dpop scenario advertises ES256, challenges with DPoP and refuses a token request without a proof")
    func dpopScenario() async throws {
        let server = try await ResourceServerFixture.start()
        defer { Task { await server.stop() } }
        let answer = try await server.request("GET", server.resourceURL(scenario: "dpop"))
        #expect(answer.values("WWW-Authenticate").first?.hasPrefix("DPoP algs=\"ES256\", resource_metadata=") == true)
        let metadata = try await json(server, "GET", server.protectedResourceMetadataURL(scenario: "dpop"))
        #expect(metadata["dpop_signing_alg_values_supported"] as? [String] == ["ES256"])
        #expect(metadata["dpop_bound_access_tokens_required"] as? Bool == true)
        let clientID = try #require(try await register(server, "dpop")["client_id"] as? String)
        let callback = try await authorize(server, "dpop", clientID: clientID)
        let tokens = try await tokenRequest(server, "dpop", ["grant_type": "authorization_code", "code": callback["code"] ?? "",
            "redirect_uri": Self.redirectURI, "code_verifier": Self.verifier, "client_id": clientID,
            "resource": server.resourceURL(scenario: "dpop")])
        #expect(tokens.status == 400)
        #expect(tokens.jsonObject?["error"] as? String == "invalid_dpop_proof")
    }

    @Test("mcp SDK server: unauthenticated POST /mcp is 401 with resource_metadata; its metadata, DCR, exact redirect, token and an authorized initialize")
    func referenceSDKServer() async throws {
        let server = try await ResourceServerFixture.startMCP()
        defer { Task { await server.stop() } }
        let initialize = #"{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "fixture-test", "version": "1"}}}"#
        let mcpHeaders = ["Content-Type: application/json", "Accept: application/json, text/event-stream"]
        let challenge = try await server.request("POST", server.base + "/mcp", headers: mcpHeaders, body: Data(initialize.utf8))
        #expect(challenge.status == 401)
        let metadataURL = "\(server.base)/.well-known/oauth-protected-resource/mcp"
        #expect(challenge.values("WWW-Authenticate") == [
            "Bearer error=\"invalid_token\", error_description=\"Authentication required\", resource_metadata=\"\(metadataURL)\""])
        let prm = try await json(server, "GET", metadataURL)
        #expect(prm["resource"] as? String == server.base + "/mcp")
        #expect(prm["authorization_servers"] as? [String] == [server.base])
        let asm = try await json(server, "GET", server.base + "/.well-known/oauth-authorization-server")
        #expect(asm["issuer"] as? String == server.base)
        #expect(asm["code_challenge_methods_supported"] as? [String] == ["S256"])

        let registered = try await server.request("POST", server.base + "/register", headers: ["Content-Type: application/json"],
            body: Data(Self.registration([Self.redirectURI], "none").utf8))
        #expect(registered.status == 201)
        let clientID = try #require(registered.jsonObject?["client_id"] as? String)
        #expect(registered.jsonObject?["client_secret"] == nil)
        func authorizeURL(_ redirect: String) -> String {
            server.base + "/authorize?" + encode(["client_id": clientID, "redirect_uri": redirect, "response_type": "code",
                "code_challenge": Self.challenge, "code_challenge_method": "S256", "state": "state-1",
                "scope": "mcp:tools", "resource": server.base + "/mcp"])
        }
        // The SDK matches redirect URIs exactly, port included (no RFC 8252 §7.3 exception).
        #expect(try await server.request("GET", authorizeURL("http://127.0.0.1:5556/callback")).status == 400)
        let approved = try await server.request("GET", authorizeURL(Self.redirectURI))
        #expect(approved.status == 302)
        let callback = queryItems(approved.values("Location").first ?? "")
        #expect(callback["iss"] == server.base)
        let tokens = try await form(server, server.base + "/token", ["grant_type": "authorization_code",
            "code": callback["code"] ?? "", "redirect_uri": Self.redirectURI, "code_verifier": Self.verifier,
            "client_id": clientID, "resource": server.base + "/mcp"])
        #expect(tokens.status == 200)
        let access = try #require(tokens.jsonObject?["access_token"] as? String)
        let authorized = try await server.request("POST", server.base + "/mcp",
            headers: mcpHeaders + ["Authorization: Bearer \(access)"], body: Data(initialize.utf8))
        #expect(authorized.status == 200)
        #expect(String(decoding: authorized.body, as: UTF8.self).contains("\"serverInfo\""))
        #expect(try await server.log().contains { $0.path == "/token" && $0.form?["resource"] == [server.base + "/mcp"] })
    }

    // MARK: helpers

    static func registration(_ redirectURIs: [String], _ method: String?) -> String {
        let uris = redirectURIs.map { "\"\($0)\"" }.joined(separator: ", ")
        let methodMember = method.map { #", "token_endpoint_auth_method": "\#($0)""# } ?? ""
        return #"{"redirect_uris": [\#(uris)], "grant_types": ["authorization_code", "refresh_token"], "#
            + #""response_types": ["code"], "application_type": "native", "client_name": "fixture test"\#(methodMember)}"#
    }

    private func register(_ server: ResourceServerFixture, _ scenario: String,
                          redirectURIs: [String] = ["http://127.0.0.1/callback"], method: String? = "none") async throws
        -> [String: Any] {
        let answer = try await server.request("POST", server.issuer(scenario: scenario) + "/register",
            headers: ["Content-Type: application/json"], body: Data(Self.registration(redirectURIs, method).utf8))
        #expect(answer.status == 201, "register at \(scenario)")
        return answer.jsonObject ?? [:]
    }

    private func authorizeRaw(_ server: ResourceServerFixture, _ scenario: String, clientID: String,
                              redirectURI: String = ResourceServerFixtureTests.redirectURI,
                              changes: [String: String?] = [:]) async throws -> RawHTTPResponse {
        var fields: [String: String?] = ["client_id": clientID, "redirect_uri": redirectURI, "response_type": "code",
            "code_challenge": Self.challenge, "code_challenge_method": "S256", "state": "state-1",
            "resource": server.resourceURL(scenario: scenario)]
        for (name, value) in changes { fields[name] = value }
        return try await server.request("GET", server.issuer(scenario: scenario) + "/authorize?" + encode(fields.compactMapValues { $0 }))
    }

    /// The query of the redirect after an approved authorization request.
    private func authorize(_ server: ResourceServerFixture, _ scenario: String, clientID: String) async throws -> [String: String] {
        let answer = try await authorizeRaw(server, scenario, clientID: clientID)
        #expect(answer.status == 302, "authorize at \(scenario): \(String(decoding: answer.body, as: UTF8.self))")
        let location = answer.values("Location").first ?? ""
        #expect(location.hasPrefix(Self.redirectURI + "?"))
        return queryItems(location)
    }

    private func tokenRequest(_ server: ResourceServerFixture, _ scenario: String, _ fields: [String: String]) async throws
        -> RawHTTPResponse {
        try await form(server, server.issuer(scenario: scenario) + "/token", fields)
    }

    private func form(_ server: ResourceServerFixture, _ url: String, _ fields: [String: String]) async throws -> RawHTTPResponse {
        try await server.request("POST", url, headers: ["Content-Type: application/x-www-form-urlencoded"],
                                 body: Data(encode(fields).utf8))
    }

    private func json(_ server: ResourceServerFixture, _ method: String, _ url: String) async throws -> [String: Any] {
        let answer = try await server.request(method, url)
        #expect(answer.status == 200, "\(method) \(url)")
        return try #require(answer.jsonObject, "\(url): not a JSON object")
    }
}

private func encode(_ fields: [String: String]) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return fields.sorted { $0.key < $1.key }
        .map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }
        .joined(separator: "&")
}

private func queryItems(_ url: String) -> [String: String] {
    var result: [String: String] = [:]
    for item in URLComponents(string: url)?.queryItems ?? [] { result[item.name] = item.value }
    return result
}
