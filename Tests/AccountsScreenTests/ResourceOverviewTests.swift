@testable import AccountsScreen
import AppCore
import AuthEngine
import Foundation
import Testing

/// Issue 25: an account of a provider made by `login URL` shows its resource and client on the
/// overview, with the issuer (its authorization server).
@Suite("Accounts screen: a protected resource's account")
struct ResourceOverviewTests {
    @Test("The overview names the resource and where the client came from; other providers show neither")
    func overview() throws {
        let alice = record("alice")
        var state = screenState([alice])
        #expect(ScreenMapping.model(state).detail?.overview.resource == nil)
        var provider = localProvider
        provider.protectedResource = ProtectedResourceBinding(
            resource: "http://127.0.0.1:9/ok/mcp", metadataURL: "http://127.0.0.1:9/.well-known/oauth-protected-resource/ok/mcp",
            discovery: .oauthAuthorizationServer, clientOrigin: .registered,
            registration: ClientRegistrationRecord(registeredAt: t0, registrationClientURI: URL(string: "http://127.0.0.1:9/ok/as/register/c1")))
        state.app.providers = [provider]
        let overview = try #require(ScreenMapping.model(state).detail?.overview)
        #expect(overview.resource == "http://127.0.0.1:9/ok/mcp")
        #expect(overview.client == "registered 2027-01-15T08:00:00Z (http://127.0.0.1:9/ok/as/register/c1)")
    }
}
