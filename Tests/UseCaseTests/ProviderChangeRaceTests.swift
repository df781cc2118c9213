import AppCore
import AuthEngine
import CredentialStore
import Foundation
import Synchronization
import Testing

/// `provider set` settings that decide where the signed-in accounts' tokens go, and what other
/// commands did to the providers and accounts while its discovery probe ran.
@Suite("provider set: where tokens go, and changes made during its probe (use case, stub environment)")
struct ProviderChangeRaceTests {
    @Test("An endpoint override on another origin with signed-in accounts is refused like another issuer; the same origin is fine")
    func endpointOnAnotherOriginRefused() async throws {
        let world = StubWorld()
        _ = try await signedIn(world)
        let original = world.provider.config
        let paths: [WritableKeyPath<EndpointOverrides, URL?>] = [\.token, \.revocation, \.userinfo, \.introspection,
                                                                  \.deviceAuthorization, \.endSession, \.jwks]
        for path in paths {
            var changed = original
            changed.endpoints[keyPath: path] = URL(string: "https://collector.example/endpoint")!
            do {
                try await ProviderAdmin(world.environment()).change(changed, clientSecret: nil, probe: .skip)
                Issue.record("an endpoint on another origin was saved: \(path)")
            } catch {
                #expect(error.disposition == .usage && error.title.contains("not changed") && error.title.contains("op/alice"), "\(error.title)")
                #expect(error.title.contains("https://collector.example/endpoint"), "\(error.title)")
                #expect(error.detail.contains("'authdeck logout op/alice'"), "\(error.detail)")
            }
            #expect(world.files.withLock { $0.providers.first } == original)
        }
        var sameOrigin = original
        sameOrigin.endpoints.revocation = URL(string: "https://op.test/other/revoke")!
        sameOrigin.endpoints.deviceAuthorization = URL(string: "https://op.test/device2")!
        try await ProviderAdmin(world.environment()).change(sameOrigin, clientSecret: nil, probe: .skip)
        #expect(world.files.withLock { $0.providers.first } == sameOrigin)
    }

    @Test("Accounts signed in to another issuer than the provider's: restoring the issuer their tokens came from is allowed, the refusal names it")
    func recordedIssuerCounts() async throws {
        let world = StubWorld()
        _ = try await signedIn(world)
        var moved = world.provider.config
        moved.issuer = URL(string: "https://moved.example")!
        world.files.withLock { $0.providers = [moved] }
        do {
            var other = moved
            other.issuer = URL(string: "https://third.example")!
            try await ProviderAdmin(world.environment()).change(other, clientSecret: nil, probe: .skip)
            Issue.record("another issuer was saved")
        } catch {
            #expect(error.title.contains("https://op.test") && error.title.contains("https://third.example"), "\(error.title)")
        }
        try await ProviderAdmin(world.environment()).change(world.provider.config, clientSecret: nil, probe: .skip)
        #expect(world.files.withLock { $0.providers.first?.issuer } == world.provider.config.issuer)
    }

    /// An environment whose discovery probe runs `during` before it answers (another process's command).
    private func probing(_ world: StubWorld, during: @escaping @Sendable () async throws -> Void) -> AppEnvironment {
        var env = world.environment()
        let http = env.http
        env.http = { provider in
            HTTPClient { (request) throws(TransportError) in
                if request.url.path.hasSuffix("/.well-known/openid-configuration") { try? await during() }
                return try await http(provider).send(request)
            }
        }
        return env
    }

    @Test("A provider removed during the probe is not brought back: 'removed meanwhile'")
    func removedDuringProbe() async throws {
        let world = StubWorld()
        var changed = world.provider.config
        changed.scopes = ["openid", "repo"]
        let env = probing(world) { _ = try await ProviderAdmin(world.environment()).remove("op") }
        do {
            try await ProviderAdmin(env).change(changed, clientSecret: nil, probe: .discovery)
            Issue.record("the removed provider was saved again")
        } catch {
            #expect(error.title.contains("removed meanwhile"), "\(error.title)")
        }
        #expect(world.files.withLock { $0.providers }.isEmpty)
    }

    @Test("An account signed in during the probe makes another client id refused, as one signed in before it does")
    func signInDuringProbe() async throws {
        let world = StubWorld()
        var changed = world.provider.config
        changed.clientID = "other-client"
        let env = probing(world) { _ = try await signedIn(world) }
        do {
            try await ProviderAdmin(env).change(changed, clientSecret: nil, probe: .discovery)
            Issue.record("the client id changed under an account signed in during the probe")
        } catch {
            #expect(error.title.contains("op/alice"), "\(error.title)")
        }
        #expect(world.files.withLock { $0.providers.first } == world.provider.config)
    }

    @Test("Two changes racing: the one saved during the other's probe is kept, each applying its options to the provider as saved")
    func concurrentChangesBothKept() async throws {
        let world = StubWorld()
        let env = probing(world) {
            _ = try await ProviderAdmin(world.environment()).change("op", clientSecret: nil, probe: .skip) {
                $0.gitHosts = [CredentialHost(host: "git.example", username: nil)]
            }
        }
        let change = try await ProviderAdmin(env).change("op", clientSecret: nil, probe: .discovery) { $0.scopes = ["openid", "repo"] }
        let saved = try #require(world.files.withLock { $0.providers.first })
        #expect(saved.scopes == ["openid", "repo"] && saved.gitHosts?.map(\.host) == ["git.example"] && change.after == saved)
    }
}
