import AppCore
import AuthEngine
import Foundation
import Testing

/// `provider remove` of a provider `login URL` registered (RFC 7592 §2.3): the registration access
/// token goes only to a `registration_client_uri` on the registration endpoint's origin.
@Suite("provider remove: RFC 7592 deletion only at the registration endpoint's origin (use case, stub environment)")
struct RegistrationDeletionTests {
    static func registered(clientURI: String) async throws -> ResourceWorld {
        let world = ResourceWorld()
        world.routes.withLock {
            $0["POST https://as.example/register"] = ResourceWorld.json(
                #"{"client_id":"dcr-1","registration_access_token":"rat-secret","registration_client_uri":"\#(clientURI)"}"#, status: 201)
            $0["DELETE \(clientURI)"] = HTTPResponse(status: 204)
        }
        _ = try await world.signIn()
        world.world.files.withLock { $0.accounts = [] }
        return world
    }

    static func sentToken(_ world: ResourceWorld) -> [HTTPRequest] {
        world.requests.withLock { $0 }.filter { request in request.headers.contains { $0.value.contains("rat-secret") } }
    }

    @Test("Same origin as the registration endpoint: deleted with the registration access token")
    func sameOrigin() async throws {
        let world = try await Self.registered(clientURI: "https://as.example/register/dcr-1")
        #expect(try await ProviderAdmin(world.environment()).remove("mcp.example") == .deleted(confirmed: true))
        #expect(Self.sentToken(world).map(\.url.absoluteString) == ["https://as.example/register/dcr-1"])
    }

    @Test("RFC 7592 §3: a registration_client_uri on another origin (host, port, scheme) gets no token; the removal says so",
          arguments: ["https://evil.example/register/dcr-1", "https://as.example:8443/register/dcr-1", "https://as.example.evil/r"])
    func otherOrigin(_ clientURI: String) async throws {
        let world = try await Self.registered(clientURI: clientURI)
        let outcome = try await ProviderAdmin(world.environment()).remove("mcp.example")
        guard case .kept(let reason) = outcome else { Issue.record("\(outcome)"); return }
        #expect(reason.contains("origin") && reason.contains("https://as.example/register"), "\(reason)")
        #expect(Self.sentToken(world).isEmpty, "the registration access token was sent")
        #expect(world.world.files.withLock { $0.providers }.isEmpty, "the provider is removed all the same")
    }

    @Test("A record kept before the endpoint was: the registration endpoint comes from the server's metadata")
    func recordWithoutEndpoint() async throws {
        let world = try await Self.registered(clientURI: "https://evil.example/register/dcr-1")
        world.world.files.withLock { $0.providers[0].protectedResource?.registration?.registrationEndpoint = nil }
        guard case .kept = try await ProviderAdmin(world.environment()).remove("mcp.example") else { Issue.record("deleted"); return }
        #expect(Self.sentToken(world).isEmpty)
    }
}
