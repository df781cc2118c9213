// Provider presets as data: presets/*.json, the embedded copies, the user's files, the
// errors that name file and field, and the generic mapping onto ProviderConfig.
import Foundation
import Testing
@testable import AppCore

@Suite("Presets: presets/*.json, user files, errors, mapping onto ProviderConfig")
struct PresetTests {
    static let presetsDir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("presets")

    static func file(_ json: String, path: String = "/home/u/.config/authdeck/presets/mine.json") -> PresetCatalog.UserFile {
        PresetCatalog.UserFile(path: path, data: Data(json.utf8))
    }

    static let minimal = #"""
    {"name": "mine", "displayName": "Mine", "identity": "idToken", "revocation": "rfc7009", "logout": "endSession",
     "domain": {"meaning": "the host", "required": true},
     "provider": {"issuer": "https://{domain}/oidc", "scopes": ["openid"]},
     "sources": {"provider.issuer": "https://docs.example/issuer"}}
    """#

    @Test("Each presets/<name>.json is byte for byte the embedded built-in (scripts/embed-presets)", arguments: BuiltInPresets.names)
    func filesMatchEmbedded(name: String) throws {
        let text = try String(contentsOf: Self.presetsDir.appendingPathComponent(name + ".json"), encoding: .utf8)
        let embedded = try #require(BuiltInPresets.sources[name])
        #expect(embedded + "\n" == text, "run scripts/embed-presets")
        let preset = try ProviderPreset.parse(Data(text.utf8), file: "presets/\(name).json")
        #expect(preset.name == name)
        #expect(!preset.sources.isEmpty && preset.sources.values.allSatisfy { $0.hasPrefix("https://") })
    }

    @Test("presets/ holds exactly the built-ins, and every built-in parses")
    func folderIsTheBuiltIns() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.presetsDir.path).filter { $0.hasSuffix(".json") }
        #expect(Set(files.map { String($0.dropLast(5)) }) == Set(BuiltInPresets.names))
        #expect(Set(BuiltInPresets.sources.keys) == Set(BuiltInPresets.names))
        #expect(PresetCatalog.builtIn.names == BuiltInPresets.names)
        #expect(PresetCatalog.builtIn.problems.isEmpty)
    }

    @Test("Auth0 preset: issuer with the trailing slash, /oauth/revoke, --domain required, https:// and / trimmed, http refused")
    func auth0Domain() throws {
        let auth0 = try #require(PresetCatalog.builtIn.preset(named: "auth0"))
        let config = try auth0.makeProvider(id: ProviderID("a0"), clientID: "abc", domain: "https://t.eu.auth0.com/", tenant: nil)
        #expect(config.issuer?.absoluteString == "https://t.eu.auth0.com/")
        #expect(config.endpoints.revocation?.absoluteString == "https://t.eu.auth0.com/oauth/revoke")
        #expect(config.displayName == "Auth0 (t.eu.auth0.com)")
        #expect(config.clientID == "abc" && config.id == ProviderID("a0") && config.preset == "auth0")
        // The CLI's words in the description; the facts for other front ends in `parameter`.
        let missing = #expect(throws: PresetError.self) { try auth0.makeProvider(id: ProviderID("a0"), clientID: "abc", domain: nil, tenant: nil) }
        #expect(missing?.description == "--domain: --preset auth0 needs --domain: the tenant domain (e.g. --domain example.eu.auth0.com)")
        #expect(missing?.parameter?.name == .domain && missing?.parameter?.problem == .missing(meaning: "the tenant domain", example: "example.eu.auth0.com"))
        #expect(throws: PresetError.self) { try auth0.makeProvider(id: ProviderID("a0"), clientID: "abc", domain: "http://t.auth0.com", tenant: nil) }
        #expect(throws: PresetError.self) { try auth0.makeProvider(id: ProviderID("a0"), clientID: "abc", domain: "t.auth0.com/evil?x", tenant: nil) }
        let unused = #expect(throws: PresetError.self) { try auth0.makeProvider(id: ProviderID("a0"), clientID: "abc", domain: "t.auth0.com", tenant: "x") }
        #expect(unused?.description == "--tenant: the preset auth0 does not use --tenant" && unused?.parameter?.problem == .notUsed(preset: "auth0"))
        // Auth0 asks for an audience (its data, presets/auth0.json); given, it is the provider's.
        #expect(auth0.audience?.example == "https://api.example.com" && auth0.audience?.required == false)
        let withAudience = try auth0.makeProvider(id: ProviderID("a0"), clientID: "abc", domain: "t.eu.auth0.com", tenant: nil, audience: "https://api.test")
        #expect(withAudience.audience == "https://api.test")
    }

    @Test("Preset --domain / --tenant: percent escapes, backslashes, braces and control characters are refused, never put into the issuer URL",
          arguments: ["t.auth0.com%2f..", "t.auth0.com%2F@evil.com", "t.auth0.com\\evil.com", "{tenant}", "t.auth0.com\u{1B}[31m", "t.auth0.com\u{7F}"])
    func hostileDomainAndTenant(_ value: String) throws {
        let auth0 = try #require(PresetCatalog.builtIn.preset(named: "auth0"))
        #expect(throws: PresetError.self) { try auth0.makeProvider(id: ProviderID("a0"), clientID: "abc", domain: value, tenant: nil) }
        let keycloak = try #require(PresetCatalog.builtIn.preset(named: "keycloak"))
        #expect(throws: PresetError.self) { try keycloak.makeProvider(id: ProviderID("k"), clientID: "c", domain: "sso.example", tenant: value) }
    }

    @Test("Entra and Okta presets: --tenant defaults (common, default); Keycloak needs the realm; GitLab defaults to gitlab.com")
    func tenantDefaults() throws {
        let catalog = PresetCatalog.builtIn
        let entra = try catalog.preset(named: "entra")!.makeProvider(id: ProviderID("e"), clientID: "c", domain: nil, tenant: nil)
        #expect(entra.issuer?.absoluteString == "https://login.microsoftonline.com/common/v2.0")
        let okta = try catalog.preset(named: "okta")!.makeProvider(id: ProviderID("o"), clientID: "c", domain: "x.okta.com", tenant: "aus9")
        #expect(okta.issuer?.absoluteString == "https://x.okta.com/oauth2/aus9")
        #expect(throws: PresetError.self) { try catalog.preset(named: "keycloak")!.makeProvider(id: ProviderID("k"), clientID: "c", domain: "sso.example", tenant: nil) }
        #expect(throws: PresetError.self) { try catalog.preset(named: "keycloak")!.makeProvider(id: ProviderID("k"), clientID: "c", domain: "sso.example", tenant: "a/b") }
        let gitlab = try catalog.preset(named: "gitlab")!.makeProvider(id: ProviderID("g"), clientID: "c", domain: nil, tenant: nil)
        #expect(gitlab.issuer?.absoluteString == "https://gitlab.com")
        let github = try catalog.preset(named: "github")!.makeProvider(id: ProviderID("gh"), clientID: "c", domain: nil, tenant: nil)
        #expect(github.issuer == nil && github.extraHeaders["Accept"] == "application/json")
        #expect(github.endpoints.userinfo?.absoluteString == "https://api.github.com/user")
    }

    @Test("A user file overrides the built-in of its name and adds new ones; the origin is its path")
    func userFilesOverrideAndAdd() throws {
        let override = Self.minimal.replacingOccurrences(of: "\"mine\"", with: "\"okta\"")
        let catalog = PresetCatalog.load(userFiles: [
            Self.file(Self.minimal),
            Self.file(override, path: "/p/okta.json"),
        ])
        #expect(catalog.problems.isEmpty, "\(catalog.problems)")
        #expect(catalog.names == BuiltInPresets.names + ["mine"])
        #expect(catalog.entry(named: "okta")?.origin == .file("/p/okta.json"))
        #expect(catalog.entry(named: "auth0")?.origin == .builtIn)
        let mine = try catalog.preset(named: "mine")!.makeProvider(id: ProviderID("m"), clientID: "c", domain: "id.example", tenant: nil)
        #expect(mine.issuer?.absoluteString == "https://id.example/oidc" && mine.scopes == ["openid"])
    }

    @Test("Any ProviderConfig field is a preset field by its name, with no preset code for it (additionalTrustedAudiences, multiTenantEntra)")
    func genericMapping() throws {
        let json = Self.minimal.replacingOccurrences(
            of: #""scopes": ["openid"]"#,
            with: #""scopes": ["openid"], "additionalTrustedAudiences": ["https://api.{domain}"], "multiTenantEntra": true, "clientAuthentication": "client_secret_post""#)
        let preset = try ProviderPreset.parse(Data(json.utf8), file: "mine.json")
        let config = try preset.makeProvider(id: ProviderID("m"), clientID: "c", domain: "id.example", tenant: nil)
        #expect(config.additionalTrustedAudiences == ["https://api.id.example"])
        #expect(config.multiTenantEntra == true)
        #expect(config.clientAuthentication == .clientSecretPost)
    }

    @Test("A bad user file names the file and the field, and hides neither the built-ins nor the other files", arguments: [
        (#""scopes": ["openid"]"#, #""scopes": "openid""#, "provider.scopes"),
        (#""scopes": ["openid"]"#, #""scopes": ["openid"], "endpoints": {"tokn": "https://x"}"#, "provider.endpoints.tokn"),
        (#""scopes": ["openid"]"#, #""scopes": ["openid"], "clientID": "x""#, "provider.clientID"),
        (#""scopes": ["openid"]"#, #""scopes": ["openid"], "clientAuthentication": "magic""#, "provider.clientAuthentication"),
        (#""logout": "endSession""#, #""logout": "sometimes""#, "logout"),
        (#""meaning": "the host", "#, "", "domain.meaning"),
        (#""https://docs.example/issuer""#, #""http://docs.example/issuer""#, "sources.provider.issuer"),
        (#""provider.issuer""#, #""provider.jwks""#, "sources.provider.jwks"),
        (#""displayName": "Mine","#, #""displayName": "Mine", "colour": "red","#, "colour"),
        (#""scopes": ["openid"]"#, #""scopes": ["openid"], "scopes": ["openid", "evil"]"#, "scopes"),
    ])
    func badUserFile(find: String, replace: String, field: String) throws {
        let bad = Self.minimal.replacingOccurrences(of: find, with: replace)
        #expect(bad != Self.minimal)
        let other = Self.minimal.replacingOccurrences(of: "\"mine\"", with: "\"other\"")
        let catalog = PresetCatalog.load(userFiles: [Self.file(bad), Self.file(other, path: "/p/other.json")])
        #expect(catalog.problems.count == 1)
        #expect(catalog.problems.first?.file == "/home/u/.config/authdeck/presets/mine.json")
        #expect(catalog.problems.first?.field == field, "\(catalog.problems)")
        #expect(catalog.names == BuiltInPresets.names + ["other"])
    }

    @Test("A bad provider member is said as before: wrong type, the allowed values, an unknown member by name (read with ProviderConfig(json:))", arguments: [
        (#""scopes": "openid""#, "provider.scopes", "wrong type (expected an array)"),
        (#""scopes": ["openid", 7]"#, "provider.scopes[1]", "wrong type (expected a string)"),
        (#""scopes": ["openid"], "endpoints": {"token": 7}"#, "provider.endpoints.token", "wrong type (expected a string)"),
        (#""scopes": ["openid"], "clientAuthentication": "magic""#, "provider.clientAuthentication",
         "invalid value (expected one of none, client_secret_basic, client_secret_post, private_key_jwt)"),
        (#""scopes": ["openid"], "claimTimeUnits": {"created_at": "minutes"}"#, "provider.claimTimeUnits.created_at", "invalid value (expected one of s, ms)"),
        (#""scopes": ["openid"], "multiTenantEntra": "yes""#, "provider.multiTenantEntra", "wrong type (expected true or false)"),
        (#""scopes": ["openid"], "colour": "red""#, "provider.colour", "unknown field (known: "),
    ])
    func providerMemberProblems(replacement: String, field: String, problem: String) throws {
        let bad = Self.minimal.replacingOccurrences(of: #""scopes": ["openid"]"#, with: replacement)
        do {
            _ = try ProviderPreset.parse(Data(bad.utf8), file: "f.json")
            Issue.record("parsed")
        } catch {
            #expect(error.file == "f.json" && error.field == field, "\(error)")
            #expect(error.problem.hasPrefix(problem), "\(error)")
        }
    }

    @Test("A user file whose name is not its file name, or that is not JSON, is refused by name")
    func fileNameAndJSON() {
        let catalog = PresetCatalog.load(userFiles: [
            Self.file(Self.minimal, path: "/p/auth0.json"),
            Self.file("{not json", path: "/p/broken.json"),
            PresetCatalog.UserFile(path: "/p/unreadable.json", data: nil),
        ])
        #expect(catalog.problems.map(\.file) == ["/p/auth0.json", "/p/broken.json", "/p/unreadable.json"])
        #expect(catalog.problems.first?.field == "name")
        #expect(catalog.entry(named: "auth0")?.origin == .builtIn, "a broken override keeps the built-in")
    }

    @Test("A template using {tenant} without declaring tenant is refused")
    func undeclaredPlaceholder() {
        let bad = Self.minimal.replacingOccurrences(of: "/oidc", with: "/{tenant}")
        #expect(throws: PresetError(file: "f.json", field: "provider", problem: "uses {tenant} but the preset declares no tenant")) {
            try ProviderPreset.parse(Data(bad.utf8), file: "f.json")
        }
    }
}
