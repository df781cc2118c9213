import AppCore
import AuthEngine
import CredentialStore
import Foundation
import Testing

/// `provider set NAME …` changes a saved provider in place, with `provider add`'s
/// probe, keeping its accounts and their tokens; a change that would orphan their grants (another
/// authorization server or client) is refused with the next step.
@Suite("provider set changes a provider in place (use case, stub environment)")
struct ProviderChangeTests {
    @Test("Git hosts, scopes and the redirect port change after a probe; the signed-in account and its tokens stay")
    func changeKeepsAccounts() async throws {
        let world = StubWorld()
        _ = try await signedIn(world)
        let before = try #require(world.storedSecrets())
        var changed = world.provider.config
        changed.gitHosts = [CredentialHost(host: "git.example", username: nil)]
        changed.scopes = ["openid", "offline_access", "repo"]
        changed.redirectPort = 8765
        let requestsBefore = world.provider.requests.withLock { $0.count }
        try await ProviderAdmin(world.environment()).change(changed, clientSecret: nil, probe: .discovery)
        let saved = try #require(world.files.withLock { $0.providers.first { $0.id == "op" } })
        #expect(saved.gitHosts?.map(\.host) == ["git.example"] && saved.scopes.contains("repo") && saved.fixedRedirectPort == 8765)
        #expect(world.files.withLock { $0.accounts.map(\.id) } == [AccountID("op/alice")])
        #expect(world.storedSecrets() == before, "the account's tokens stay")
        let probes = world.provider.requests.withLock { Array($0.dropFirst(requestsBefore)) }
        #expect(probes.map(\.url.path) == ["/.well-known/openid-configuration"] && probes.first?.timeout == ProviderAdmin.probeTimeout)
    }

    @Test("Another issuer or client id with signed-in accounts is refused naming them and what to do; nothing changes")
    func grantChangeRefused() async throws {
        let world = StubWorld()
        _ = try await signedIn(world)
        let original = world.provider.config
        for change: (inout ProviderConfig) -> Void in [{ $0.issuer = URL(string: "https://other.example")! }, { $0.clientID = "other-client" }] {
            var changed = original
            change(&changed)
            do {
                try await ProviderAdmin(world.environment()).change(changed, clientSecret: nil, probe: .skip)
                Issue.record("a change orphaning the account's grant was saved")
            } catch {
                #expect(error.disposition == .usage)
                #expect(error.title.contains("not changed") && error.title.contains("op/alice"), "\(error.title)")
                #expect(error.detail.contains("'authdeck logout op/alice'") && error.detail.contains("provider add"), "\(error.detail)")
            }
            #expect(world.files.withLock { $0.providers.first { $0.id == "op" } } == original)
        }
    }

    @Test("Without accounts the issuer may change; a failed probe changes nothing and says 'not changed'")
    func issuerWithoutAccountsAndFailedProbe() async throws {
        let world = StubWorld()
        var changed = world.provider.config
        changed.issuer = URL(string: "https://elsewhere.example")!
        await #expect(throws: AppError.self) { try await ProviderAdmin(world.environment()).change(changed, clientSecret: nil, probe: .discovery) }
        do { try await ProviderAdmin(world.environment()).change(changed, clientSecret: nil, probe: .discovery) } catch {
            #expect(error.title.contains("not changed") && error.probe != nil, "\(error.title)")
        }
        #expect(world.files.withLock { $0.providers.first?.issuer } == world.provider.config.issuer)
        try await ProviderAdmin(world.environment()).change(changed, clientSecret: nil, probe: .skip)
        #expect(world.files.withLock { $0.providers.first?.issuer } == changed.issuer)
    }

    @Test("An unknown provider is a usage error; a confidential client needs a secret stored or given, which is then stored")
    func unknownAndSecret() async throws {
        let world = StubWorld()
        var unknown = world.provider.config
        unknown.id = "nope"
        await #expect(throws: AppError.self) { try await ProviderAdmin(world.environment()).change(unknown, clientSecret: nil, probe: .skip) }
        var confidential = world.provider.config
        confidential.clientAuthentication = .clientSecretPost
        do {
            try await ProviderAdmin(world.environment()).change(confidential, clientSecret: nil, probe: .skip)
            Issue.record("a confidential client without a secret was saved")
        } catch {
            #expect(error.title.contains("needs the client secret"), "\(error.title)")
        }
        try await ProviderAdmin(world.environment()).change(confidential, clientSecret: ClientSecret("s3cret"), probe: .skip)
        #expect(try world.secrets.loadIfPresent(.providerClient("op"))?.clientSecret?.exposedValue == "s3cret")
        #expect(world.files.withLock { $0.providers.first?.clientAuthentication } == .clientSecretPost)
    }

