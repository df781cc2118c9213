import Foundation
import Testing
@testable import AuthEngine

@Suite("Revocation (RFC 7009), introspection (RFC 7662), RP-initiated logout")
struct SessionEndTests {
    static let tokens = TokenSet(accessToken: AccessToken("at-1"), tokenType: "Bearer", refreshToken: RefreshToken("rt-1"), idToken: RawIDToken("h.p.s"),
                                 receivedAt: testNow, expiresAt: nil, refreshExpiresAt: nil, grantedScopes: ["openid"], scopeWasReturned: false)

    @Test("RFC 7009 §2.1: exact revocation request with token_type_hint", arguments: [
        (TokenReference.refreshToken(RefreshToken("rt-1")), "rt-1", "refresh_token"), (.accessToken(AccessToken("at-1")), "at-1", "access_token"),
    ])
    func revocationRequest(_ token: TokenReference, _ value: String, _ hint: String) throws {
        let request = try makeRevocationRequest(metadata: OP.metadata(), client: OP.client, token: token)
        #expect(request.method == .post)
        #expect(request.url.absoluteString == "https://op.test/revoke")
        #expect(request.headers == [HTTPHeader("Content-Type", "application/x-www-form-urlencoded"), HTTPHeader("Accept", "application/json")])
        #expect(formBody(request) == [FormParameter("token", value), FormParameter("token_type_hint", hint), FormParameter("client_id", "rp-native")])
    }

    @Test("REV-02/03/04: outcomes of revocation responses", arguments: [
        (HTTPResponse(status: 200), RevocationOutcome.revoked),
        (textResponse("{}", contentType: "application/json"), .revoked),
        (jsonResponse(["error": "unsupported_token_type"], status: 400), .unsupportedTokenType),
        (HTTPResponse(status: 503, headers: ["Retry-After": "10"]), .serviceUnavailable(retryAfter: 10)),
        (jsonResponse(["error": "temporarily_unavailable"], status: 503), .serviceUnavailable(retryAfter: nil)),
    ])
    func revocationOutcomes(_ response: HTTPResponse, _ expected: RevocationOutcome) throws {
        #expect(try processRevocationResponse(response, now: testNow) == expected)
    }

