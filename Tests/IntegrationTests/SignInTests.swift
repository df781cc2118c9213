// The engine end to end against the real local OpenID provider: discovery, the authorization
// code flow with PKCE over the loopback listener (the browser stand-in logs in through the
// provider's real pages), the code exchange, the ID token verified against the live JWKS, and
// userinfo. No mocks: libcurl, libcrypto and POSIX sockets as in production.
import AuthEngine
import AuthEngineLive
import Foundation
import Testing
import TestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct EngineSignIn {
    let provider: LocalIdentityProvider
    let http = CurlHTTPClient.live()
    let crypto = OpenSSLCrypto.live
    let metadata: AuthorizationServerMetadata
    let client: ClientConfiguration

    init(provider: LocalIdentityProvider) async throws {
        self.provider = provider
        metadata = try await fetchMetadata(issuer: provider.issuer.absoluteString, http: http)
        client = ClientConfiguration(clientID: provider.nativeClient.clientID)
    }

    /// Runs the browser flow as `user`, answering the consent page with `consent`; returns the
    /// listener's validated outcome.
    func authorize(user: String, consent: LocalIdentityProvider.Consent = .allow, scopes: [String] = ["openid", "profile", "email", "offline_access"])
        async throws -> (PendingAuthorization, Result<ValidatedAuthorizationResponse, AuthError>, LocalIdentityProvider.ToolResult) {
        let listener = try LoopbackRedirectListener()
        let pending = try makeAuthorizationRequest(
            metadata: metadata, client: client, request: AuthorizationRequest(scopes: scopes, redirectURI: listener.redirectURI), crypto: crypto)
        let metadata = self.metadata
        async let callback = listener.waitForCallback(timeout: 60) { decideRedirectCallback($0, pending: pending, metadata: metadata).verdict }
        let browser = try await provider.runBrowser(url: pending.authorizationURL, user: user, consent: consent)
        let received = try await callback
        let outcome = Result { () throws(AuthError) in try validateAuthorizationResponse(callback: received, pending: pending, metadata: metadata) }
        return (pending, outcome, browser)
    }
}

@Suite("Sign-in against the real local provider")
struct SignInTests {
    @Test("RFC 6749 §4.1 + RFC 7636 + RFC 8252 §7.3: alice signs in; ID token verified against the live JWKS (OIDC Core 3.1.3.7); userinfo sub matches")
    func aliceSignsIn() async throws {
        let engine = try await EngineSignIn(provider: try await LocalIdentityProvider.shared.provider())
        #expect(engine.metadata.issuer == engine.provider.issuer.absoluteString)
        #expect(engine.metadata.isLoopbackHTTP)

        let (pending, outcome, browser) = try await engine.authorize(user: "alice")
        #expect(browser.exitCode == 0, "browser stand-in: \(browser.stderr)")
        #expect(pending.redirectURI.hasPrefix("http://127.0.0.1:"))
        let validated = try outcome.get()
        #expect(validated.issuer == engine.metadata.issuer) // RFC 9207 iss came back and matched

        let jwks = JWKSCache(metadata: engine.metadata, http: engine.http)
        let result = try await completeAuthorizationCodeGrant(
            metadata: engine.metadata, client: engine.client, response: validated, http: engine.http,
            crypto: engine.crypto, jwksCache: jwks, now: Date())
        let idToken = try #require(result.idToken)
        #expect(idToken.header.algorithm == "RS256")
        #expect(idToken.header.keyID != nil && idToken.header.keyID == idToken.verifiedWith.keyID)
        #expect(idToken.claims.issuer == engine.provider.issuer.absoluteString)
        #expect(idToken.claims.audience.contains(engine.provider.nativeClient.clientID))
        #expect(idToken.claims.nonce == pending.nonce)
        #expect(idToken.claims.all["preferred_username"] == .string("alice"))
        #expect(idToken.claims.all["email"] == .string("alice@example.test"))
        #expect(result.tokens.refreshToken != nil)
        #expect(result.tokens.expiresAt != nil)
        #expect(Set(result.tokens.grantedScopes).isSuperset(of: ["openid", "profile", "email"]))

        let userinfo = try await fetchUserInfo(
            metadata: engine.metadata, client: engine.client, accessToken: result.tokens.accessToken,
            expectedSubject: idToken.claims.subject, http: engine.http, now: Date())
        #expect(userinfo.subject == idToken.claims.subject)
        #expect(userinfo.claims["name"] == .string("Alice Example"))
    }

    @Test("RFC 6749 §4.1.2.1: the user denies consent; the callback is an authorization denial, not a state error, and no code is redeemed")
    func deniedSignIn() async throws {
        let engine = try await EngineSignIn(provider: try await LocalIdentityProvider.shared.provider())
        let (_, outcome, _) = try await engine.authorize(user: "bob", consent: .deny)
        guard case .failure(.authorizationDenied(let parameters)) = outcome else {
            Issue.record("expected an authorization denial, got \(outcome)")
            return
        }
        #expect(parameters.code == .accessDenied)
        #expect(parameters.stateMatched)
    }

    @Test("ARES-02 (issue 14), RFC 6749 §10.12: a forged callback with a wrong state ends the sign-in at once with stateMismatch (no code exchange); a bare reload gets 404; a new sign-in then completes")
    func forgedCallbackEndsSignIn() async throws {
        let engine = try await EngineSignIn(provider: try await LocalIdentityProvider.shared.provider())
        let listener = try LoopbackRedirectListener()
        let pending = try makeAuthorizationRequest(
            metadata: engine.metadata, client: engine.client,
            request: AuthorizationRequest(scopes: ["openid", "profile"], redirectURI: listener.redirectURI), crypto: engine.crypto)
        let metadata = engine.metadata
        async let callback = listener.waitForCallback(timeout: 60) { decideRedirectCallback($0, pending: pending, metadata: metadata).verdict }

        func get(_ query: String?) async throws -> (Int?, String) {
            var components = URLComponents(url: listener.redirectURI, resolvingAgainstBaseURL: false)!
            components.query = query
            var request = URLRequest(url: components.url!)
            request.timeoutInterval = 30
            let (body, response) = try await URLSession.shared.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode, String(decoding: body, as: UTF8.self))
        }
        // A bare reload of the callback URL is not an authorization response: 404, keep waiting.
        #expect(try await get(nil).0 == 404)
        // Any local process (or a stale tab) can reach the port; a response without the sent state ends the sign-in.
        let (status, page) = try await get("code=x&state=wrong")
        #expect(status == 200)
        #expect(page.contains("state mismatch"))
        let received = try await callback
        #expect(throws: AuthError.protocolViolation(.stateMismatch(expected: pending.state, actual: "wrong"))) {
            try validateAuthorizationResponse(callback: received, pending: pending, metadata: metadata)
        }

        // The user starts again: the real callback completes a new sign-in.
        let (newPending, outcome, browser) = try await engine.authorize(user: "alice", scopes: ["openid", "profile"])
        #expect(browser.exitCode == 0, "browser stand-in: \(browser.stderr)")
        let result = try await completeAuthorizationCodeGrant(
            metadata: engine.metadata, client: engine.client, response: try outcome.get(), http: engine.http,
            crypto: engine.crypto, jwksCache: JWKSCache(metadata: engine.metadata, http: engine.http), now: Date())
        #expect(result.idToken?.claims.nonce == newPending.nonce)
    }
}
