import AppCore
import AuthEngine
import CredentialStore
import Foundation
import Testing

@Suite("Refresh (use case, stub environment)")
struct RefreshUseCaseTests {
    @Test("RFC 6749 §6: a refresh rotates the refresh token and persists it before returning")
    func refreshRotatesAndPersists() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let before = try #require(world.storedSecrets()?.refreshToken?.exposedValue)
        world.advance(10)
        let updated = try await RefreshAccount(world.environment()).run(alice.record.id, force: true)
        let after = try #require(world.storedSecrets()?.refreshToken?.exposedValue)
        #expect(after != before, "the rotated refresh token is stored")
        #expect(world.provider.tokenRequests.last?["refresh_token"] == before)
        #expect(updated.lastRefreshAt == t0.addingTimeInterval(10))
        #expect(world.accounts.first?.lastRefreshAt == updated.lastRefreshAt, "the record is persisted too")
    }

    @Test("Single flight across processes: a token another process refreshed is not refreshed again")
    func alreadyRefreshedByAnotherProcessSendsNothing() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let requests = world.provider.total
        // Not forced (the scheduler, `token`): the stored token is valid for an hour.
        let record = try await RefreshAccount(world.environment()).run(alice.record.id, force: false)
        #expect(world.provider.total == requests, "no request at all")
        #expect(record.lastRefreshAt == nil)
    }

    @Test("RFC 6749 §5.2: invalid_grant is persisted as needs sign-in, for every process")
    func invalidGrantIsPersisted() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        world.provider.script.withLock { $0.nextTokenError = (400, ["error": "invalid_grant"], [:]) }
        do {
            _ = try await RefreshAccount(world.environment()).run(alice.record.id, force: true)
            Issue.record("the refresh succeeded")
        } catch {
            #expect(error.disposition == .needsSignIn)
        }
        #expect(world.accounts.first?.needsSignInSince == t0)
        let status = AccountState(record: try #require(world.accounts.first)).status(now: world.now, policy: .standard, storeLocked: false)
        #expect(status == .needsSignIn)
    }

    @Test("A transient failure (503 with Retry-After) is reported as transient with the server's delay")
    func transientFailureCarriesRetryAfter() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        world.provider.script.withLock { $0.nextTokenError = (503, ["error": "temporarily_unavailable"], ["Retry-After": "7"]) }
        do {
            _ = try await RefreshAccount(world.environment()).run(alice.record.id, force: true)
            Issue.record("the refresh succeeded")
        } catch {
            #expect(error.disposition == .transient(retryAfter: 7))
        }
        #expect(world.accounts.first?.needsSignInSince == nil, "a transient failure does not sign the account out")
        // The one backoff policy: 2, 4, 8 … s, the server's Retry-After when larger.
        #expect(ExpiryPolicy.standard.retryDelay(attempt: 1, retryAfter: 7) == 7)
        #expect(ExpiryPolicy.standard.retryDelay(attempt: 3, retryAfter: nil) == 8)
    }

    @Test("A new ID token that fails its checks keeps the rotated refresh token and the previous ID token")
    func failedIDTokenKeepsRotatedRefreshToken() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let previousIDToken = try #require(world.storedSecrets()?.idToken?.exposedValue)
        // The provider signs with a key nobody can fetch: the JWKS is down (503) and lists only k1.
        world.provider.script.withLock {
            $0.signingKeyID = "k2"
            $0.jwksStatus = 503
        }
        world.advance(120)
        do {
            _ = try await RefreshAccount(world.environment()).run(alice.record.id, force: true)
            Issue.record("an ID token signed with an unknown key was accepted")
        } catch {
            #expect(error.disposition != .needsSignIn)
        }
        let stored = try #require(world.storedSecrets())
        let issued = try #require(world.provider.tokenRequests.last)
        #expect(stored.refreshToken?.exposedValue != issued["refresh_token"], "the rotated refresh token was kept")
        #expect(stored.idToken?.exposedValue == previousIDToken, "the previous verified ID token stays")
        #expect(world.accounts.first?.idTokenProblem != nil, "the account says why")
        // The next refresh works with the kept refresh token (no invalid_grant).
        world.provider.script.withLock {
            $0.signingKeyID = "k1"
            $0.jwksStatus = 200
        }
        _ = try await RefreshAccount(world.environment()).run(alice.record.id, force: true)
        #expect(world.accounts.first?.idTokenProblem == nil)
    }

    @Test("IDT-12: a refreshed ID token issued a week ago (exp ahead) is refused; the rotated tokens are kept, the previous ID token stays")
    func refreshRefusesWeekOldIDToken() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let previousIDToken = try #require(world.storedSecrets()?.idToken?.exposedValue)
        world.advance(60)
        let now = Int(world.now.timeIntervalSince1970)
        world.provider.script.withLock { $0.extraClaimsJSON = #"{"iat": \#(now - 7 * 86_400), "exp": \#(now + 3600)}"# }
        let error = await #expect(throws: AppError.self) { try await RefreshAccount(world.environment()).run(alice.record.id, force: true) }
        #expect(error?.title == "ID token issued too long ago", "\(String(describing: error))")
        #expect(world.storedSecrets()?.idToken?.exposedValue == previousIDToken)
        #expect(world.accounts.first?.idTokenProblem?.contains("issued too long ago") == true)
    }

    @Test("OIDC Core §12.2: a refreshed ID token for another subject is refused, and the grant is marked gone in the file for every process")
    func refreshedIDTokenForAnotherSubjectIsRefused() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        // Alice's refresh token answers with Bob's identity.
        let bobRefresh = world.provider.issueRefreshToken(subject: "bob")
        let key = AccountKey(provider: "op", account: "alice")
        var secrets = try world.secrets.load(key)
        secrets.refreshToken = StoredRefreshToken(bobRefresh)
        try world.secrets.save(secrets, for: key)
        let error = await #expect(throws: AppError.self) { try await RefreshAccount(world.environment()).run(alice.record.id, force: true) }
        #expect(error?.title == "Refreshed ID token for another user" && error?.disposition == .needsSignIn, "\(String(describing: error))")
        #expect(world.accounts.first?.needsSignInSince == world.now, "the persisted \"grant gone\" mark")
        #expect(world.storedSecrets()?.idToken?.exposedValue == secrets.idToken?.exposedValue, "Bob's ID token is not stored as Alice's")
        #expect(world.accounts.first?.subject == "alice")
    }
}