    @Test("Client authentication none deletes the stored client secret, with the change and said; a registration token beside it stays; a failed save keeps both")
    func publicClientSecretRemoved() async throws {
        let world = StubWorld()
        var confidential = world.provider.config
        confidential.clientAuthentication = .clientSecretBasic
        try await ProviderAdmin(world.environment()).change(confidential, clientSecret: ClientSecret("s3cret"), probe: .skip)
        var public_ = confidential
        public_.clientAuthentication = .none
        var failing = world.environment()
        let saved = confidential
        failing.files.updateProvider = { _, change throws(AppError) in  // the secret is written, then the provider file fails
            _ = try change(saved)
            throw AppError(title: "disk full", detail: "", disposition: .other)
        }
        await #expect(throws: AppError.self) { try await ProviderAdmin(failing).change(public_, clientSecret: nil, probe: .skip) }
        #expect(try world.secrets.loadIfPresent(.providerClient("op"))?.clientSecret?.exposedValue == "s3cret", "the save failed: the secret stays")
        let outcome = try await ProviderAdmin(world.environment()).change(public_, clientSecret: nil, probe: .skip)
        #expect(outcome == .removed)
        #expect(try world.secrets.loadIfPresent(.providerClient("op")) == nil, "no secret left behind for a public client")
        #expect(world.files.withLock { $0.providers.first?.clientAuthentication } == ClientAuthenticationMethod.none)
        var registered = AccountSecrets(clientSecret: StoredClientSecret("s2"))
        registered.registrationAccessToken = StoredRegistrationAccessToken("rat")
        try world.secrets.save(registered, for: .providerClient("op"))
        world.files.withLock { $0.providers = [confidential] }
        #expect(try await ProviderAdmin(world.environment()).change(public_, clientSecret: nil, probe: .skip) == .removed)
        let kept = try world.secrets.loadIfPresent(.providerClient("op"))
        #expect(kept?.clientSecret == nil && kept?.registrationAccessToken?.exposedValue == "rat")
        do {
            try await ProviderAdmin(world.environment()).change(public_, clientSecret: ClientSecret("x"), probe: .skip)
            Issue.record("a secret was stored for a public client")
        } catch {
            #expect(error.disposition == .usage && error.title.contains("client authentication none"), "\(error.title)")
        }
    }

    @Test("A provider made by login URL keeps the resource it was made for and its authorization server: another --resource or issuer is refused with the next step")
    func resourceProviderKeepsItsResource() async throws {
        let world = StubWorld()
        var bound = world.provider.config
        bound.resources = ["https://mcp.example/mcp"]
        bound.protectedResource = ProtectedResourceBinding(resource: "https://mcp.example/mcp",
                                                           metadataURL: "https://mcp.example/.well-known/oauth-protected-resource/mcp",
                                                           discovery: .oauthAuthorizationServer, clientOrigin: .metadataDocument)
        world.files.withLock { $0.providers = [bound] }
        let changes: [(inout ProviderConfig) -> Void] = [
            { $0.resources = ["https://other.example/api"] }, { $0.resources = ["https://mcp.example/mcp", "https://other.example/api"] },
            { $0.resources = [] }, { $0.issuer = URL(string: "https://other-as.example")! }, { $0.clientID = "another-client" },
        ]
        for change in changes {
            var changed = bound
            change(&changed)
            do {
                try await ProviderAdmin(world.environment()).change(changed, clientSecret: nil, probe: .skip)
                Issue.record("saved: \(changed.resources) \(String(describing: changed.issuer))")
            } catch {
                #expect(error.disposition == .usage && error.title.contains("not changed"), "\(error.title)")
                #expect(error.title.contains("https://mcp.example/mcp") && error.detail.contains("'authdeck login URL'"), "\(error)")
            }
            #expect(world.files.withLock { $0.providers.first } == bound)
        }
        var scopes = bound
        scopes.scopes = ["openid", "mcp:tools"]
        scopes.resources = ["https://mcp.example/mcp"]
        try await ProviderAdmin(world.environment()).change(scopes, clientSecret: nil, probe: .skip)
        #expect(world.files.withLock { $0.providers.first?.scopes } == ["openid", "mcp:tools"])
    }

    @Test("Another issuer or client id (no account signed in) needs that client's secret: the old client's stored secret is not kept for it")
    func oldClientSecretNotKept() async throws {
        let world = StubWorld()
        var confidential = world.provider.config
        confidential.clientAuthentication = .clientSecretPost
        try await ProviderAdmin(world.environment()).change(confidential, clientSecret: ClientSecret("old"), probe: .skip)
        for change: (inout ProviderConfig) -> Void in [{ $0.clientID = "other-client" }, { $0.issuer = URL(string: "https://op.test/v2")! }] {
            var other = confidential
            change(&other)
            do {
                try await ProviderAdmin(world.environment()).change(other, clientSecret: nil, probe: .skip)
                Issue.record("the old client's secret was kept for another client")
            } catch {
                #expect(error.disposition == .usage && error.title.contains("client secret"), "\(error.title)")
                #expect(error.detail.contains("--client-secret-stdin"), "\(error.detail)")
            }
            #expect(world.files.withLock { $0.providers.first } == confidential)
        }
        var other = confidential
        other.clientID = "other-client"
        #expect(try await ProviderAdmin(world.environment()).change(other, clientSecret: ClientSecret("new"), probe: .skip) == .replaced)
        #expect(try world.secrets.loadIfPresent(.providerClient("op"))?.clientSecret?.exposedValue == "new")
    }
}
