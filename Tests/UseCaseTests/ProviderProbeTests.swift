import AppCore
import AuthEngine
import Foundation
import Testing

/// Issuer checks: `provider add` probes discovery (OIDC Discovery 1.0 §4, RFC 8414
/// §3) and says at once what failed; `--no-probe` adds offline.
@Suite("provider add probes discovery (use case, stub environment)")
struct ProviderProbeTests {
    /// A new provider "new" over the world's stub provider (the HTTP edge routes any host to it).
    private func newProvider(_ world: StubWorld, issuer: String? = nil) -> ProviderConfig {
        var config = world.provider.config
        config.id = "new"
        if let issuer { config.issuer = URL(string: issuer)! }
        return config
    }

    /// The world with no provider configured yet.
    private func emptyWorld() -> StubWorld {
        let world = StubWorld()
        world.files.withLock { $0.providers = [] }
        return world
    }

    private func failure(_ world: StubWorld, _ config: ProviderConfig, http: HTTPClient? = nil) async -> AppError? {
        var env = world.environment()
        if let http { env.http = { _ in http } }
        do {
            try await ProviderAdmin(env).add(config, clientSecret: nil, probe: .discovery)
            return nil
        } catch {
            #expect(!world.files.withLock { $0.providers.contains { $0.id == config.id } }, "nothing saved when the probe fails")
            return error
        }
    }

    private static func failing(_ error: TransportError) -> HTTPClient {
        HTTPClient { (_: HTTPRequest) async throws(TransportError) -> HTTPResponse in throw error }
    }

    @Test("OIDC Discovery §4: a reachable provider whose document checks out is added after one GET with the probe's short timeout")
    func goodProviderIsAdded() async throws {
        let world = emptyWorld()
        try await ProviderAdmin(world.environment()).add(newProvider(world), clientSecret: nil, probe: .discovery)
        #expect(world.files.withLock { $0.providers.map(\.id) } == ["new"])
        let requests = world.provider.requests.withLock { $0 }
        #expect(requests.map(\.url.path) == ["/.well-known/openid-configuration"])
        #expect(requests.first?.timeout == ProviderAdmin.probeTimeout)
    }

    @Test("--no-probe (.skip) and manual endpoints add without any request")
    func noProbeAndManualEndpoints() async throws {
        let world = emptyWorld()
        world.provider.script.withLock { $0.discoveryStatus = 503 }
        try await ProviderAdmin(world.environment()).add(newProvider(world), clientSecret: nil, probe: .skip)
        var manual = newProvider(world)
        manual.id = "manual"
        manual.issuer = nil
        manual.endpoints = EndpointOverrides(authorization: URL(string: "https://op.example/authorize")!, token: URL(string: "https://op.example/token")!)
        try await ProviderAdmin(world.environment()).add(manual, clientSecret: nil, probe: .discovery)
        #expect(world.provider.total == 0)
        #expect(world.files.withLock { $0.providers.map(\.id) } == ["new", "manual"])
    }

    @Test("Each failure is named with its facts (what failed, where), never a front end's advice: DNS, connect, timeout, TLS", arguments: [
        (TransportError.connection(url: "https://op.example/.well-known/openid-configuration", detail: "Could not resolve host: op.example"), "(DNS)",
         ProviderProbeFailure.Cause.hostNotFound(host: "op.test")),
        (TransportError.connection(url: "https://op.example/.well-known/openid-configuration", detail: "Failed to connect to op.example port 443: Connection refused"), "(connect)",
         .noConnection(host: "op.test")),
        (TransportError.timeout(url: "https://op.example/.well-known/openid-configuration", seconds: 10), "(timeout)", .timeout(seconds: 10)),
        (TransportError.tls(url: "https://op.example/.well-known/openid-configuration", detail: "unable to get local issuer certificate"), "(TLS)", .tls),
    ])
    func transportFailures(_ transport: TransportError, _ named: String, _ cause: ProviderProbeFailure.Cause) async throws {
        let world = emptyWorld()
        let error = try #require(await failure(world, newProvider(world), http: Self.failing(transport)))
        #expect(error.title.contains(named), "\(error.title)")
        #expect(error.probe == ProviderProbeFailure(url: "https://op.test/.well-known/openid-configuration", cause: cause))
        #expect(error.detail.hasPrefix("GET https://op.test/.well-known/openid-configuration: "), "\(error.detail)")
        #expect(error.detail.components(separatedBy: "/.well-known").count == 2, "the URL said once: \(error.detail)")
        #expect(!error.detail.contains("--"), "no command-line option in the facts: \(error.detail)")
        #expect(error.disposition == .other, "exit 1 (README: failure, network)")
    }

