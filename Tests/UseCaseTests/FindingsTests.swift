import AppCore
import AuthEngine
import CredentialStore
import Foundation
import Synchronization
import Testing

/// Rules found by trying to break the use cases (an adversarial review), each as a story.
@Suite("Hostile and odd situations (use case, stub environment)")
struct UseCaseFindingsTests {
    @Test("A provider re-added under the same name with another issuer receives no token, even in a process that cached the old one")
    func tokensNeverGoToAnotherIssuer() async throws {
        let world = StubWorld()
        let other = StubProvider(issuer: "https://op2.test")
        world.others.withLock { $0["op2.test"] = other }
        let env = world.environment()  // one long-running process (the TUI)
        let alice = try await signedIn(world, env: env)
        let tokenRequests = world.provider.count("/token")
        world.files.withLock { $0.providers = [ProviderConfig(id: "op", issuer: URL(string: other.issuer)!, clientID: "rp-native")] }
        do {
            _ = try await RefreshAccount(env).run(alice.record.id, force: true)
            Issue.record("a refresh token went to another issuer")
        } catch {
            #expect(error.title.contains("another issuer"))
        }
        #expect(other.count("/token") == 0 && world.provider.count("/token") == tokenRequests, "nothing was sent")
        #expect(world.accounts.first?.needsSignInSince == nil, "not a revoked grant")
        let outcome = await SignOut(env).run(alice.record.id, options: SignOutOptions(endSession: false)) { _ in }
        #expect(outcome.removed, "sign-out still removes the account locally")
        #expect(other.count("/revoke") == 0, "and revokes nothing at the other issuer")
    }

    @Test("No refresh token is reported, not stored as needs sign-in: the access token is still handed out")
    func missingRefreshTokenIsNotAGoneGrant() async throws {
        let world = StubWorld()
        world.provider.script.withLock { $0.omitRefreshToken = true }
        let alice = try await signedIn(world)
        do {
            _ = try await RefreshAccount(world.environment()).run(alice.record.id, force: true)
            Issue.record("a refresh without a refresh token succeeded")
        } catch {
            #expect(error.disposition == .needsSignIn)
        }
        #expect(world.accounts.first?.needsSignInSince == nil)
        let issued = try await TokenForScripts(world.environment()).accessToken(alice.record.id, minimumValidity: .seconds(60))
        #expect(!issued.value.exposedValue.isEmpty)
    }