@Suite("Refresh: what it changed (use case, stub environment)")
struct RefreshChangesUseCaseTests {
    @Test("A refresh that drops a scope, changes ID and access token claims and rotates: all kept with the record, no token in it")
    func refreshKeepsWhatChanged() async throws {
        let world = StubWorld()
        world.provider.script.withLock { $0.accessTokenClaimsJSON = #"{"role": "reader"}"# }
        let alice = try await signedIn(world)
        #expect(alice.record.lastRefreshChanges == nil)
        world.provider.script.withLock {
            $0.refreshScope = "openid offline_access"
            $0.accessTokenClaimsJSON = #"{"role": "writer"}"#
            $0.extraClaimsJSON = #"{"email": "alice@new.example"}"#
        }
        world.advance(60)
        let updated = try await RefreshAccount(world.environment()).run(alice.record.id, force: true)
        let changes = try #require(updated.lastRefreshChanges)
        #expect(changes.scopesRemoved == ["profile"])
        #expect(changes.scopesDroppedByProvider == ["profile"], "asked for at sign-in (the provider's default scopes)")
        #expect(changes.idTokenClaims.map(\.name) == ["email"] && changes.newIDToken)
        #expect(changes.accessTokenClaims == [.init(name: "role", kind: .changed, before: #""reader""#, after: #""writer""#)], "jti left out")
        #expect(changes.refreshTokenRotated == true)
        #expect(changes.expiries.first?.token == .accessToken && changes.expiries.first?.after == world.now.addingTimeInterval(3600))
        let stored = try #require(world.accounts.first)
        #expect(stored.lastRefreshChanges == changes && stored.recentRefreshes == [world.now], "persisted with the record")
        let secrets = try #require(world.storedSecrets())
        let file = String(decoding: stored.json.serialized(), as: UTF8.self)
        for secret in [secrets.refreshToken?.exposedValue, secrets.defaultAccessToken?.token.exposedValue].compactMap({ $0 }) {
            #expect(!file.contains(secret), "no token value in the record")
        }
        // A second refresh that changes nothing but the expiry: no rotation without a new refresh token.
        world.provider.script.withLock { $0.omitRefreshToken = true }
        world.advance(60)
        let again = try await RefreshAccount(world.environment()).run(alice.record.id, force: true)
        #expect(again.lastRefreshChanges?.isRoutine == true && again.lastRefreshChanges?.refreshTokenRotated == false)
        #expect(again.recentRefreshes?.count == 2)
    }

    @Test("A resource's token refreshed after the default one (runAll) does not hide what the default token's refresh changed")
    func resourceRefreshKeepsTheDefaultsChanges() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        world.provider.script.withLock { $0.refreshScope = "openid offline_access" }
        world.advance(60)
        let refreshed = try await RefreshAccount(world.environment()).run(alice.record.id, force: true)
        let changes = try #require(refreshed.lastRefreshChanges)
        world.advance(60)
        let withResource = try await RefreshAccount(world.environment()).run(refreshed, resource: "https://api.example.test", force: true)
        #expect(withResource.accessTokens.contains { $0.resource == "https://api.example.test" })
        #expect(withResource.lastRefreshChanges == changes && changes.scopesDroppedByProvider == ["profile"])
        #expect(withResource.recentRefreshes?.count == 2, "both refreshes are marked on the time line")
    }
}