    @Test("OIDC Discovery §4.2: HTTP 404 is named 'HTTP 404'")
    func httpStatus() async throws {
        let world = emptyWorld()
        world.provider.script.withLock { $0.discoveryStatus = 404 }
        let error = try #require(await failure(world, newProvider(world)))
        #expect(error.title.contains("(HTTP 404)"), "\(error.title)")
        #expect(error.probe?.cause == .httpStatus(404))
        #expect(error.detail.hasSuffix(": answered HTTP 404") && !error.detail.contains("--"), "\(error.detail)")
    }

    @Test("OIDC Discovery §4.2: an HTML page instead of the JSON document is named 'not JSON'")
    func notJSON() async throws {
        let world = emptyWorld()
        let html = HTTPClient { (_: HTTPRequest) async throws(TransportError) -> HTTPResponse in
            HTTPResponse(status: 200, headers: ["Content-Type": "text/html"], body: Data("<html>login</html>".utf8))
        }
        let error = try #require(await failure(world, newProvider(world), http: html))
        #expect(error.title.contains("(not JSON)"), "\(error.title)")
    }

    @Test("OIDC Discovery §4.3: a document naming another issuer is named 'issuer mismatch' with the issuer it names")
    func issuerMismatch() async throws {
        let world = emptyWorld()
        let error = try #require(await failure(world, newProvider(world, issuer: "https://elsewhere.example")))
        #expect(error.title.contains("(issuer mismatch)"), "\(error.title)")
        #expect(error.probe?.cause == .issuerMismatch(published: world.provider.issuer, configured: "https://elsewhere.example"), "\(String(describing: error.probe))")
    }

    @Test("A name in use is refused before any probe (usage error)")
    func nameInUseFirst() async throws {
        let world = StubWorld()
        var env = world.environment()
        env.http = { _ in Self.failing(.timeout(url: "u", seconds: 10)) }
        do {
            try await ProviderAdmin(env).add(world.provider.config, clientSecret: nil, probe: .discovery)
            Issue.record("a duplicate provider was added")
        } catch {
            #expect(error.disposition == .usage)
            #expect(error.title.contains("exists already"))
        }
    }

    @Test("A name with an invisible or look-alike character (U+200B, U+202E, a control, a filler, Cyrillic а, fullwidth letters), a space or '/' is refused before any probe",
          arguments: ["git\u{200B}hub", "work\u{202E}", "a\u{7}b", "a b", "a/b", "", "\u{E000}x", "work\u{3164}", "work\u{34F}",
                      "loc\u{430}l", "\u{FF4C}ocal", "Ünï"])
    func unusableNameRefused(_ name: String) async throws {
        let world = StubWorld()
        var env = world.environment()
        env.http = { _ in Self.failing(.timeout(url: "u", seconds: 10)) }
        var config = world.provider.config
        config.id = ProviderID(name)
        await #expect(throws: AppError.self) { try await ProviderAdmin(env).add(config, clientSecret: nil, probe: .discovery) }
        #expect(ProviderID.nameProblem(name) != nil)
    }

    @Test("A name canonically equal to an older provider's (K beside a KELVIN SIGN provider named before names were ASCII) is refused, naming that provider")
    func lookalikeNameRefused() async throws {
        let world = StubWorld()
        var env = world.environment()
        env.http = { _ in Self.failing(.timeout(url: "u", seconds: 10)) }
        var older = world.provider.config
        older.id = ProviderID("\u{212A}")
        try env.files.saveProvider(older)
        var decomposed = older
        decomposed.id = ProviderID("K")
        do {
            try await ProviderAdmin(env).add(decomposed, clientSecret: nil, probe: .skip)
            Issue.record("a look-alike provider was added")
        } catch {
            #expect(error.disposition == .usage)
            #expect(error.title.contains("looks the same"), "\(error.title)")
        }
        #expect(ProviderID.nameProblem("Work-2.example_x:1@+") == nil)
    }
}