    @Test("REV-04: invalid_client is reported as an error response")
    func revocationInvalidClient() {
        #expect(authError { try processRevocationResponse(jsonResponse(["error": "invalid_client"], status: 401), now: testNow) }
            == .errorResponse(OAuthErrorResponse(code: .invalidClient, status: 401)))
    }

    @Test("REV-05: no revocation_endpoint is typed")
    func noRevocationEndpoint() async {
        var metadata = OP.metadata()
        metadata.revocationEndpoint = nil
        #expect(authError { try makeRevocationRequest(metadata: metadata, client: OP.client, token: .accessToken(AccessToken("x"))) }
            == .unsupported(.missingEndpoint("revocation_endpoint")))
        let error = await asyncAuthError { try await revokeTokens(metadata: metadata, client: OP.client, tokens: Self.tokens, http: StubHTTPClient().client, now: testNow) }
        #expect(error == .unsupported(.missingEndpoint("revocation_endpoint")))
    }

    @Test("Revoke the refresh token, then the access token; each outcome reported")
    func revokeOrder() async throws {
        let stub = StubHTTPClient()
        stub.on(.post, "https://op.test/revoke", respond: HTTPResponse(status: 200), jsonResponse(["error": "unsupported_token_type"], status: 400))
        let report = try await revokeTokens(metadata: OP.metadata(), client: OP.client, tokens: Self.tokens, http: stub.client, now: testNow)
        #expect(report == RevocationReport(refreshToken: .success(.revoked), accessToken: .success(.unsupportedTokenType)))
        #expect(stub.requests.map { formBody($0).first { $0.name == "token_type_hint" }?.value } == ["refresh_token", "access_token"])
    }

    // MARK: introspection

    @Test("INT-01, RFC 7662 §2.1: exact introspection request")
    func introspectionRequest() throws {
        let request = try makeIntrospectionRequest(metadata: OP.metadata(), client: OP.client, token: .accessToken(AccessToken("at-1")))
        #expect(request.url.absoluteString == "https://op.test/introspect")
        #expect(formBody(request) == [FormParameter("token", "at-1"), FormParameter("token_type_hint", "access_token"), FormParameter("client_id", "rp-native")])
    }

    @Test("RFC 7662 §2.2: active, exp, scope, client_id, sub")
    func introspectionActive() throws {
        let response = jsonResponse(["active": true, "exp": testNow.timeIntervalSince1970 + 60, "scope": "openid read", "client_id": "rp-native", "sub": "alice", "extra": 1])
        let result = try processIntrospectionResponse(response, now: testNow)
        #expect(result.active)
        #expect(result.isActive(now: testNow))
        #expect(result.scope == ["openid", "read"])
        #expect(result.clientID == "rp-native")
        #expect(result.subject == "alice")
        #expect(result.all["extra"] == .number(1))
    }

    @Test("INT-04: active with a past exp counts as inactive")
    func introspectionPastExp() throws {
        let result = try processIntrospectionResponse(jsonResponse(["active": true, "exp": testNow.timeIntervalSince1970 - 1]), now: testNow)
        #expect(!result.isActive(now: testNow))
        #expect(try !processIntrospectionResponse(jsonResponse(["active": false]), now: testNow).isActive(now: testNow))
    }

    @Test("INT-04, RFC 7662 §2.2: an inactive answer shows only active false — never the other members sent; active past exp likewise")
    func inactiveShowsOnlyActiveFalse() throws {
        let inactive = try processIntrospectionResponse(jsonResponse(["active": false, "scope": "openid admin", "sub": "alice", "username": "alice",
                                                                      "client_id": "rp-native"]), now: testNow)
        #expect(inactive.shownMembers(now: testNow) == ["active": .bool(false)])
        let expired = try processIntrospectionResponse(jsonResponse(["active": true, "exp": testNow.timeIntervalSince1970 - 1, "sub": "alice"]), now: testNow)
        #expect(expired.shownMembers(now: testNow) == ["active": .bool(false)])
        let active = try processIntrospectionResponse(jsonResponse(["active": true, "sub": "alice"]), now: testNow)
        #expect(active.shownMembers(now: testNow) == ["active": .bool(true), "sub": .string("alice")])
    }

    @Test("INT-03: active as a string, no active, or non-JSON is an error", arguments: [
        (jsonResponse(["active": "true"]), AuthError.protocolViolation(.invalidField(name: "active", expected: "a boolean"))),
        (jsonResponse([String: String]()), .protocolViolation(.missingField("active"))),
        (textResponse("nope", contentType: "text/plain"), .protocolViolation(.unexpectedContentType(expected: "application/json", actual: "text/plain"))),
    ])
    func introspectionInvalid(_ response: HTTPResponse, _ expected: AuthError) {
        #expect(authError { try processIntrospectionResponse(response, now: testNow) } == expected)
    }

    @Test("INT-04: 401/403 is an error, not an inactive token")
    func introspectionUnauthorized() {
        #expect(authError { try processIntrospectionResponse(HTTPResponse(status: 403), now: testNow) }
            == .httpStatus(HTTPStatusFailure(status: 403, url: "introspection_endpoint")))
    }

    // MARK: RP-initiated logout

    static func pendingLogout() throws -> PendingEndSession {
        let crypto = TestCrypto(random: [Data(repeating: 0xC3, count: 32)])
        return try makeEndSessionRequest(metadata: OP.metadata(), client: OP.client, idTokenHint: RawIDToken("h.p.s"),
                                         postLogoutRedirectURI: URL(string: "http://127.0.0.1:50000/logout")!, crypto: crypto.provider)
    }

    @Test("LOG-01: end-session URL with id_token_hint, client_id, post_logout_redirect_uri and a fresh state")
    func endSessionURL() throws {
        let pending = try Self.pendingLogout()
        let state = Base64URL.encode(Data(repeating: 0xC3, count: 32))
        #expect(pending.url.absoluteString == "https://op.test/logout?id_token_hint=h.p.s&client_id=rp-native"
            + "&post_logout_redirect_uri=http%3A%2F%2F127.0.0.1%3A50000%2Flogout&state=\(state)")
        #expect(pending.state == state)
        #expect(!String(describing: pending).contains("h.p.s"))
    }

    @Test("LOG-01, RP-Initiated Logout 1.0 §2 by POST (Auth0): the form carries id_token_hint, client_id, post_logout_redirect_uri and state; the pending URL holds no hint")
    func endSessionForm() throws {
        let crypto = TestCrypto(random: [Data(repeating: 0xC3, count: 32)])
        let (pending, page) = try makeEndSessionForm(metadata: OP.metadata(), client: OP.client, idTokenHint: RawIDToken("h.p.s"),
                                                     postLogoutRedirectURI: URL(string: "http://127.0.0.1:50000/logout")!, crypto: crypto.provider)
        let state = Base64URL.encode(Data(repeating: 0xC3, count: 32))
        #expect(pending.url.absoluteString == "https://op.test/logout" && pending.state == state)
        guard case .postForm(_, _, let action, let fields) = page else { Issue.record("\(page)"); return }
        #expect(action.absoluteString == "https://op.test/logout")
        #expect(fields == [FormParameter("id_token_hint", "h.p.s"), FormParameter("client_id", "rp-native"),
                           FormParameter("post_logout_redirect_uri", "http://127.0.0.1:50000/logout"), FormParameter("state", state)])
    }

    @Test("LOG-04: no end_session_endpoint is typed")
    func noEndSession() {
        var metadata = OP.metadata()
        metadata.endSessionEndpoint = nil
        #expect(authError { try makeEndSessionRequest(metadata: metadata, client: OP.client, idTokenHint: nil, postLogoutRedirectURI: nil, crypto: TestCrypto().provider) }
            == .unsupported(.missingEndpoint("end_session_endpoint")))
    }

    @Test("LOG-05: without a post_logout_redirect_uri none is sent")
    func noPostLogoutRedirect() throws {
        let pending = try makeEndSessionRequest(metadata: OP.metadata(), client: OP.client, idTokenHint: RawIDToken("h.p.s"), postLogoutRedirectURI: nil,
                                                crypto: TestCrypto().provider)
        #expect(!pending.url.absoluteString.contains("post_logout_redirect_uri"))
        #expect(pending.postLogoutRedirectURI == nil)
    }

    @Test("LOG-02: the post-logout redirect with the sent state confirms")
    func logoutConfirmed() throws {
        let pending = try Self.pendingLogout()
        try validateEndSessionCallback(OP.callback([("state", pending.state)], path: "/logout"), pending: pending)
        let decision = decideEndSessionCallback(OP.callback([("state", pending.state)], path: "/logout"), pending: pending)
        guard case .finish(page: .success) = decision.verdict else { Issue.record("expected success page"); return }
    }

    @Test("LOG-03: another state or none is not a confirmation; the listener keeps waiting for the real one", arguments: [Optional("other"), nil])
    func logoutNotConfirmed(_ state: String?) throws {
        let pending = try Self.pendingLogout()
        let callback = OP.callback(state.map { [("state", $0)] } ?? [], path: "/logout")
        #expect(authError { try validateEndSessionCallback(callback, pending: pending) }
            == .protocolViolation(.endSessionStateMismatch(expected: pending.state, actual: state)))
        // Not for this logout (any local process can send it): ignored, not an end of the flow.
        #expect(decideEndSessionCallback(callback, pending: pending).verdict == .ignore)
    }

    @Test("Logout listener ignores other paths")
    func logoutIgnoresOtherPaths() throws {
        let pending = try Self.pendingLogout()
        #expect(decideEndSessionCallback(OP.callback([("state", pending.state)], path: "/favicon.ico"), pending: pending).verdict == .ignore)
    }
}
