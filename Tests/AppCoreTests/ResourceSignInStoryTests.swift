import AppCore
import AuthEngine
import Foundation
import StoreTesting
import Testing

/// The screen's `login URL`: discovery and the plan first, the person's answer, then the sign-in
/// (``SignInToResource``), whose new provider comes with the reload after it.
@Suite("AppCore stories: signing in to a resource by its URL")
struct ResourceSignInStoryTests {
    static let request = ResourceSignInRequest(resourceURL: "https://mcp.example/mcp")
    static let plan = ResourceSignInPlan(
        discovery: ResourceDiscovery(requestedURL: "https://mcp.example/mcp",
                                     metadata: ProtectedResourceMetadata(resource: "https://mcp.example/mcp", authorizationServers: ["https://as.example"]),
                                     metadataURL: "https://mcp.example/.well-known/oauth-protected-resource/mcp", location: .pathInserted),
        authorizationServer: AuthorizationServerMetadata(issuer: "https://as.example"), discoveryKind: .oauthAuthorizationServer,
        metadataURL: "https://as.example/.well-known/oauth-authorization-server", client: .register(URL(string: "https://as.example/register")!),
        providerID: "mcp.example", scopes: ["mcp:read"])

    @Test("Discovery, the plan asked, confirmed: the sign-in runs with its progress, the account appears, providers reload")
    func confirmed() async {
        let alice = record("alice")
        let snapshot = LoadedSnapshot(providers: [], accounts: [alice], activeAccountID: alice.id, credentialStore: StoreInfo(backend: .memory))
        var session = UseCaseClient.unimplemented(reportIssue)
        session.planResourceSignIn = { _ in .success(Self.plan) }
        session.signInToResource = { plan, _, progress in
            #expect(plan == Self.plan)
            progress(.exchangingCode)
            return .success(SignInOutcome(record: alice, becameActive: true))
        }
        session.load = { .success(snapshot) }
        let store = makeStore(loadedState([]), session: session)
        store.send(.signInToResource(Self.request)) {
            $0.resourceSignIn = ResourceSignInQuestion(request: Self.request)
            $0.flash = Flash(level: .info, text: "Discovering https://mcp.example/mcp…", expiresAt: t0.addingTimeInterval(6))
        }
        await store.receive(.resourceSignInPlanned(.success(Self.plan))) { $0.resourceSignIn?.plan = Self.plan }
        store.send(.confirmResourceSignIn) {
            $0.resourceSignIn = nil
            $0.signIn = SignInFlow(request: SignInRequest(providerID: "mcp.example"))
        }
        await store.receive(.signInProgress(.exchangingCode)) { $0.signIn?.phase = .progress(.exchangingCode) }
        await store.receive(.signInFinished(.success(SignInOutcome(record: alice, becameActive: true)))) {
            $0.signIn = nil
            $0.accounts = [AccountState(record: alice)]
            $0.activeAccountID = alice.id
            $0.flash = Flash(level: .info, text: "Signed in as Alice", expiresAt: t0.addingTimeInterval(6))
        }
        await store.receive(.reload)
        await store.receive(.loaded(.success(snapshot)))
        await store.finish()
    }

    @Test("Declined: nothing runs; a discovery failure is said and nothing is asked")
    func declinedOrFailed() async {
        var session = UseCaseClient.unimplemented(reportIssue)
        session.planResourceSignIn = { _ in .success(Self.plan) }
        var store = makeStore(loadedState([]), session: session)
        store.send(.signInToResource(Self.request)) {
            $0.resourceSignIn = ResourceSignInQuestion(request: Self.request)
            $0.flash = Flash(level: .info, text: "Discovering https://mcp.example/mcp…", expiresAt: t0.addingTimeInterval(6))
        }
        await store.receive(.resourceSignInPlanned(.success(Self.plan))) { $0.resourceSignIn?.plan = Self.plan }
        store.send(.dismissResourceSignIn) { $0.resourceSignIn = nil }
        await store.finish()

        let refused = AppError(title: "Signing in to the resource stopped at the protected resource metadata: Protected resource mismatch")
        session.planResourceSignIn = { _ in .failure(refused) }
        store = makeStore(loadedState([]), session: session)
        store.send(.signInToResource(Self.request)) {
            $0.resourceSignIn = ResourceSignInQuestion(request: Self.request)
            $0.flash = Flash(level: .info, text: "Discovering https://mcp.example/mcp…", expiresAt: t0.addingTimeInterval(6))
        }
        await store.receive(.resourceSignInPlanned(.failure(refused))) {
            $0.resourceSignIn = nil
            $0.flash = Flash(level: .error, text: "Sign-in failed: \(refused)", expiresAt: t0.addingTimeInterval(6))
        }
        await store.finish()
    }

    @Test("The plan says whose tokens the resource will receive, from which server, and that they are for it alone")
    func planSaysWhoseTokens() {
        let line = Self.plan.summaryLines.first { $0.hasPrefix("It receives:") }
        #expect(line == "It receives:          tokens of the account you sign in as at https://as.example, for https://mcp.example/mcp alone (RFC 8707)")
    }
}
