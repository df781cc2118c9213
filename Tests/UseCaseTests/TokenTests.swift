import AppCore
import AuthEngine
import CredentialStore
import Foundation
import Testing

@Suite("Token for scripts (use case, stub environment)")
struct TokenForScriptsTests {
    @Test("--min-valid: the stored token when it stays valid long enough, with no request")
    func storedTokenWithoutRequest() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let requests = world.provider.total
        let issued = try await TokenForScripts(world.environment()).accessToken(alice.record.id, minimumValidity: .seconds(60))
        #expect(issued.value.exposedValue == world.storedSecrets()?.defaultAccessToken?.token.exposedValue)
        #expect(world.provider.total == requests)
        #expect(issued.warnings.isEmpty)
    }

    @Test("--min-valid: a token that would expire sooner is refreshed first")
    func refreshesWhenTooShort() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let old = try #require(world.storedSecrets()?.defaultAccessToken?.token.exposedValue)
        world.advance(3600 - 30)
        let issued = try await TokenForScripts(world.environment()).accessToken(alice.record.id, minimumValidity: .seconds(60))
        #expect(issued.value.exposedValue != old)
        #expect(world.provider.count("/token") == 2, "one exchange, one refresh")
    }

    @Test("A refresh whose new ID token is refused still hands out its new access token, with the reason on stderr")
    func refusedRefreshedIDTokenStillGivesTheAccessToken() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let old = try #require(world.storedSecrets()?.defaultAccessToken?.token.exposedValue)
        // The refreshed ID token is signed with a key nobody can fetch (JWKS down).
        world.provider.script.withLock {
            $0.signingKeyID = "k2"
            $0.jwksStatus = 503
        }
        world.advance(3600 - 30)
        let issued = try await TokenForScripts(world.environment()).accessToken(alice.record.id, minimumValidity: .seconds(60))
        #expect(issued.value.exposedValue != old, "the refreshed access token, not the expiring one")
        #expect(issued.value.exposedValue == world.storedSecrets()?.defaultAccessToken?.token.exposedValue)
        #expect(issued.refusedIDToken?.contains("refreshed ID token was refused") == true, "\(String(describing: issued.refusedIDToken))")
        #expect(world.accounts.first?.idTokenProblem != nil)
    }

    @Test("An account that needs sign-in hands out no token, even one not yet expired")
    func needsSignInHandsOutNothing() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        world.files.withLock { $0.accounts[0].needsSignInSince = t0 }
        do {
            _ = try await TokenForScripts(world.environment()).accessToken(alice.record.id, minimumValidity: .seconds(60))
            Issue.record("a token of a dead grant was handed out")
        } catch {
            #expect(error.disposition == .needsSignIn)
        }
        let error = await #expect(throws: AppError.self) { try await TokenForScripts(world.environment()).idToken(alice.record.id, minimumValidity: .seconds(60)) }
        #expect(error?.title == "Alice needs to sign in again" && error?.disposition == .needsSignIn, "\(String(describing: error))")
    }

    @Test("--min-valid beyond the token's whole lifetime warns and uses half the lifetime instead of refreshing every time")
    func minValidAboveLifetimeWarns() async throws {
        let world = StubWorld()
        world.provider.script.withLock { $0.accessTokenLifetime = 120 }
        let alice = try await signedIn(world)
        let requests = world.provider.total
        let issued = try await TokenForScripts(world.environment()).accessToken(alice.record.id, minimumValidity: .seconds(600))
        #expect(world.provider.total == requests, "no refresh")
        #expect(issued.warnings.count == 1)
    }

    @Test("RFC 8707 §2.2: a token for a resource is refreshed with the resource parameter and kept apart")
    func perResourceToken() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let issued = try await TokenForScripts(world.environment()).accessToken(alice.record.id, minimumValidity: .seconds(60), resource: "https://api.test")
        let request = try #require(world.provider.tokenRequests.last)
        #expect(request["grant_type"] == "refresh_token" && request["resource"] == "https://api.test")
        let secrets = try #require(world.storedSecrets())
        #expect(secrets.accessToken(for: "https://api.test")?.token.exposedValue == issued.value.exposedValue)
        #expect(secrets.defaultAccessToken?.token.exposedValue != issued.value.exposedValue, "the default token is kept")
        #expect(world.accounts.first?.accessTokens.map(\.resource) == [nil, "https://api.test"])
    }

    @Test("An expired ID token is refreshed; a provider that issues none on refresh means sign in again")
    func expiredIDTokenRefreshesOrNeedsSignIn() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        world.advance(3600 + 5)
        let issued = try await TokenForScripts(world.environment()).idToken(alice.record.id, minimumValidity: .seconds(60))
        #expect(issued.expiresAt.map { $0 > world.now } == true)
        world.advance(3600 + 5)
        world.provider.script.withLock { $0.idTokenOnRefresh = false }
        do {
            _ = try await TokenForScripts(world.environment()).idToken(alice.record.id, minimumValidity: .seconds(60))
            Issue.record("an expired ID token was handed out")
        } catch {
            #expect(error.disposition == .needsSignIn)
        }
    }
}