    @Test("Sign-out holds the account lock from reading the tokens to deleting them (no refresh in between)")
    func signOutHoldsTheLockWhileRevoking() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let key = AccountKey(provider: "op", account: "alice")
        let held = try #require(try world.secrets.tryLockAccount(key))
        let signOut = Task { await SignOut(world.environment()).run(alice.record.id, options: SignOutOptions(endSession: false)) { _ in } }
        try await Task.sleep(for: .milliseconds(200))
        #expect(world.provider.revokedTokens.isEmpty, "nothing revoked while another process holds the lock")
        held.release()
        #expect(await signOut.value.removed)
        #expect(world.provider.revokedTokens.count == 2)
    }

    @Test("Signing in again without --name keeps the account's alias")
    func aliasIsKeptOnSignInAgain() async throws {
        let world = StubWorld()
        world.approveInBrowser()
        _ = try await SignIn(world.environment()).run(SignInRequest(providerID: "op", alias: "work"), progress: { _ in })
        let again = try await signedIn(world)
        #expect(again.record.alias == "work")
    }

    @Test("RFC 8628 §3.2: a verification_uri that is not https is refused before it is shown")
    func insecureVerificationURIIsRefused() async throws {
        let world = StubWorld()
        world.provider.script.withLock { $0.verificationURI = "http://evil.example/activate" }
        let progress = ProgressLog()
        let error = await #expect(throws: AppError.self) {
            try await SignIn(world.environment()).run(SignInRequest(providerID: "op", flow: .device)) { progress.append($0) }
        }
        #expect(error?.title == "Not supported" && error?.disposition == .securityRelevant
                && error?.detail.contains("http://evil.example/activate") == true, "\(String(describing: error))")
        #expect(!progress.names.contains("deviceCode"), "never shown to the user")
    }

    @Test("DEV-03: a verification_uri_complete that is not https (javascript:) is never shown, and the sign-in goes on with verification_uri")
    func insecureVerificationURICompleteIsDropped() async throws {
        let world = StubWorld()
        world.provider.script.withLock { $0.verificationURIComplete = "javascript:alert(1)" }
        let progress = ProgressLog()
        _ = try await SignIn(world.environment()).run(SignInRequest(providerID: "op", flow: .device)) { progress.append($0) }
        let shown = progress.all.compactMap { step -> DeviceCodeDisplay? in if case .deviceCode(let display) = step { display } else { nil } }
        #expect(shown.count == 1 && shown[0].verificationURIComplete == nil && shown[0].notes.count == 1)
    }

    @Test("INT-04, RFC 7662 §2.2: introspection of an inactive token shows only active false, not the members the server sent")
    func inactiveIntrospectionShowsOnlyActive() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        world.provider.script.withLock { $0.introspection = ["active": false, "scope": "openid admin", "sub": "alice", "username": "alice"] }
        #expect(try await IntrospectAccessToken(world.environment()).run(alice.record.id) == .object(["active": .bool(false)]))
        world.provider.script.withLock { $0.introspection = ["active": true, "scope": "openid", "sub": "alice"] }
        #expect(try await IntrospectAccessToken(world.environment()).run(alice.record.id)
            == .object(["active": .bool(true), "scope": .string("openid"), "sub": .string("alice")]))
    }

    @Test("UI-07, OIDC Core §5.3.2: a signed UserInfo answer is verified with the provider's JWKS and its claims shown; one for another audience is refused")
    func signedUserInfoIsVerifiedAndShown() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        world.provider.script.withLock { $0.signedUserInfo = ["name": "Alice Signed"] }
        let claims = try await ShowUserInfo(world.environment()).run(alice.record.id)
        guard case .object(let members) = claims else { Issue.record("not an object: \(claims)"); return }
        #expect(members["name"] == .string("Alice Signed") && members["sub"] == .string("alice"))
        world.provider.script.withLock { $0.signedUserInfo = ["aud": "someone-else"] }
        let error = await #expect(throws: AppError.self) { try await ShowUserInfo(world.environment()).run(alice.record.id) }
        #expect(error?.title == "Signed UserInfo for another client", "\(String(describing: error))")
    }

    @Test("A JWKS cache dated in the future is not trusted as fresh (the clock was set back)")
    func futureDatedJWKSIsFetchedAgain() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        world.cache.withLock { cache in
            if var jwks = cache["op/jwks"] {
                jwks.fetchedAt = t0.addingTimeInterval(86_400 * 30)
                jwks.body = #"{"keys":[]}"#
                cache["op/jwks"] = jwks
            }
        }
        world.advance(60)
        let record = try await RefreshAccount(world.environment()).run(alice.record.id, force: true)
        #expect(record.idTokenProblem == nil, "the JWKS was fetched again and the new ID token verified")
    }

    @Test("Endpoint overrides apply over discovery: a token endpoint set by hand is where the code and the refresh token go")
    func tokenEndpointOverrideIsUsed() async throws {
        let world = StubWorld()
        var config = world.provider.config
        config.endpoints.token = URL(string: "https://op.test/alt/token")!
        world.files.withLock { $0.providers = [config] }
        let alice = try await signedIn(world)
        _ = try await RefreshAccount(world.environment()).run(alice.record.id, force: true)
        #expect(world.provider.count("/alt/token") == 2, "the exchange and the refresh")
        #expect(world.provider.count("/token") == 0, "never the discovered one")
    }

    @Test("OIDC Core §12.2: a refreshed ID token with a later auth_time (the user signed in again elsewhere) is kept")
    func laterAuthTimeIsKept() async throws {
        let world = StubWorld()
        world.provider.script.withLock { $0.authTime = 1_800_000_000 }
        let alice = try await signedIn(world)
        let previousIDToken = world.storedSecrets()?.idToken
        // The provider reports the user's latest login (django-oauth-toolkit does).
        world.provider.script.withLock { $0.authTime = 1_800_000_500 }
        world.advance(60)
        let refreshed = try await RefreshAccount(world.environment()).run(alice.record.id, force: true)
        #expect(refreshed.idTokenProblem == nil && refreshed.needsSignInSince == nil)
        #expect(world.storedSecrets()?.idToken != previousIDToken, "the new verified ID token is kept")
    }

    @Test("OIDC Core §12.2: a refreshed ID token whose auth_time goes back is refused as needing a sign-in; the grant and the account stay")
    func earlierAuthTimeIsRefusedWithoutEndingTheGrant() async throws {
        let world = StubWorld()
        world.provider.script.withLock { $0.authTime = 1_800_000_000 }
        let alice = try await signedIn(world)
        let previousIDToken = world.storedSecrets()?.idToken
        world.provider.script.withLock { $0.authTime = 1_799_999_000 }
        world.advance(60)
        let error = await #expect(throws: AppError.self) { try await RefreshAccount(world.environment()).run(alice.record.id, force: true) }
        #expect(error?.title == "Refreshed ID token with an earlier authentication time" && error?.disposition == .needsSignIn,
                "\(String(describing: error))")
        #expect(world.accounts.first?.needsSignInSince == nil, "not a gone grant")
        #expect(world.accounts.first?.idTokenProblem != nil)
        #expect(world.storedSecrets()?.idToken == previousIDToken, "the previous verified ID token stays")
        _ = try await TokenForScripts(world.environment()).accessToken(alice.record.id, minimumValidity: .seconds(60))
    }
}
