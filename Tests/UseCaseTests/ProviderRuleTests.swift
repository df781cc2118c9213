import AppCore
import AuthEngine
import StrictJSON
import Foundation
import Synchronization
import Testing

// What a provider does is preset data, read by the use cases (stub environment).
@Suite("Provider rules as preset data (use case, stub environment)")
struct ProviderRuleTests {
    @Test("Auth0 (revocableTokens: refresh_token): sign-out revokes the refresh token only and says the access token cannot be revoked, with its expiry")
    func accessTokenNotRevocable() async throws {
        let world = StubWorld()
        world.files.withLock { $0.providers[0].revocableTokens = ["refresh_token"] }
        let alice = try await signedIn(world)
        let refresh = try #require(world.storedSecrets()?.refreshToken?.exposedValue)
        let expiresAt = try #require(alice.record.accessTokenExpiresAt)
        let steps = Mutex<[SignOutStepResult]>([])
        let options = SignOutOptions(localOnly: false, endSession: false)
        #expect(await SignOut(world.environment()).run(alice.record.id, options: options) { step in steps.withLock { $0.append(step) } }.removed)
        #expect(world.provider.revokedTokens == [refresh], "the access token is not sent")
        let access = try #require(steps.withLock { $0 }.first { $0.step == .revokeAccessToken })
        #expect(access.outcome == .skipped("cannot be revoked at this provider; valid until \(TimeText.absolute(expiresAt, timeZone: .utc))"))
    }

    @Test("Logto (logoutStyle endSessionWithoutRedirect): the logout page gets client_id, no post_logout_redirect_uri, and the step says nothing comes back")
    func endSessionWithoutRedirect() async throws {
        let world = StubWorld()
        world.files.withLock { $0.providers[0].logoutStyle = .endSessionWithoutRedirect }
        let alice = try await signedIn(world)
        let steps = Mutex<[SignOutStepResult]>([])
        #expect(await SignOut(world.environment()).run(alice.record.id, options: SignOutOptions()) { step in steps.withLock { $0.append(step) } }.removed)
        let logout = try #require(world.browserOpened.withLock { $0.last })
        let names = URLComponents(url: logout, resolvingAgainstBaseURL: false)?.queryItems?.map(\.name) ?? []
        #expect(names.contains("client_id") && !names.contains("post_logout_redirect_uri") && !names.contains("id_token_hint"), "\(names)")
        let end = try #require(steps.withLock { $0 }.first { $0.step == .endSession })
        guard case .done(let text) = end.outcome else { Issue.record("\(end)"); return }
        #expect(text.contains("opened in the browser") && text.contains("compared exactly"), "\(text)")
    }

    @Test("A browser that could not be started is said as such at sign-out (not 'no browser'), and the session is said to stay open")
    func browserNotStarted() async throws {
        let world = StubWorld()
        world.files.withLock { $0.providers[0].logoutStyle = .endSessionWithoutRedirect }
        let alice = try await signedIn(world)
        var env = world.environment()
        env.browser = BrowserClient { _ in false }
        let steps = Mutex<[SignOutStepResult]>([])
        #expect(await SignOut(env).run(alice.record.id, options: SignOutOptions()) { step in steps.withLock { $0.append(step) } }.removed)
        let end = try #require(steps.withLock { $0 }.first { $0.step == .endSession })
        guard case .skipped(let text) = end.outcome else { Issue.record("\(end)"); return }
        #expect(text.hasPrefix("the browser could not be started") && text.contains("stays open") && !text.contains("no browser"), "\(text)")
    }

    @Test("GitHub providers stored before subjectClaim existed keep naming accounts by /user's id (what sign-in used); others read sub")
    func storedGitHubProviderKeepsItsSubjectMember() throws {
        func provider(_ preset: String?) throws -> ProviderConfig {
            var members: [String: JSONValue] = [
                "id": .string("gh"), "displayName": .string("GitHub"), "clientID": .string("Iv1.x"), "clientAuthentication": .string("none"),
                "scopes": .array([]), "resources": .array([]), "extraHeaders": .object([:]), "extraAuthorizationParameters": .object([:]),
                "endpoints": .object(["token": .string("https://github.com/login/oauth/access_token")])]
            if let preset { members["preset"] = .string(preset) }
            return try ProviderConfig(json: .object(members))
        }
        #expect(try provider("github").subjectClaim == "id")
        #expect(try provider(nil).subjectClaim == nil)
        #expect(try provider("gitlab").subjectClaim == nil)
    }

    @Test("Logto (consentForOfflineAccess): prompt=consent only when offline_access is asked (OIDC Core §11), and never twice")
    func consentPrompt() {
        var provider = ProviderConfig(id: "logto", issuer: URL(string: "https://example.logto.app/oidc"), clientID: "app")
        #expect(provider.prompt(for: ScopeSet(["openid", "offline_access"])) == nil, "not set: no prompt")
        provider.consentForOfflineAccess = true
        #expect(provider.prompt(for: ScopeSet(["openid", "offline_access"])) == "consent")
        #expect(provider.prompt(for: ScopeSet(["openid", "profile"])) == nil, "no offline_access: no consent page")
        provider.extraAuthorizationParameters = ["prompt": "login consent"]
        #expect(provider.prompt(for: ScopeSet(["openid", "offline_access"])) == nil, "a prompt of the provider's own is not repeated")
    }

    @Test("mfa_required on a refresh (Auth0) means an interactive sign-in; 429 with X-RateLimit-Reset says when to retry")
    func refreshNeedsInteractionOrWaits() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        world.provider.script.withLock { $0.nextTokenError = (status: 403, body: ["error": "mfa_required", "error_description": "Multifactor authentication required"], headers: [:]) }
        var error: AppError?
        do { _ = try await RefreshAccount(world.environment()).run(alice.record.id, force: true) } catch let thrown { error = thrown }
        #expect(error?.disposition == .needsSignIn, "\(String(describing: error))")
        #expect(error?.title.contains("sign in interactively (mfa_required)") == true, "\(String(describing: error))")

        let reset = Int(world.now.timeIntervalSince1970) + 42
        world.provider.script.withLock {
            $0.nextTokenError = (status: 429, body: ["error": "too_many_requests", "error_description": "Global limit has been reached"],
                                 headers: ["X-RateLimit-Reset": String(reset)])
        }
        error = nil
        do { _ = try await RefreshAccount(world.environment()).run(alice.record.id, force: true) } catch let thrown { error = thrown }
        #expect(error?.disposition == .transient(retryAfter: 42), "\(String(describing: error))")
        #expect(error?.title == "The provider is rate-limiting requests (HTTP 429)" && error?.detail.contains("Retry in 42 s") == true,
                "\(String(describing: error))")
    }
}
