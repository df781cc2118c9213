// `authdeck provider presets` and `provider add --preset` with the user's own preset files, through
// the real binary (presets as data).
import Foundation
import Testing

@Suite("Presets through the CLI: provider presets, user files, bad files, completion")
struct ProviderPresetTests {
    /// Writes `$XDG_CONFIG_HOME/authdeck/presets/<name>.json`.
    func writePreset(_ home: CLIHome, _ name: String, _ json: String) throws {
        let folder = URL(fileURLWithPath: home.environment["XDG_CONFIG_HOME"]!).appendingPathComponent("authdeck/presets")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(json.utf8).write(to: folder.appendingPathComponent(name + ".json"))
    }

    static let corp = #"""
    {"name": "corp", "displayName": "Corp SSO", "identity": "idToken", "revocation": "rfc7009", "logout": "endSession",
     "tenant": {"meaning": "the realm", "default": "staff"},
     "provider": {"displayName": "Corp ({tenant})", "issuer": "https://sso.corp.example/realms/{tenant}",
                  "scopes": ["openid", "email"], "additionalTrustedAudiences": ["https://api.corp.example"]},
     "sources": {"provider.issuer": "https://wiki.corp.example/sso"}}
    """#

    @Test("provider presets: every built-in with what --domain and --tenant mean; --json names the origin")
    func listsBuiltIns() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let text = try await home.run(["provider", "presets"])
        #expect(text.exitCode == 0, "\(text)")
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines.map { String($0.split(separator: "\t")[0]) } == ["auth0", "github", "apple", "logto", "google", "entra", "okta", "keycloak", "gitlab"])
        #expect(lines[0] == "auth0\tAuth0\t--domain: the tenant domain, e.g. example.eu.auth0.com (required)\t--tenant: not used\tbuilt-in")
        #expect(lines.contains { $0.hasPrefix("keycloak\tKeycloak\t--domain: the Keycloak host") && $0.contains("--tenant: the realm, e.g. myrealm (required)") })
        let json = try await home.run(["provider", "presets", "--json"])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(list.count == 9)
        let entra = try #require(list.first { $0["name"] as? String == "entra" })
        #expect((entra["tenant"] as? [String: Any])?["default"] as? String == "common")
        #expect(entra["origin"] as? String == "built-in")
        #expect((entra["sources"] as? [String: String])?["provider.issuer"]?.hasPrefix("https://learn.microsoft.com/") == true)
    }

    @Test("A user preset is listed with its path, used by provider add (tenant default, trusted audiences), and completed")
    func userPresetAddsAProvider() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        try writePreset(home, "corp", Self.corp)
        let list = try await home.run(["provider", "presets"])
        #expect(list.stdout.contains("corp\tCorp SSO\t--domain: not used\t--tenant: the realm (default staff)\t"), "\(list)")
        #expect(list.stdout.contains("/authdeck/presets/corp.json"))
        let added = try await home.run(["provider", "add", "--no-probe", "work", "--preset", "corp", "--client-id", "cli"])
        #expect(added.exitCode == 0, "\(added)")
        let shown = try await home.run(["provider", "show", "work", "--json"])
        let config = try jsonObject(shown.stdout)
        #expect(config["issuer"] as? String == "https://sso.corp.example/realms/staff")
        #expect(config["displayName"] as? String == "Corp (staff)")
        #expect(config["trustedAudiences"] as? [String] == ["https://api.corp.example"])
        #expect(config["preset"] as? String == "corp")
        let names = try await home.run(["__complete", "presets"])
        #expect(names.stdout.split(separator: "\n").contains("corp"), "\(names)")
    }

    @Test("Logto preset: provider add stores claimTimeUnits (created_at, updated_at in ms) and provider show says so")
    func logtoClaimTimeUnitsShown() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let added = try await home.run(["provider", "add", "--no-probe", "logto", "--preset", "logto", "--domain", "tenant.logto.app", "--client-id", "app"])
        #expect(added.exitCode == 0, "\(added)")
        let show = try await home.run(["provider", "show", "logto"])
        #expect(show.stdout.contains("claim time units: created_at ms, updated_at ms\n"), "\(show.stdout)")
    }

    @Test("A bad user preset file is named with its field on stderr and hides nothing else")
    func badUserPresetNamed() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        try writePreset(home, "corp", Self.corp)
        try writePreset(home, "okta", Self.corp.replacingOccurrences(of: "\"corp\"", with: "\"okta\"")
            .replacingOccurrences(of: #""scopes": ["openid", "email"]"#, with: #""scopes": "openid email""#))
        let list = try await home.run(["provider", "presets"])
        #expect(list.exitCode == 0, "\(list)")
        #expect(list.stderr.contains("/authdeck/presets/okta.json: provider.scopes: wrong type (expected an array)"), "\(list.stderr)")
        #expect(list.stdout.contains("okta\tOkta\t") && list.stdout.contains("\tbuilt-in\n"), "the built-in okta stays")
        #expect(list.stdout.contains("corp\tCorp SSO"), "the other file still loads")
        let unknown = try await home.run(["provider", "add", "x", "--preset", "nope", "--client-id", "c"])
        #expect(unknown.exitCode == 2 && unknown.stderr.contains("known presets: auth0, github"), "\(unknown)")
        #expect(unknown.stderr.contains("corp"))
    }
}
