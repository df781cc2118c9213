// The session lifecycle of the engine end to end against the real local OpenID provider
//: refresh with rotation and reuse detection (RFC 6749 §6), the device authorization
// grant approved, denied, expired and slowed down (RFC 8628), revocation then introspection
// (RFC 7009, RFC 7662), and RP-Initiated Logout 1.0. No mocks: libcurl, libcrypto, POSIX
// sockets and the provider's real pages. Tokens are compared, never printed.
import AuthEngine
import AuthEngineLive
import Foundation
import Testing
import TestSupport

// MARK: Helpers

/// A completed code-flow sign-in: the token set and its verified ID token.
private struct LifecycleSignIn {
    let tokens: TokenSet
    let idToken: VerifiedIDToken
    /// The browser stand-in's result (exit code and log; the log holds no secrets).
    let browser: LocalIdentityProvider.ToolResult
}

extension EngineSignIn {
    /// Signs `user` in through the provider's real pages (code flow + PKCE over the loopback
    /// listener), exchanges the code and verifies the ID token. `cookieJar` keeps the provider
    /// session so that a later end-session request finds it.
    fileprivate func signIn(user: String, cookieJar: URL? = nil,
                scopes: [String] = ["openid", "profile", "email", "offline_access"]) async throws -> LifecycleSignIn {
        let listener = try LoopbackRedirectListener()
        let pending = try makeAuthorizationRequest(
            metadata: metadata, client: client, request: AuthorizationRequest(scopes: scopes, redirectURI: listener.redirectURI), crypto: crypto)
        let metadata = self.metadata
        async let callback = listener.waitForCallback(timeout: 60) { decideRedirectCallback($0, pending: pending, metadata: metadata).verdict }
        let browser = try await provider.runBrowser(url: pending.authorizationURL, user: user, cookieJar: cookieJar)
        let received = try await callback
        try #require(browser.exitCode == 0, "browser stand-in: \(browser.stderr)")
        let validated = try validateAuthorizationResponse(callback: received, pending: pending, metadata: metadata)
        let result = try await completeAuthorizationCodeGrant(
            metadata: metadata, client: client, response: validated, http: http, crypto: crypto,
            jwksCache: JWKSCache(metadata: metadata, http: http), now: Date())
        let idToken = try #require(result.idToken)
        return LifecycleSignIn(tokens: result.tokens, idToken: idToken, browser: browser)
    }
}

