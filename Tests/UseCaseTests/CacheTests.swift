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
        await #expect(throws: AppError.self) { try await RefreshAccount(world.environment()).run(alice.record.id, force: true) }
        #expect(world.provider.count("/jwks") == 2)
    }
}
