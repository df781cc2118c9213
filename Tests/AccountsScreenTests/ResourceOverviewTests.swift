@testable import AccountsScreen
import AppCore
import AuthEngine
import Foundation
import TerminalUI
import Testing

/// An account of a provider made by `login URL` shows its resource and client on the
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

@Suite("Accounts screen: signing in to a resource by its URL (TestStore story)")
struct ResourceSignInKeyPathTests {
    @Test("l, Tab to the URL field, the URL, Enter: discovery; the plan is asked (y signs in, Esc declines)")
    func urlInTheSignInDialog() async {
        let url = "https://mcp.example/mcp"
        let plan = ResourceSignInPlan(
            discovery: ResourceDiscovery(requestedURL: url, metadata: ProtectedResourceMetadata(resource: url, authorizationServers: ["https://as.example"]),
                                         metadataURL: "https://mcp.example/.well-known/oauth-protected-resource/mcp", location: .pathInserted),
            authorizationServer: AuthorizationServerMetadata(issuer: "https://as.example"), discoveryKind: .oauthAuthorizationServer,
            metadataURL: "https://as.example/.well-known/oauth-authorization-server", client: .register(URL(string: "https://as.example/register")!),
            providerID: "mcp.example", scopes: ["mcp:read"])
        var useCases = UseCaseClient.unimplemented(reportIssue)
        useCases.planResourceSignIn = { asked in
            #expect(asked == ResourceSignInRequest(resourceURL: url))
            return .success(plan)
        }
        let store = makeStore(screenState([record("alice")]), environment(useCases))
        var form = SignInDialog(providers: [ProviderOption(id: local, name: "Local IdP", detail: "http://127.0.0.1:8000/o")])
        store.send(.command(command(.char("l"), store.state))) { $0.signInForm = form }
        for field in [SignInField.flow, .scopes, .audience, .resource, .url] {
            form.focusedField = field
            store.send(.command(command(.tab, store.state))) { $0.signInForm = form }
        }
        form.resourceURL = url
        store.send(.command(.dialogSetText(url))) { $0.signInForm = form }
        store.send(.command(command(.enter, store.state))) { $0.signInForm = nil }
        await store.receive(.app(.signInToResource(ResourceSignInRequest(resourceURL: url)))) {
            $0.app.resourceSignIn = ResourceSignInQuestion(request: ResourceSignInRequest(resourceURL: url))
            $0.app.flash = Flash(level: .info, text: "Discovering \(url)…", expiresAt: t0.addingTimeInterval(6))
        }
        await store.receive(.app(.resourceSignInPlanned(.success(plan)))) { $0.app.resourceSignIn?.plan = plan }
        guard case .resourceSignInConfirm(let dialog)? = ScreenMapping.model(store.state).dialog else {
            Issue.record("no confirmation dialog")
            return
        }
        #expect(dialog.lines.contains("Authorization server: https://as.example"))
        #expect(key(.char("y"), store.state) == .command(.confirmResourceSignIn))
        #expect(key(.enter, store.state) != .command(.confirmResourceSignIn), "Enter out of habit registers nothing")
        store.send(.command(command(.escape, store.state)))
        await store.receive(.app(.dismissResourceSignIn)) { $0.app.resourceSignIn = nil }
        await store.finish()
    }
}

/// A machine account (client credentials) is marked in the list and its overview.
@Suite("Accounts screen: a machine account")
struct MachineAccountScreenTests {
    @Test("The row's provider says machine and the overview says why there is no refresh token; a person's account shows neither")
    func machineMarked() throws {
        var alice = record("alice")
        let person = ScreenMapping.model(screenState([alice]))
        #expect(person.detail?.overview.isMachine == false && person.accounts.first?.provider.contains("machine") == false)
        alice.isMachine = true
        let machine = ScreenMapping.model(screenState([alice]))
        #expect(machine.detail?.overview.isMachine == true)
        #expect(machine.accounts.first?.provider.hasSuffix(" · machine") == true)
    }
}