/// Runs an engine call and keeps its typed outcome, so that tests can assert on the error case.
private func authOutcome<T>(_ body: () async throws(AuthError) -> T) async -> Result<T, AuthError> {
    do throws(AuthError) {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}

/// Records the waits the device poller asks for (seconds) and really waits, so the provider
/// sees real timing. `tooEarlyAt` (0-based call index) makes that one wait 50 ms instead.
private actor SleepRecorder {
    private(set) var requested: [TimeInterval] = []

    private func record(_ seconds: TimeInterval) -> Int {
        requested.append(seconds)
        return requested.count - 1
    }

    nonisolated func sleeper(tooEarlyAt early: Int? = nil) -> @Sendable (TimeInterval) async throws -> Void {
        { seconds in
            let index = await self.record(seconds)
            try await Task.sleep(for: .seconds(index == early ? 0.05 : seconds))
        }
    }

    /// Waits until at least `count` waits were asked for; throws after `timeout` seconds.
    func waitForRequests(_ count: Int, timeout: TimeInterval) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while requested.count < count {
            guard Date() < deadline else { throw LifecycleTestError.timedOut("\(count) sleep requests") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}

private enum LifecycleTestError: Error {
    case timedOut(String)
}

/// A provider for this file's device and end-session tests: 1 s device interval and RFC 8628
/// §3.5 `slow_down` enforced (a poll sooner than the interval in force gets `slow_down`).
/// Started on first use; FixtureProcess stops it (by process group) when the test process exits.
private actor LifecycleProvider {
    private var starting: Task<LocalIdentityProvider, any Error>?

    func provider() async throws -> LocalIdentityProvider {
        if let starting { return try await starting.value }
        let task = Task { try await LocalIdentityProvider.start(deviceInterval: 1, deviceSlowDown: true) }
        starting = task
        return try await task.value
    }

    static let shared = LifecycleProvider()
}

/// A refresh through the engine's steps (RFC 6749 §6, OIDC Core §12.2): the request, the
/// response with rotation applied, and a new ID token validated against the original.
private struct RefreshedGrant {
    var tokens: TokenSet
    var idToken: VerifiedIDToken?
}

private func refreshGrant(_ engine: EngineSignIn, tokens: TokenSet, original: IDTokenClaims, jwks: JWKSCache) async throws(AuthError) -> RefreshedGrant {
    guard let refreshToken = tokens.refreshToken else { throw .protocolViolation(.missingField("refresh_token")) }
    let request = try makeRefreshTokenRequest(metadata: engine.metadata, client: engine.client, refreshToken: refreshToken)
    let response: HTTPResponse
    do throws(TransportError) { response = try await engine.http.send(request) } catch { throw .transport(error) }
    let refreshed = try processRefreshResponse(response, previous: tokens, now: Date())
    guard let raw = refreshed.idToken, raw != tokens.idToken else { return RefreshedGrant(tokens: refreshed, idToken: nil) }
    let verified = try await validateRefreshedIDToken(raw, original: original, metadata: engine.metadata, client: engine.client,
                                                      tokens: refreshed, crypto: engine.crypto, now: Date(), jwksCache: jwks)
    return RefreshedGrant(tokens: refreshed, idToken: verified)
}

/// Expects the typed "sign in again" outcome of a refresh: `invalid_grant` (RFC 6749 §5.2).
private func expectInvalidGrant(_ outcome: Result<RefreshedGrant, AuthError>, _ what: Comment, sourceLocation: SourceLocation = #_sourceLocation) {
    guard case .failure(let error) = outcome else {
        Issue.record("\(what): the refresh was accepted", sourceLocation: sourceLocation)
        return
    }
    #expect(error.invalidatesGrant, "\(what): \(error)", sourceLocation: sourceLocation)
    #expect(!error.isTransient, "\(what): never retried", sourceLocation: sourceLocation)
    guard case .errorResponse(let response) = error else {
        Issue.record("\(what): expected an invalid_grant error response, got \(error)", sourceLocation: sourceLocation)
        return
    }
    #expect(response.code == .invalidGrant, "\(what)", sourceLocation: sourceLocation)
}

// MARK: Tests

@Suite("Session lifecycle against the real local provider", .serialized, .timeLimit(.minutes(2)))
struct LifecycleTests {
    // MARK: Refresh

    @Test("RFC 6749 §6 + OIDC Core §12.2: refresh rotates the refresh token; the refreshed ID token keeps sub and iss; reusing the previous refresh token is invalid_grant and revokes the newest too")
    func refreshRotatesAndDetectsReuse() async throws {
        let engine = try await EngineSignIn(provider: try await LocalIdentityProvider.shared.provider())
        let first = try await engine.signIn(user: "alice")
        let firstRefresh = try #require(first.tokens.refreshToken)
        let jwks = JWKSCache(metadata: engine.metadata, http: engine.http)

        let refreshed = try await refreshGrant(engine, tokens: first.tokens, original: first.idToken.claims, jwks: jwks)
        #expect(refreshed.tokens.accessToken != first.tokens.accessToken, "a new access token")
        let newRefresh = try #require(refreshed.tokens.refreshToken, "the provider rotates: a new refresh token comes back")
        #expect(newRefresh != firstRefresh, "rotation: the new refresh token differs from the previous one")
        #expect(refreshed.tokens.expiresAt.map { $0 > Date() } == true)
        let newIDToken = try #require(refreshed.idToken, "the refresh returned an ID token and the engine validated it")
        #expect(newIDToken.raw != first.idToken.raw)
        #expect(newIDToken.claims.subject == first.idToken.claims.subject)
        #expect(newIDToken.claims.issuer == first.idToken.claims.issuer)
        #expect(newIDToken.claims.audience.contains(engine.client.clientID))
        #expect(refreshed.tokens.idToken == newIDToken.raw)

        // The new access token works; the provider revoked the old one at once.
        let userinfo = try await fetchUserInfo(
            metadata: engine.metadata, client: engine.client, accessToken: refreshed.tokens.accessToken,
            expectedSubject: first.idToken.claims.subject, http: engine.http, now: Date())
        #expect(userinfo.subject == "1")
        let oldAccess = try await introspectToken(
            metadata: engine.metadata, client: engine.client, token: .accessToken(first.tokens.accessToken), http: engine.http, now: Date())
        #expect(!oldAccess.active)

        // The previous refresh token reused: typed invalid_grant, never retried.
        let reuse = await authOutcome { () async throws(AuthError) in
            try await refreshGrant(engine, tokens: first.tokens, original: first.idToken.claims, jwks: jwks)
        }
        expectInvalidGrant(reuse, "the previous refresh token reused")

        // Reuse detection: the whole family is revoked, the newest refresh token included.
        let newest = await authOutcome { () async throws(AuthError) in
            try await refreshGrant(engine, tokens: refreshed.tokens, original: first.idToken.claims, jwks: jwks)
        }
        expectInvalidGrant(newest, "the newest refresh token after the reuse")
    }

    // MARK: Device authorization grant

    @Test("RFC 8628 §3.1–3.5: a device request approved as bob on the provider's pages yields tokens; the ID token validates; the engine's own schedule never provokes slow_down")
    func deviceFlowApprovedAsBob() async throws {
        let idp = try await LifecycleProvider.shared.provider()
        let engine = try await EngineSignIn(provider: idp)
        let (metadata, client, http) = (engine.metadata, engine.client, engine.http)
        let authorization = try await startDeviceAuthorization(
            metadata: metadata, client: client, scopes: ["openid", "profile", "email"], http: http, now: Date())
        let response = authorization.response
        #expect(!response.userCode.isEmpty)
        #expect(response.verificationURI == idp.endpoints.verification)
        let complete = try #require(response.verificationURIComplete)
        #expect(URLComponents(url: complete, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "user_code" }?.value == response.userCode)
        #expect(response.interval == 1)
        #expect(response.expiresIn == idp.deviceCodeLifetime)
        #expect(!authorization.verificationURIIsSuspicious)

        let recorder = SleepRecorder()
        async let outcome = pollDeviceToken(
            metadata: metadata, client: client, authorization: authorization, http: http, now: { Date() }, sleep: recorder.sleeper())
        let approval = try await idp.approveDevice(userCode: response.userCode, user: "bob")
        try #require(approval.exitCode == 0, "approve-device: \(approval.stderr)")
        let result = try await outcome
        guard case .authorized(let tokens) = result else {
            Issue.record("expected tokens after approval, got \(result)")
            return
        }
        let sleeps = await recorder.requested
        #expect(!sleeps.isEmpty)
        #expect(sleeps.allSatisfy { $0 <= 1.0 }, "the interval never grew: \(sleeps)")

        let raw = try #require(tokens.idToken, "the provider issues an ID token for openid")
        let idToken = try await validateIDToken(
            raw, options: IDTokenValidationOptions(deviceGrantFor: metadata, client: client, tokens: tokens),
            crypto: engine.crypto, now: Date(), jwksCache: JWKSCache(metadata: metadata, http: http))
        #expect(idToken.claims.subject == "2")
        #expect(idToken.claims.issuer == idp.issuer.absoluteString)
        #expect(idToken.claims.nonce == nil)
        #expect(idToken.claims.all["preferred_username"] == .string("bob"))
        let userinfo = try await fetchUserInfo(
            metadata: metadata, client: client, accessToken: tokens.accessToken, expectedSubject: "2", http: http, now: Date())
        #expect(userinfo.claims["email"] == .string("bob@example.test"))
    }

    @Test("RFC 8628 §3.5: bob denies the device request; polling stops with the access_denied outcome")
    func deviceFlowDenied() async throws {
        let idp = try await LifecycleProvider.shared.provider()
        let engine = try await EngineSignIn(provider: idp)
        let (metadata, client, http) = (engine.metadata, engine.client, engine.http)
        let authorization = try await startDeviceAuthorization(metadata: metadata, client: client, scopes: ["openid"], http: http, now: Date())

        let recorder = SleepRecorder()
        async let outcome = pollDeviceToken(
            metadata: metadata, client: client, authorization: authorization, http: http, now: { Date() }, sleep: recorder.sleeper())
        let denial = try await idp.approveDevice(userCode: authorization.response.userCode, user: "bob", deny: true)
        try #require(denial.exitCode == 0, "approve-device --deny: \(denial.stderr)")
        let result = try await outcome
        guard case .denied(let error) = result else {
            Issue.record("expected a denial, got \(result)")
            return
        }
        #expect(error.code == .accessDenied)
    }

    @Test("RFC 8628 §3.5: a device code left to expire ends polling with the expired outcome; the provider then answers expired_token")
    func deviceCodeExpires() async throws {
        let idp = try await LocalIdentityProvider.start(deviceCodeLifetime: 3, deviceInterval: 1)
        defer { Task { await idp.stop() } }
        let engine = try await EngineSignIn(provider: idp)
        let (metadata, client, http) = (engine.metadata, engine.client, engine.http)
        let authorization = try await startDeviceAuthorization(metadata: metadata, client: client, scopes: ["openid"], http: http, now: Date())
        #expect(authorization.response.expiresIn == 3)

        let recorder = SleepRecorder()
        let outcome = try await pollDeviceToken(
            metadata: metadata, client: client, authorization: authorization, http: http, now: { Date() }, sleep: recorder.sleeper())
        #expect(outcome == .expired)
        #expect(Date() < authorization.expiresAt.addingTimeInterval(2), "polling stopped at the device code's expiry")
        let polls = await recorder.requested
        #expect(!polls.isEmpty, "it polled (authorization_pending) before the code expired")

        // The provider agrees: a poll after the expiry is answered expired_token.
        let wait = authorization.expiresAt.timeIntervalSinceNow + 0.5
        if wait > 0 { try await Task.sleep(for: .seconds(wait)) }
        let request = try makeDeviceAccessTokenRequest(metadata: metadata, client: client, deviceCode: authorization.response.deviceCode)
        let response = try await http.send(request)
        let late = await authOutcome { () throws(AuthError) in try parseTokenResponse(response, now: Date()) }
        guard case .failure(.errorResponse(let error)) = late else {
            Issue.record("expected expired_token from the provider")
            return
        }
        #expect(error.code == .expiredToken)
    }

    @Test("RFC 8628 §3.5: a poll sooner than the interval gets slow_down; the engine adds 5 s to its interval for every later poll; approval then succeeds")
    func deviceSlowDownGrowsInterval() async throws {
        let idp = try await LifecycleProvider.shared.provider()
        #expect(idp.deviceSlowDown)
        let engine = try await EngineSignIn(provider: idp)
        let (metadata, client, http) = (engine.metadata, engine.client, engine.http)
        let authorization = try await startDeviceAuthorization(
            metadata: metadata, client: client, scopes: ["openid", "profile"], http: http, now: Date())
        #expect(authorization.response.interval == 1)

        // Poll 1 after the interval (never too soon); poll 2 only 50 ms after poll 1: slow_down.
        let recorder = SleepRecorder()
        async let outcome = pollDeviceToken(
            metadata: metadata, client: client, authorization: authorization, http: http, now: { Date() },
            sleep: recorder.sleeper(tooEarlyAt: 1))
        // The third wait is asked for after poll 2's answer; approve only then, so that poll 2
        // meets a pending grant.
        try await recorder.waitForRequests(3, timeout: 20)
        let approval = try await idp.approveDevice(userCode: authorization.response.userCode, user: "bob")
        try #require(approval.exitCode == 0, "approve-device: \(approval.stderr)")
        let result = try await outcome

        let sleeps = await recorder.requested
        try #require(sleeps.count >= 3)
        #expect(sleeps[0] <= 1.0 && sleeps[1] <= 1.0, "the advertised 1 s interval before slow_down: \(sleeps)")
        #expect(sleeps.dropFirst(2).allSatisfy { $0 > 5.5 && $0 <= 6.0 }, "1 s + 5 s after slow_down, for every later poll: \(sleeps)")
        guard case .authorized(let tokens) = result else {
            Issue.record("expected tokens after approval, got \(result)")
            return
        }
        let raw = try #require(tokens.idToken)
        let idToken = try await validateIDToken(
            raw, options: IDTokenValidationOptions(deviceGrantFor: metadata, client: client, tokens: tokens),
            crypto: engine.crypto, now: Date(), jwksCache: JWKSCache(metadata: metadata, http: http))
        #expect(idToken.claims.subject == "2")
    }

    // MARK: Revocation and introspection

    @Test("RFC 7009 then RFC 7662: revoking the refresh and access tokens makes both inactive at introspection; refreshing with the revoked refresh token is invalid_grant")
    func revokeThenIntrospect() async throws {
        let engine = try await EngineSignIn(provider: try await LocalIdentityProvider.shared.provider())
        let signedIn = try await engine.signIn(user: "alice")
        let refreshToken = try #require(signedIn.tokens.refreshToken)
        let (metadata, client, http) = (engine.metadata, engine.client, engine.http)

        // Before: both active, with the RFC 7662 members the provider fills in.
        let accessBefore = try await introspectToken(
            metadata: metadata, client: client, token: .accessToken(signedIn.tokens.accessToken), http: http, now: Date())
        #expect(accessBefore.active)
        #expect(accessBefore.isActive(now: Date()))
        #expect(accessBefore.subject == "1")
        #expect(accessBefore.clientID == client.clientID)
        #expect(accessBefore.scope.map { Set($0).isSuperset(of: ["openid", "profile", "email"]) } == true)
        #expect(accessBefore.expiresAt.map { $0 > Date() } == true)
        let refreshBefore = try await introspectToken(
            metadata: metadata, client: client, token: .refreshToken(refreshToken), http: http, now: Date())
        #expect(refreshBefore.active)

        let report = try await revokeTokens(metadata: metadata, client: client, tokens: signedIn.tokens, http: http, now: Date())
        #expect(report.refreshToken == .success(.revoked))
        #expect(report.accessToken == .success(.revoked))

        let refreshAfter = try await introspectToken(
            metadata: metadata, client: client, token: .refreshToken(refreshToken), http: http, now: Date())
        #expect(!refreshAfter.active)
        let accessAfter = try await introspectToken(
            metadata: metadata, client: client, token: .accessToken(signedIn.tokens.accessToken), http: http, now: Date())
        #expect(!accessAfter.active)
        #expect(!accessAfter.isActive(now: Date()))

        let refresh = await authOutcome { () async throws(AuthError) in
            try await refreshGrant(engine, tokens: signedIn.tokens, original: signedIn.idToken.claims, jwks: JWKSCache(metadata: metadata, http: http))
        }
        expectInvalidGrant(refresh, "refreshing with the revoked refresh token")
    }

    // MARK: End session

    @Test("RP-Initiated Logout 1.0 §2–3: the end-session URL carries id_token_hint, client_id, post_logout_redirect_uri and a fresh state; the provider confirms and redirects back with that state; a wrong state is refused")
    func endSession() async throws {
        let idp = try await LifecycleProvider.shared.provider()
        let engine = try await EngineSignIn(provider: idp)
        let jar = FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-lifecycle-\(UUID().uuidString).cookies")
        defer { try? FileManager.default.removeItem(at: jar) }
        let signedIn = try await engine.signIn(user: "alice", cookieJar: jar)
        let idTokenHint = try #require(signedIn.tokens.idToken)

        let listener = try LoopbackRedirectListener(path: "/logout-callback")
        let pending = try makeEndSessionRequest(
            metadata: engine.metadata, client: engine.client, idTokenHint: idTokenHint,
            postLogoutRedirectURI: listener.redirectURI, crypto: engine.crypto)

        // The URL: the provider's endpoint with exactly these four parameters.
        let endpoint = try #require(engine.metadata.endSessionEndpoint)
        #expect(endpoint == idp.endpoints.endSession)
        let components = try #require(URLComponents(url: pending.url, resolvingAgainstBaseURL: false))
        let endpointComponents = try #require(URLComponents(url: endpoint, resolvingAgainstBaseURL: false))
        #expect(components.scheme == endpointComponents.scheme && components.host == endpointComponents.host
                && components.port == endpointComponents.port && components.path == endpointComponents.path)
        #expect(endpointComponents.queryItems == nil, "the provider's endpoint has no query of its own")
        let items = components.queryItems ?? []
        #expect(items.map(\.name) == ["id_token_hint", "client_id", "post_logout_redirect_uri", "state"])
        func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
        let hintIsTheIDToken = value("id_token_hint") == idTokenHint.exposedValue
        #expect(hintIsTheIDToken, "id_token_hint is the ID token of the sign-in")
        #expect(value("client_id") == idp.nativeClient.clientID)
        #expect(value("post_logout_redirect_uri") == listener.redirectURI.absoluteString)
        #expect(listener.redirectURI.absoluteString.hasPrefix("http://127.0.0.1:") || listener.redirectURI.absoluteString.hasPrefix("http://[::1]:"))
        #expect(listener.redirectURI.path == "/logout-callback")
        #expect(value("state") == pending.state)
        #expect(pending.state.count == 43, "256 random bits, base64url without padding")
        #expect(pending.postLogoutRedirectURI == listener.redirectURI.absoluteString)
        let another = try makeEndSessionRequest(
            metadata: engine.metadata, client: engine.client, idTokenHint: idTokenHint,
            postLogoutRedirectURI: listener.redirectURI, crypto: engine.crypto)
        #expect(another.state != pending.state, "a fresh state per request")

        // The browser stand-in (with the sign-in's provider session) confirms the logout; the
        // provider redirects to the listener with the state.
        let decidePending = pending
        async let callback = listener.waitForCallback(timeout: 60) { decideEndSessionCallback($0, pending: decidePending).verdict }
        let browser = try await idp.runBrowser(url: pending.url, user: "alice", cookieJar: jar)
        let received = try await callback
        #expect(browser.exitCode == 0, "browser stand-in: \(browser.stderr)")
        #expect(browser.stderr.contains("logout: allow"), "the provider session existed, so the confirmation page was shown")
        #expect(received.method == "GET")
        #expect(received.path == "/logout-callback")
        #expect(received.parameters.filter { $0.name == "state" }.map(\.value) == [pending.state])
        let validation = await authOutcome { () throws(AuthError) in try validateEndSessionCallback(received, pending: pending) }
        if case .failure(let error) = validation { Issue.record("the post-logout redirect was refused: \(error)") }
        let decision = decideEndSessionCallback(received, pending: pending)
        if case .finish(page: .success) = decision.verdict {} else { Issue.record("expected the signed-out page, got \(decision.verdict)") }

        // The provider acted on it: it deleted alice's tokens.
        let access = try await introspectToken(
            metadata: engine.metadata, client: engine.client, token: .accessToken(signedIn.tokens.accessToken), http: engine.http, now: Date())
        #expect(!access.active)

        // A forged callback (wrong state, or none) is not for this logout: ignored (404, keep
        // waiting), like another path; validation itself still refuses it.
        let forgedState = "forged-" + UUID().uuidString
        let forged = RedirectCallback(method: "GET", path: "/logout-callback", parameters: [("state", forgedState)])
        let forgedDecision = decideEndSessionCallback(forged, pending: pending)
        #expect(forgedDecision.verdict == .ignore)
        #expect(forgedDecision.outcome == nil)
        let forgedValidation = await authOutcome { () throws(AuthError) in try validateEndSessionCallback(forged, pending: pending) }
        guard case .failure(.protocolViolation(.endSessionStateMismatch(let expected, let actual))) = forgedValidation else {
            Issue.record("expected an end-session state mismatch")
            return
        }
        #expect(expected == pending.state)
        #expect(actual == forgedState)
        let stateless = RedirectCallback(method: "GET", path: "/logout-callback", parameters: [])
        #expect(decideEndSessionCallback(stateless, pending: pending).verdict == .ignore)
        let elsewhere = RedirectCallback(method: "GET", path: "/favicon.ico", parameters: [("state", pending.state)])
        #expect(decideEndSessionCallback(elsewhere, pending: pending).verdict == .ignore)
    }

    @Test("RP-Initiated Logout 1.0 §2: a provider without end_session_endpoint gets the typed missing-endpoint error")
    func endSessionWithoutEndpoint() async throws {
        let engine = try await EngineSignIn(provider: try await LocalIdentityProvider.shared.provider())
        #expect(engine.metadata.endSessionEndpoint != nil)
        var metadata = engine.metadata
        metadata.endSessionEndpoint = nil
        let postLogoutRedirectURI = try #require(URL(string: "http://127.0.0.1:49152/logout-callback"))
        #expect(throws: AuthError.unsupported(.missingEndpoint("end_session_endpoint"))) {
            try makeEndSessionRequest(
                metadata: metadata, client: engine.client, idTokenHint: RawIDToken("not.a.token"),
                postLogoutRedirectURI: postLogoutRedirectURI, crypto: engine.crypto)
        }
    }
}
