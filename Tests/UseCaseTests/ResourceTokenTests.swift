import AppCore
import AuthEngine
import CredentialStore
import Foundation
import Testing

@Suite("Per-resource and organization tokens (Logto; use case, stub environment)")
struct ResourceTokenUseCaseTests {
    static let api = "https://api.example.test"

    @Test("Logto: RFC 8707 2.2: the scheduler refreshes a due resource token with its resource and leaves the fresh default token")
    func schedulerRefreshesDueResourceToken() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        world.provider.script.withLock { $0.accessTokenLifetime = 600 }
        _ = try await RefreshAccount(world.environment()).run(alice.record.id, resource: Self.api, force: true)
        let record = try #require(world.accounts.first)
        let due = try #require(ExpiryPolicy.standard.refreshDue(for: record))
        #expect(due == t0.addingTimeInterval(540), "the resource token (600 s) is due first: \(due)")

        world.advance(560)
        let before = world.provider.tokenRequests.count
        _ = try await RefreshAccount(world.environment()).runAll(alice.record.id, force: false)
        let sent = world.provider.tokenRequests.dropFirst(before)
        #expect(sent.count == 1, "only the due token: \(sent)")
        #expect(sent.first?["resource"] == Self.api)
        let resourceToken = try #require(world.accounts.first?.accessTokens.first { $0.resource == Self.api })
        #expect(resourceToken.expiresAt == t0.addingTimeInterval(560 + 600))
    }

    @Test("Logto: a manual refresh renews every token of the account, each with its own resource")
    func manualRefreshRenewsAll() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        _ = try await RefreshAccount(world.environment()).run(alice.record.id, resource: Self.api, force: true)
        let before = world.provider.tokenRequests.count
        _ = try await RefreshAccount(world.environment()).runAll(alice.record.id, force: true)
        let sent = world.provider.tokenRequests.dropFirst(before)
        #expect(sent.map { $0["resource"] } == [nil, Self.api])
    }

    @Test("Logto: an organization token is asked for with organization_id (not resource) and stored under urn:logto:organization:{id}")
    func organizationToken() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let key = TokenAudience.organizationKey("org-acme")
        #expect(key == "urn:logto:organization:org-acme")
        #expect(TokenAudience.organizationID(ofKey: key) == "org-acme")
        #expect(TokenAudience.organizationID(ofKey: Self.api) == nil && TokenAudience.organizationID(ofKey: TokenAudience.organizationPrefix) == nil)
        _ = try await RefreshAccount(world.environment()).run(alice.record.id, resource: key, force: true)
        let request = try #require(world.provider.tokenRequests.last)
        #expect(request["organization_id"] == "org-acme" && request["resource"] == nil)
        #expect(world.accounts.first?.accessTokens.contains { $0.resource == key } == true)
        #expect(world.storedSecrets()?.accessToken(for: key) != nil)
    }
    @Test("Logto, RFC 8707 §2.2: a per-resource or organization refresh sends scope as the grant had it; the default refresh sends none")
    func perResourceRefreshSendsGrantScope() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let granted = try #require(world.accounts.first?.grantedScopes)
        _ = try await RefreshAccount(world.environment()).run(alice.record.id, resource: Self.api, force: true)
        #expect(world.provider.tokenRequests.last?["scope"] == granted.joined(separator: " "))
        _ = try await RefreshAccount(world.environment()).run(alice.record.id, resource: TokenAudience.organizationKey("org-acme"), force: true)
        #expect(world.provider.tokenRequests.last?["scope"] == granted.joined(separator: " "))
        _ = try await RefreshAccount(world.environment()).run(alice.record.id, force: true)
        #expect(world.provider.tokenRequests.last?["scope"] == nil, "the default token's refresh keeps the whole grant (RFC 6749 §6)")
    }

    @Test("Logto, RFC 8707 §2: invalid_target on a per-resource refresh says the account must sign in with --resource")
    func invalidTargetHint() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        world.provider.script.withLock { $0.nextTokenError = (status: 400, body: ["error": "invalid_target", "error_description": "resource indicator is not granted"], headers: [:]) }
        let error = await #expect(throws: AppError.self) {
            try await RefreshAccount(world.environment()).run(alice.record.id, resource: "https://other.example.test", force: true)
        }
        #expect(error?.detail.contains("authdeck login op --resource https://other.example.test") == true, "\(String(describing: error))")
        #expect(world.accounts.first?.needsSignInSince == nil, "the grant itself is fine")
    }
}
