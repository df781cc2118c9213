import Foundation
import Testing
@testable import AuthEngine

@Suite("Token request and response (RFC 6749 §4.1.3, §5)")
struct TokenTests {
    @Test("TOK-01, RFC 7636 §4.5: the code exchange is an exact form POST (public client)")
    func codeExchangeRequestPublic() throws {
        let validated = try OP.validated(pending: OP.pending())
        let request = try makeAuthorizationCodeTokenRequest(metadata: OP.metadata(), client: OP.client, response: validated)
        #expect(request.method == .post)
        #expect(request.url.absoluteString == "https://op.test/token")
        #expect(request.headers == [HTTPHeader("Content-Type", "application/x-www-form-urlencoded"), HTTPHeader("Accept", "application/json")])
        #expect(request.followRedirects == false)
        #expect(formBody(request) == [
            FormParameter("grant_type", "authorization_code"), FormParameter("code", "code-abc"),
            FormParameter("redirect_uri", "http://127.0.0.1:49152/callback"), FormParameter("code_verifier", RFC7636AppendixB.verifier),
            FormParameter("client_id", "rp-native"),
        ])
    }

    @Test("RFC 6749 §2.3.1: client_secret_basic form-encodes id and secret before base64")
    func clientSecretBasic() throws {
        let client = ClientConfiguration(clientID: "my client:1", authentication: .clientSecretBasic(ClientSecret("s3cr%t+/é")))
        let request = try makeAuthorizationCodeTokenRequest(metadata: OP.metadata(), client: client, response: OP.validated())
        let expected = "Basic " + Data("my+client%3A1:s3cr%25t%2B%2F%C3%A9".utf8).base64EncodedString()
        #expect(request.headers == [HTTPHeader("Content-Type", "application/x-www-form-urlencoded"), HTTPHeader("Accept", "application/json"),
                                    HTTPHeader("Authorization", expected)])
        #expect(!formBody(request).contains { $0.name == "client_id" || $0.name == "client_secret" })
    }

    @Test("RFC 6749 §2.3.1: client_secret_post puts client_id and client_secret in the body")
    func clientSecretPost() throws {
        let client = ClientConfiguration(clientID: "conf", authentication: .clientSecretPost(ClientSecret("sec")))
        let request = try makeAuthorizationCodeTokenRequest(metadata: OP.metadata(), client: client, response: OP.validated())
        #expect(Array(formBody(request).suffix(2)) == [FormParameter("client_id", "conf"), FormParameter("client_secret", "sec")])
        #expect(!request.headers.contains { $0.name == "Authorization" })
    }

    @Test("GitHub preset: a per-provider header replaces the built one of the same name")
    func extraHeaders() throws {
        let client = ClientConfiguration(clientID: "gh", extraHeaders: [HTTPHeader("accept", "application/vnd.github+json"), HTTPHeader("X-GitHub-Api-Version", "2022-11-28")])
        let request = try makeAuthorizationCodeTokenRequest(metadata: OP.metadata(), client: client, response: OP.validated())
        #expect(request.headers == [HTTPHeader("Content-Type", "application/x-www-form-urlencoded"), HTTPHeader("accept", "application/vnd.github+json"),
                                    HTTPHeader("X-GitHub-Api-Version", "2022-11-28")])
    }

    @Test("TOK-03: a full JSON response becomes a TokenSet with absolute expiry from the injected now")
    func fullResponse() throws {
        let response = jsonResponse(["access_token": "at", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "rt",
                                     "id_token": "a.b.c", "scope": "openid profile"])
        let tokens = try processAuthorizationCodeResponse(response, pending: OP.pending(), now: testNow)
        #expect(tokens.accessToken.exposedValue == "at")
        #expect(tokens.refreshToken?.exposedValue == "rt")
        #expect(tokens.idToken?.exposedValue == "a.b.c")
        #expect(tokens.expiresAt == testNow.addingTimeInterval(3600))
        #expect(tokens.receivedAt == testNow)
        #expect(tokens.grantedScopes == ["openid", "profile"])
        #expect(tokens.scopeWasReturned)
    }

    @Test("TOK-04, RFC 6749 §5.1: token_type is case-insensitive", arguments: ["bearer", "BEARER", "bEARER", "Bearer"])
    func tokenTypeCase(_ type: String) throws {
        #expect(try parseTokenResponse(jsonResponse(["access_token": "at", "token_type": type]), now: testNow).tokenType == type)
    }

    @Test("TOK-05, RFC 6749 §7.1: an unknown token_type is rejected; the access token is never used", arguments: ["mac", "N_A"])
    func tokenTypeUnknown(_ type: String) {
        #expect(authError { try parseTokenResponse(jsonResponse(["access_token": "at", "token_type": type]), now: testNow) } == .unsupported(.tokenType(type)))
    }

    @Test("TOK-05 (leniency): token_type absent or empty is taken as Bearer with a visible warning", arguments: [Optional<String>.none, ""])
    func tokenTypeMissingIsBearer(_ type: String?) throws {
        var object: [String: Any] = ["access_token": "at", "expires_in": 60]
        object["token_type"] = type
        let parsed = try parseTokenResponse(jsonResponse(object), now: testNow)
        #expect(parsed.tokenType == "Bearer")
        #expect(parsed.warnings == [.tokenTypeMissingAssumedBearer])
        #expect(parsed.expiresIn == 60)
    }

    @Test("TOK-05: a token_type that is not a string is still refused")
    func tokenTypeWrongType() {
        #expect(authError { try parseTokenResponse(jsonResponse(["access_token": "at", "token_type": 1]), now: testNow) }
            == .protocolViolation(.invalidField(name: "token_type", expected: "a string")))
    }

    @Test("TOK-06: access_token absent or empty is rejected", arguments: [["token_type": "Bearer"], ["token_type": "Bearer", "access_token": ""]])
    func accessTokenMissing(_ object: [String: String]) {
        #expect(authError { try parseTokenResponse(jsonResponse(object), now: testNow) } == .protocolViolation(.missingField("access_token")))
    }

    @Test("TOK-06, GitHub: an error member means failure whatever the HTTP status", arguments: [200, 400, 401])
    func errorMemberAnyStatus(_ status: Int) throws {
        let response = HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: try fixture("token/github-error-200.json"))
        let error = authError { try parseTokenResponse(response, now: testNow) }
        guard case .errorResponse(let body) = error else { Issue.record("expected errorResponse"); return }
        #expect(body.code == .other("bad_verification_code"))
        #expect(body.status == status)
        #expect(body.uri?.hasPrefix("https://docs.github.com/") == true)
    }

    @Test("TOK-07, TOK-08: expires_in and scope absent → unknown lifetime, scopes as requested")
    func minimalResponse() throws {
        let tokens = try processAuthorizationCodeResponse(jsonResponse(["access_token": "at", "token_type": "Bearer"]),
                                                          pending: OP.pending(scopes: ["repo"]), now: testNow)
        #expect(tokens.expiresAt == nil)
        #expect(tokens.grantedScopes == ["repo"])
        #expect(!tokens.scopeWasReturned)
    }

    @Test("TOK-09: no id_token for an openid request is rejected")
    func idTokenMissing() {
        #expect(authError { try processAuthorizationCodeResponse(jsonResponse(["access_token": "at", "token_type": "Bearer"]), pending: OP.pending(), now: testNow) }
            == .protocolViolation(.missingField("id_token")))
    }

    @Test("TOK-10: unknown members ignored, numeric-string expires_in accepted, null treated as absent")
    func lenientMembers() throws {
        let body = #"{"access_token":"at","token_type":"Bearer","expires_in":"3600","refresh_token":null,"foo":1,"id_token":null}"#
        let parsed = try parseTokenResponse(textResponse(body, contentType: "application/json"), now: testNow)
        #expect(parsed.expiresIn == 3600)
        #expect(parsed.refreshToken == nil)
        #expect(parsed.idToken == nil)
    }

    @Test("TOK-10 (leniency): an expires_in that is not a usable number means expiry unknown, with a warning, never 0",
          arguments: [#""soon""#, "-5", "1.5", "true", "{}", "1e12", #""9223372036854775807""#, #""2147483648""#])
    func badExpiresIn(_ value: String) throws {
        let body = #"{"access_token":"at","token_type":"Bearer","expires_in":"# + value + "}"
        let parsed = try parseTokenResponse(textResponse(body, contentType: "application/json"), now: testNow)
        #expect(parsed.expiresIn == nil)
        #expect(parsed.warnings == [.expiresInUnusable])
        let tokens = TokenSet(response: parsed, requestedScopes: [], now: testNow)
        #expect(tokens.expiresAt == nil)
        #expect(tokens.warnings == [.expiresInUnusable])
    }

    @Test("TOK-07: a clean response carries no warnings; an absent expires_in is not a warning")
    func noWarnings() throws {
        #expect(try parseTokenResponse(jsonResponse(["access_token": "at", "token_type": "Bearer"]), now: testNow).warnings.isEmpty)
        #expect(try parseTokenResponse(jsonResponse(["access_token": "at", "token_type": "Bearer", "expires_in": 3600]), now: testNow).warnings.isEmpty)
    }

    @Test("Leniency: both at once in the code exchange; the TokenSet keeps the warnings and the tokens")
    func codeExchangeWarnings() throws {
        let body = #"{"access_token":"at","expires_in":"soon","refresh_token":"rt","refresh_expires_in":"later"}"#
        let tokens = try processAuthorizationCodeResponse(textResponse(body, contentType: "application/json"), pending: OP.pending(scopes: ["repo"]), now: testNow)
        #expect(tokens.tokenType == "Bearer")
        #expect(tokens.expiresAt == nil)
        #expect(tokens.refreshToken?.exposedValue == "rt")
        #expect(tokens.refreshExpiresAt == nil)
        #expect(tokens.warnings == [.tokenTypeMissingAssumedBearer, .expiresInUnusable, .refreshExpiresInUnusable(field: "refresh_expires_in")])
    }

    @Test("Leniency: a refresh response without token_type and with a bad expires_in succeeds with warnings")
    func refreshWarnings() throws {
        let body = #"{"access_token":"new-at","expires_in":"3600s"}"#
        let tokens = try processRefreshResponse(textResponse(body, contentType: "application/json"), previous: RefreshTests.previous, now: testNow)
        #expect(tokens.accessToken.exposedValue == "new-at")
        #expect(tokens.refreshToken == RefreshTests.previous.refreshToken)
        #expect(tokens.expiresAt == nil)
        #expect(tokens.warnings == [.tokenTypeMissingAssumedBearer, .expiresInUnusable])
    }

    @Test("Leniency: each warning has a one-line message naming the field, without the value sent")
    func warningMessages() {
        #expect(TokenResponseWarning.tokenTypeMissingAssumedBearer.message.contains("token_type"))
        #expect(TokenResponseWarning.expiresInUnusable.message.contains("expires_in"))
        #expect(TokenResponseWarning.refreshExpiresInUnusable(field: "refresh_expires_in").message.contains("refresh_expires_in"))
    }

    @Test("Leniency: warnings are not persisted with the token set (they describe one response)")
    func warningsNotPersisted() throws {
        var tokens = RefreshTests.previous
        tokens.warnings = [.expiresInUnusable]
        let decoded = try JSONDecoder().decode(TokenSet.self, from: JSONEncoder().encode(tokens))
        #expect(decoded.warnings.isEmpty)
        #expect(decoded.accessToken == tokens.accessToken)
    }

    @Test("RFC 6749 §5.1: scope as a space-separated string, a comma list (GitHub), an array", arguments: [
        (#""openid profile""#, ["openid", "profile"]), (#""repo,gist""#, ["repo", "gist"]), (#"["a","b"]"#, ["a", "b"]), (#""""#, []),
    ])
    func scopeShapes(_ json: String, _ expected: [String]) throws {
        let body = #"{"access_token":"at","token_type":"Bearer","scope":"# + json + "}"
        #expect(try parseTokenResponse(textResponse(body, contentType: "application/json"), now: testNow).scope == expected)
    }

    @Test("TOK-12: text/html or invalid JSON is rejected", arguments: [
        (textResponse("<html>portal</html>", contentType: "text/html"), AuthError.protocolViolation(.unexpectedContentType(expected: "application/json", actual: "text/html"))),
        (textResponse("{oops", contentType: "application/json"), AuthError.protocolViolation(.malformedJSON(context: "token response"))),
        (textResponse("", contentType: nil), AuthError.protocolViolation(.unexpectedContentType(expected: "application/json", actual: nil))),
    ])
    func invalidBodies(_ response: HTTPResponse, _ expected: AuthError) {
        #expect(authError { try parseTokenResponse(response, now: testNow) } == expected)
    }

    @Test("TOK-13: a 307 from the token endpoint is not followed and fails", arguments: [307, 308])
    func redirectsFail(_ status: Int) {
        let response = HTTPResponse(status: status, headers: ["Location": "https://attacker.test/token"])
        #expect(authError { try parseTokenResponse(response, url: "https://op.test/token", now: testNow) }
            == .httpStatus(HTTPStatusFailure(status: status, url: "https://op.test/token")))
    }

    @Test("5xx without OAuth body is transient and honours Retry-After")
    func serverErrorTransient() {
        let response = HTTPResponse(status: 503, headers: ["Retry-After": "10", "Content-Type": "text/html"], body: Data("<h1>busy</h1>".utf8))
        let error = authError { try parseTokenResponse(response, url: "https://op.test/token", now: testNow) }
        #expect(error == .httpStatus(HTTPStatusFailure(status: 503, url: "https://op.test/token", retryAfter: 10)))
        #expect(error?.isTransient == true)
        #expect(error?.retryAfter == 10)
    }

    // MARK: provider quirks

    @Test("GitHub: form-encoded body when Content-Type says so, comma-separated scope")
    func githubForm() throws {
        let response = HTTPResponse(status: 200, headers: ["Content-Type": "application/x-www-form-urlencoded; charset=utf-8"],
                                    body: try fixture("token/github-form.txt"))
        let parsed = try parseTokenResponse(response, now: testNow)
        #expect(parsed.accessToken.exposedValue.hasPrefix("gho_"))
        #expect(parsed.scope == ["repo", "gist"])
        #expect(parsed.expiresIn == nil)
    }

    @Test("GitHub App: refresh_token_expires_in becomes refreshExpiresAt")
    func githubAppRefreshExpiry() throws {
        let response = HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: try fixture("token/github-app-json.json"))
        let tokens = TokenSet(response: try parseTokenResponse(response, now: testNow), requestedScopes: [], now: testNow)
        #expect(tokens.expiresAt == testNow.addingTimeInterval(28800))
        #expect(tokens.refreshExpiresAt == testNow.addingTimeInterval(15_811_200))
    }

    @Test("Entra v1: expires_in as a string")
    func entraStringExpiry() throws {
        let response = HTTPResponse(status: 200, headers: ["Content-Type": "application/json; charset=utf-8"], body: try fixture("token/entra-v1.json"))
        #expect(try parseTokenResponse(response, now: testNow).expiresIn == 3599)
    }

    @Test("Keycloak: refresh_expires_in becomes refreshExpiresAt")
    func keycloakRefreshExpiry() throws {
        let response = HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: try fixture("token/keycloak.json"))
        let tokens = try processAuthorizationCodeResponse(response, pending: OP.pending(), now: testNow)
        #expect(tokens.refreshExpiresAt == testNow.addingTimeInterval(1800))
        #expect(tokens.grantedScopes == ["openid", "email", "profile"])
    }

    @Test("Auth0: API scopes kept as granted")
    func auth0Scopes() throws {
        let response = HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: try fixture("token/auth0.json"))
        let tokens = try processAuthorizationCodeResponse(response, pending: OP.pending(), now: testNow)
        #expect(tokens.grantedScopes.contains("read:events"))
    }
}
