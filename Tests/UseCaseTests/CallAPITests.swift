import AppCore
import AuthEngine
import Foundation
import Testing

@Suite("authdeck api (use case, stub environment)")
struct CallAPITests {
    @Test("Auth0 seed, RFC 6750 2.1: api renews a token that expires within 30 s before the call and sends the new one as Bearer")
    func auth0APIRenewsBeforeExpiry() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let old = try #require(world.storedSecrets()?.defaultAccessToken?.token.exposedValue)
        world.advance(3600 - 20)  // 20 s left: still valid, but within 30 s
        let url = try #require(URL(string: "https://op.test/userinfo"))
        let response = try await CallAPI(world.environment()).run(alice.record.id, method: .get, url: url, headers: [], body: nil)
        #expect(response.status == 200)
        #expect(world.provider.count("/token") == 2, "one exchange, one refresh before the call")
        let renewed = try #require(world.storedSecrets()?.defaultAccessToken?.token.exposedValue)
        #expect(renewed != old)
        let sent = world.provider.requests.withLock { $0.last { $0.url.path == "/userinfo" } }
        #expect(sent?.headers.contains { $0.name == "Authorization" && $0.value == "Bearer \(renewed)" } == true)
    }

    @Test("api keeps a token with more than 30 s left (no refresh)")
    func apiKeepsAFreshToken() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        world.advance(3600 - 120)
        let url = try #require(URL(string: "https://op.test/userinfo"))
        _ = try await CallAPI(world.environment()).run(alice.record.id, method: .get, url: url, headers: [], body: nil)
        #expect(world.provider.count("/token") == 1)
    }
}
