import AppCore
import AuthEngine
import CredentialStore
import Foundation
import Testing

@Suite("Discovery and JWKS caches across processes (use case, stub environment)")
struct ProviderCacheTests {
    @Test("A refresh in a new process sends exactly one request: discovery and JWKS come from the cache")
    func refreshInNewProcessIsOneRequest() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let before = world.provider.total
        world.advance(600)
        _ = try await RefreshAccount(world.environment()).run(alice.record.id, force: true)
        #expect(world.provider.total - before == 1, "requests: \(world.provider.requests.withLock { $0.suffix(3).map(\.url.path) })")
        #expect(world.provider.count("/.well-known/openid-configuration") == 1)
        #expect(world.provider.count("/jwks") == 1)
    }

    @Test("A stale discovery document is fetched again")
    func staleDiscoveryIsFetchedAgain() async throws {
        let world = StubWorld()
        world.provider.script.withLock { $0.discoveryCacheControl = "public, max-age=600" }
        let alice = try await signedIn(world)
        world.advance(601)
        _ = try await RefreshAccount(world.environment()).run(alice.record.id, force: true)
        #expect(world.provider.count("/.well-known/openid-configuration") == 2)
    }

    @Test("A discovery or JWKS outage does not block a refresh whose documents are cached")
    func outageUsesCachedDocuments() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        world.provider.script.withLock {
            $0.discoveryStatus = 503
            $0.jwksStatus = 503
        }
        world.advance(Double(ProviderDocumentCache.defaultMaxAge) + 60)
        let record = try await RefreshAccount(world.environment()).run(alice.record.id, force: true)
        #expect(record.idTokenProblem == nil, "the refreshed ID token verified with the cached keys")
    }

    @Test("RFC 9111 §5.2.2.1: max-age is honoured within bounds; absent means the default")
    func freshnessFromCacheControl() {
        #expect(ProviderDocumentCache.freshness(cacheControl: "public, max-age=3600") == 3600)
        #expect(ProviderDocumentCache.freshness(cacheControl: "max-age=0") == ProviderDocumentCache.maxAgeBounds.lowerBound)
        #expect(ProviderDocumentCache.freshness(cacheControl: "max-age=99999999") == ProviderDocumentCache.maxAgeBounds.upperBound)
        #expect(ProviderDocumentCache.freshness(cacheControl: nil) == ProviderDocumentCache.defaultMaxAge)
        #expect(ProviderDocumentCache.freshness(cacheControl: "no-cache") == ProviderDocumentCache.defaultMaxAge)
    }

    @Test("OIDC Core §10.1.1: an unknown kid re-fetches the JWKS once; within the cool-down it does not")
    func unknownKidRefetchesOnceWithCooldown() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        // Key rollover: the provider publishes k2 and signs with it.
        world.provider.script.withLock {
            $0.publishedKeyIDs = ["k1", "k2"]
            $0.signingKeyID = "k2"
        }
        world.advance(120)
        _ = try await RefreshAccount(world.environment()).run(alice.record.id, force: true)
        #expect(world.provider.count("/jwks") == 2, "one re-fetch for the new kid")
        // A kid that is nowhere, right after a fetch: no second re-fetch (cool-down).
        world.provider.script.withLock { $0.signingKeyID = "k9" }
        world.advance(5)
        let error = await #expect(throws: AppError.self) { try await RefreshAccount(world.environment()).run(alice.record.id, force: true) }
        #expect(error?.title == "No matching key" && error?.disposition == .securityRelevant, "\(String(describing: error))")
        #expect(world.provider.count("/jwks") == 2)
    }
    /// The provider rotates its signing key: publishes k2 (keeping k1) and signs with k2.
    static func rotate(_ world: StubWorld, to kid: String = "k2") {
        world.provider.script.withLock {
            $0.publishedKeyIDs.append(kid)
            $0.signingKeyID = kid
        }
    }

    static func verifiedKeyID(_ record: AccountRecord?) -> String? {
        guard case .verified(_, let keyID)? = record?.idToken?.signature else { return nil }
        return keyID
    }

    @Test("A key rotated between two sign-ins 3 s apart — the second sign-in looks the new kid up and verifies")
    func rotationBetweenTwoSignIns() async throws {
        let world = StubWorld()
        _ = try await signedIn(world, as: "alice")
        Self.rotate(world)
        world.advance(3)
        let bob = try await signedIn(world, as: "bob")
        #expect(Self.verifiedKeyID(bob.record) == "k2")
        #expect(world.provider.count("/jwks") == 2)
    }

    @Test("A refresh right after sign-in whose ID token is signed with a new key verifies (same process and a new one)")
    func rotationBeforeRefresh() async throws {
        for sameProcess in [true, false] {
            let world = StubWorld()
            let env = world.environment()
            let alice = try await signedIn(world, env: env)
            Self.rotate(world)
            world.advance(2)
            let record = try await RefreshAccount(sameProcess ? env : world.environment()).run(alice.record.id, force: true)
            #expect(record.idTokenProblem == nil, "same process: \(sameProcess)")
            #expect(Self.verifiedKeyID(record) == "k2")
            #expect(world.provider.count("/jwks") == 2)
        }
    }

    @Test("The JWKS answers 503 during one refresh; the next refresh, seconds later, looks the key up again and verifies")
    func jwksOutageThenNextRefreshSucceeds() async throws {
        for sameProcess in [true, false] {
            let world = StubWorld()
            let env = world.environment()
            let alice = try await signedIn(world, env: env)
            Self.rotate(world)
            world.provider.script.withLock { $0.jwksStatus = 503 }
            world.advance(2)
            let error = await #expect(throws: AppError.self) { try await RefreshAccount(env).run(alice.record.id, force: true) }
            #expect(error?.title == "Unexpected HTTP status" && error?.disposition == .transient(retryAfter: nil), "\(String(describing: error))")
            #expect(world.accounts.first?.idTokenProblem != nil, "the refused ID token is reported")
            world.provider.script.withLock { $0.jwksStatus = 200 }
            world.advance(2)
            let record = try await RefreshAccount(sameProcess ? env : world.environment()).run(alice.record.id, force: true)
            #expect(record.idTokenProblem == nil, "same process: \(sameProcess)")
            #expect(Self.verifiedKeyID(record) == "k2")
            #expect(world.provider.count("/jwks") == 3, "sign-in, the failed lookup, the lookup that found k2")
        }
    }

    @Test("A flood of refreshes with bogus kids makes at most one JWKS lookup per 30 s, across processes too")
    func bogusKidFloodOneLookupPerInterval() async throws {
        let world = StubWorld()
        let env = world.environment()
        let alice = try await signedIn(world, env: env)
        for round in 1...10 {
            world.provider.script.withLock { $0.signingKeyID = "bogus-\(round)" }
            world.advance(2)
            // Every other refresh in a new process: the cache file carries the cool-down.
            let error = await #expect(throws: AppError.self) { try await RefreshAccount(round.isMultiple(of: 2) ? world.environment() : env).run(alice.record.id, force: true) }
            #expect(error?.title == "No matching key" && error?.disposition == .securityRelevant, "\(String(describing: error))")
        }
        #expect(world.provider.count("/jwks") == 2, "the sign-in's fetch and one lookup in 20 s")
        world.advance(30)
        world.provider.script.withLock { $0.signingKeyID = "bogus-late" }
        let error = await #expect(throws: AppError.self) { try await RefreshAccount(env).run(alice.record.id, force: true) }
        #expect(error?.title == "No matching key" && error?.disposition == .securityRelevant, "\(String(describing: error))")
        #expect(world.provider.count("/jwks") == 3, "after the cool-down: one more")
    }
}
