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

    @Test("RFC 8707: after login URL, api URL sends that resource's token there; the resource's token goes to no other URL, nothing sent")
    func resourceTokenStaysWithItsResource() async throws {
        let world = ResourceWorld()
        let (_, outcome) = try await world.signIn()
        let env = world.environment()
        let snapshot = try LoadAccounts(env).run()
        let inside = try #require(URL(string: "https://mcp.example/mcp/tools"))
        #expect(try CallAPI(env).account(for: inside, query: nil, in: snapshot, environmentAccount: nil).record.id == outcome.record.id)
        world.routes.withLock { $0["GET https://mcp.example/mcp/tools"] = HTTPResponse(status: 200) }
        #expect(try await CallAPI(env).run(outcome.record.id, method: .get, url: inside, headers: [], body: nil).status == 200)
        let sent = world.requests.withLock { $0.count }
        let elsewhere = try #require(URL(string: "https://api.example/items"))
        await #expect(throws: AppError.self) { try await CallAPI(env).run(outcome.record.id, method: .get, url: elsewhere, headers: [], body: nil) }
        #expect(world.requests.withLock { $0.count } == sent, "nothing sent outside the resource")
        #expect(throws: APIAccountFailure.self) { try CallAPI(env).account(for: elsewhere, query: nil, in: snapshot, environmentAccount: nil) }
    }

    @Test("api to a host that does not resolve says so with what to check, as every other request does (ErrorMapping), not only 'temporary'")
    func unresolvedHostSaidAsSuch() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        var env = world.environment()
        let stub = env.http
        env.http = { provider in
            HTTPClient { (request: HTTPRequest) throws(TransportError) -> HTTPResponse in
                if request.url.host == "api.nowhere.test" {
                    throw .connection(url: request.url.absoluteString, detail: "Could not resolve host: api.nowhere.test")
                }
                return try await stub(provider).send(request)
            }
        }
        let url = try #require(URL(string: "https://api.nowhere.test/items"))
        do {
            _ = try await CallAPI(env).run(alice.record.id, method: .get, url: url, headers: [], body: nil)
            Issue.record("the request succeeded")
        } catch {
            #expect(error.title.contains("https://api.nowhere.test/items"), "\(error.title)")
            #expect(error.nextStep?.contains("api.nowhere.test does not resolve") == true, "\(String(describing: error.nextStep))")
            if case .transient = error.disposition {} else { Issue.record("\(error.disposition)") }
        }
    }
}
