// Issuer checks: `provider add` fetches the issuer's discovery document first and
// says at once what failed (exit 1, nothing saved); `--no-probe` adds offline. The real binary
// against the local provider, a closed loopback port and a name that never resolves (.test).
import Foundation
import Testing
import TestSupport

@Suite("provider add probes discovery (real binary)", .serialized)
struct ProviderProbeCLITests {
    @Test("An unreachable or wrong issuer is refused at once, naming DNS / connect / HTTP 404 and the --no-probe hint; nothing is saved", arguments: [
        ("https://op.test/o", "(DNS)"),
        ("http://127.0.0.1:9/o", "(connect)"),
    ])
    func unreachableIssuerRefused(_ issuer: String, _ named: String) async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let add = try await home.run(["provider", "add", "work", "--issuer", issuer, "--client-id", "c"])
        #expect(add.exitCode == 1, "\(add)")
        #expect(add.stderr.contains(named), "\(add.stderr)")
        #expect(add.stderr.contains("add --no-probe to add it anyway") || add.stderr.contains("Add --no-probe to add it anyway"), "\(add.stderr)")
        let list = try await home.run(["provider", "list", "--json"])
        #expect(!list.stdout.contains("work"), "nothing was saved: \(list.stdout)")
        let offline = try await home.run(["provider", "add", "work", "--issuer", issuer, "--client-id", "c", "--no-probe"])
        #expect(offline.exitCode == 0, "--no-probe adds it offline: \(offline)")
    }

    @Test("A preset's issuer built from --domain that does not resolve: the advice names --domain, the option that was given, not --issuer")
    func presetDomainNamedInAdvice() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let add = try await home.run(["provider", "add", "work", "--preset", "auth0", "--domain", "op.test", "--client-id", "c"])
        #expect(add.exitCode == 1, "\(add)")
        #expect(add.stderr.contains("(DNS)") && add.stderr.contains("check --domain for a typo") && !add.stderr.contains("--issuer"), "\(add.stderr)")
        let plain = try await home.run(["provider", "add", "work", "--issuer", "https://op.test/o", "--client-id", "c"])
        #expect(plain.stderr.contains("check --issuer for a typo"), "\(plain.stderr)")
    }

    @Test("A transport error says that a proxy was configured for the request (from HTTPS_PROXY), never the proxy's user name or password")
    func transportErrorNamesTheProxy() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let proxy = ["HTTPS_PROXY": "http://proxyuser:proxy-secret-42@127.0.0.1:9"]
        let add = try await home.run(["provider", "add", "work", "--issuer", "https://op.example.test", "--client-id", "c"], extra: proxy)
        #expect(add.exitCode == 1, "\(add)")
        #expect(add.stderr.contains("(through the proxy http://127.0.0.1:9 from HTTPS_PROXY)"), "\(add.stderr)")
        let token = "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJ4In0.c2ln"
        let verify = try await home.run(["decode", "--verify", "--issuer", "https://op.example.test", "--audience", "c", token], extra: proxy)
        #expect(verify.exitCode != 0 && verify.stderr.contains("through the proxy http://127.0.0.1:9 from HTTPS_PROXY"), "\(verify)")
        for output in [add.stderr, add.stdout, verify.stderr, verify.stdout] {
            #expect(!output.contains("proxy-secret-42") && !output.contains("proxyuser"), "no proxy credentials: \(output)")
        }
        // A host NO_PROXY names goes direct: no proxy is mentioned.
        let direct = try await home.run(["provider", "add", "work", "--issuer", "https://op.example.test", "--client-id", "c"],
                                        extra: proxy.merging(["NO_PROXY": "example.test", "no_proxy": "example.test"], uniquingKeysWith: { $1 }))
        #expect(direct.exitCode == 1 && !direct.stderr.contains("through the proxy"), "\(direct.stderr)")
    }

    @Test("django-oauth-toolkit: its issuer is added after the probe; a wrong path is 'HTTP 404'")
    func localProvider() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try CLIHome()
        defer { home.remove() }
        let wrong = try await home.run(["provider", "add", "wrong", "--issuer", idp.issuer.absoluteString + "/nothing-here", "--client-id", "c"])
        #expect(wrong.exitCode == 1, "\(wrong)")
        #expect(wrong.stderr.contains("(HTTP 404)"), "\(wrong.stderr)")
        try await home.addLocalProvider(idp)
    }

    @Test("provider set changes a saved provider in place (git host, scopes; a list replaced, the rest kept); the probe's failure changes nothing and says 'not changed' with '--no-probe to change it'; --preset is add's alone")
    func providerSetInPlace() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        #expect(try await home.run(["provider", "add", "work", "--issuer", "https://op.test/o", "--client-id", "c", "--no-probe"]).exitCode == 0)
        let set = try await home.run(["provider", "set", "work", "--git-host", "git.example", "--scope", "openid repo", "--no-probe"])
        #expect(set.exitCode == 0 && set.stderr.contains("Changed provider 'work'"), "\(set)")
        let shown = try await home.run(["provider", "show", "work"])
        #expect(shown.stdout.contains("git host: git.example") && shown.stdout.contains("scopes: openid repo")
            && shown.stdout.contains("client id: c") && shown.stdout.contains("issuer: https://op.test/o"), "\(shown.stdout)")
        let probed = try await home.run(["provider", "set", "work", "--issuer", "https://elsewhere.test/o"])
        #expect(probed.exitCode == 1 && probed.stderr.contains("not changed") && probed.stderr.contains("(DNS)")
            && probed.stderr.contains("--no-probe to change it anyway"), "\(probed)")
        #expect(try await home.run(["provider", "show", "work"]).stdout.contains("issuer: https://op.test/o"), "nothing changed")
        let preset = try await home.run(["provider", "set", "work", "--preset", "auth0"])
        #expect(preset.exitCode == 2 && preset.stderr.contains("unknown option '--preset'"), "\(preset)")
        let secret = try await home.run(["provider", "set", "work", "--client-authentication", "client_secret_post", "--client-secret-stdin",
                                         "--no-probe"], stdin: Data("s3cret".utf8))
        #expect(secret.exitCode == 0, "\(secret)")
        let public_ = try await home.run(["provider", "set", "work", "--client-authentication", "none", "--no-probe"])
        #expect(public_.exitCode == 0 && public_.stderr.contains("Its client secret was deleted from the credential store"), "\(public_)")
        // A list given replaces the list: --trusted-audience too (it appended, widening the ID tokens accepted).
        #expect(try await home.run(["provider", "set", "work", "--trusted-audience", "a1", "--no-probe"]).exitCode == 0)
        #expect(try await home.run(["provider", "set", "work", "--trusted-audience", "a2", "--no-probe"]).exitCode == 0)
        let audiences = try await home.run(["provider", "show", "work"]).stdout
        #expect(audiences.contains("trusted audiences: a2\n"), "\(audiences)")
        let unknown = try await home.run(["provider", "set", "nope", "--no-probe"])
        #expect(unknown.exitCode == 2 && unknown.stderr.contains("Unknown provider 'nope'"), "\(unknown)")
    }
}
