import AppCore
import AuthEngine
import FoundationEssentials
import Testing

/// The two credential-helper protocols' requests (gitcredentials(7), docker-credential-helpers)
/// and the host data of providers (§2).
@Suite("Credential helper requests: git's key=value lines, docker's server URL, provider hosts")
struct CredentialHelperRequestTests {
    static func git(_ text: String) throws(CredentialRequestError) -> GitCredentialRequest { try GitCredentialRequest.parse(Array(text.utf8)) }

    @Test("git: key=value lines to a blank line; unknown keys ignored; the last value of a key wins; capability[] collects")
    func gitRequest() throws {
        let request = try Self.git("protocol=https\nhost=github.com\nusername=x\nusername=alice\ncapability[]=authtype\ncapability[]=state\nwwwauth[]=Bearer realm=\"x\"\nfuture_key=1\n\nhost=ignored.example\n")
        #expect(request.protocolName == "https" && request.host == "github.com" && request.username == "alice")
        #expect(request.capabilities == ["authtype", "state"] && request.takesAuthtype)
        #expect(request.password == nil)
        let erase = try Self.git("protocol=http\nhost=127.0.0.1:8080\npassword=tok=en\n")
        #expect(erase.password?.exposedValue == "tok=en", "only the first '=' separates")
        #expect(!"\(erase)".contains("tok=en"), "a password never shows in a description")
        #expect(try Self.git("").host == nil)
        #expect(try Self.git("host=h").host == "h", "the last line may lack its newline")
    }

    @Test("git: url= stands for its parts, the others cleared")
    func gitURL() throws {
        let request = try Self.git("path=old\nurl=https://alice@git.example.com:8443/team/repo.git\n")
        #expect(request.protocolName == "https" && request.host == "git.example.com:8443" && request.username == "alice" && request.path == "team/repo.git")
    }

    @Test("git: a line without '=', an empty key, NUL, bad UTF-8 or an oversized request is refused, naming the line",
          arguments: [("no equals\n", "line 1"), ("host=a\n=b\n", "line 2"), ("host=a\0b\n", "NUL")] as [(String, String)])
    func gitRefusals(_ text: String, _ named: String) {
        do {
            _ = try Self.git(text)
            Issue.record("accepted \(text.debugDescription)")
        } catch {
            #expect(error.description.contains(named), "\(error)")
        }
        #expect(throws: CredentialRequestError.badLine(1, "is not UTF-8")) { try GitCredentialRequest.parse([0x68, 0x3D, 0xFF]) }
        #expect(throws: CredentialRequestError.tooLong(maximum: GitCredentialRequest.maximumSize)) {
            try GitCredentialRequest.parse([UInt8](repeating: 0x61, count: GitCredentialRequest.maximumSize + 1))
        }
    }

    @Test("docker: the server URL (trimmed) with or without a scheme; a userinfo, a control character or another scheme is refused")
    func dockerRequest() throws {
        let hub = try DockerCredentialRequest.parse(Array("https://index.docker.io/v1/\n".utf8))
        #expect(hub.serverURL == "https://index.docker.io/v1/" && hub.host == "index.docker.io")
        #expect(try DockerCredentialRequest.parse(Array("EU.gcr.io".utf8)).host == "eu.gcr.io")
        #expect(try DockerCredentialRequest.parse(Array("127.0.0.1:5000/v2".utf8)).host == "127.0.0.1:5000")
        for bad in ["", "\n", "https://user@gcr.io", "ftp://gcr.io", "gcr.io\u{1B}[2J", "a\nb"] {
            #expect(throws: CredentialRequestError.self, "\(bad.debugDescription)") { try DockerCredentialRequest.parse(Array(bad.utf8)) }
        }
    }

    @Test("Hosts: ASCII case ignored, ports exact, a leading * for any prefix without '/' or ':'")
    func hostMatching() {
        #expect(CredentialHost(host: "GitHub.com").matches("github.COM"))
        #expect(!CredentialHost(host: "github.com").matches("github.com:443"))
        #expect(!CredentialHost(host: "github.com").matches("evilgithub.com"))
        let gcr = CredentialHost(host: "*.gcr.io", username: "oauth2accesstoken")
        #expect(gcr.matches("eu.gcr.io") && !gcr.matches("gcr.io") && !gcr.matches(".gcr.io"))
        #expect(!gcr.matches("evil.com:1/.gcr.io") && !gcr.matches("a:1.gcr.io"))
        #expect(CredentialHost(host: "*-docker.pkg.dev").matches("europe-west1-docker.pkg.dev"))
        #expect(!CredentialHost(host: "kelvin.example").matches("\u{212A}elvin.example"), "KELVIN SIGN is not k")
    }

    @Test("Hosts: a * stands for DNS labels only (letters, digits, '-', '.'): ?, #, \\, @, %, _ and empty labels never match",
          arguments: ["evil.test?.gcr.io", "evil.test#.gcr.io", "evil.test\\.gcr.io", "a@b.gcr.io", "evil%2f.gcr.io", "a..gcr.io", ".x.gcr.io",
                      "a b.gcr.io", "a_b.gcr.io"])
    func wildcardLabels(_ name: String) {
        #expect(!CredentialHost(host: "*.gcr.io").matches(name), "\(name.debugDescription)")
        #expect(CredentialHost(host: "*.gcr.io").matches("us.eu.gcr.io"))
        #expect(!CredentialHost(host: "*-docker.pkg.dev").matches("evil.test?europe-docker.pkg.dev"))
    }

    @Test("docker: the ServerURL is an RFC 3986 URL: the host from its authority (not after ? or #), the scheme in any case, no \\")
    func dockerServerURLParsing() throws {
        for (text, host) in [("https://evil.test?.gcr.io", "evil.test"), ("https://evil.test#.gcr.io", "evil.test"), ("evil.test?.gcr.io", "evil.test"),
                             ("HTTP://gcr.io", "gcr.io")] {
            #expect(try DockerCredentialRequest.parse(Array(text.utf8)).host == host, "\(text)")
        }
        #expect(try DockerCredentialRequest.parse(Array("HTTP://gcr.io".utf8)).scheme == "http")
        #expect(try DockerCredentialRequest.parse(Array("gcr.io".utf8)).scheme == "https")
        for bad in ["https://evil.test\\.gcr.io", "evil.test\\.gcr.io", "https://evil%2e.gcr.io", "https://a@b@gcr.io", "https://gcr.io:99999"] {
            #expect(throws: CredentialRequestError.self, "\(bad)") { try DockerCredentialRequest.parse(Array(bad.utf8)) }
        }
    }

    @Test("providers.json: git hosts and registries read back as written; a provider without them writes neither member")
    func providerHostsJSON() throws {
        var config = ProviderConfig(id: "gh", issuer: nil, clientID: "c")
        #expect(config.json.objectValue?["gitHosts"] == nil && config.json.objectValue?["containerRegistries"] == nil)
        config.gitHosts = [CredentialHost(host: "github.com", username: "x-access-token"), CredentialHost(host: "git.example.com")]
        config.containerRegistries = [CredentialHost(host: "*.gcr.io", username: "oauth2accesstoken")]
        #expect(try ProviderConfig(json: config.json) == config)
    }

    @Test("Presets: GitHub's git host answers as x-access-token, GitLab's is its --domain as oauth2, Google's registries as oauth2accesstoken")
    func presetHosts() throws {
        let catalog = PresetCatalog.builtIn
        let github = try #require(catalog.preset(named: "github")).makeProvider(id: "gh", clientID: "c", domain: nil, tenant: nil)
        #expect(github.gitHosts == [CredentialHost(host: "github.com", username: "x-access-token")])
        let gitlab = try #require(catalog.preset(named: "gitlab")).makeProvider(id: "gl", clientID: "c", domain: "gitlab.example.com", tenant: nil)
        #expect(gitlab.gitHosts == [CredentialHost(host: "gitlab.example.com", username: "oauth2")])
        let google = try #require(catalog.preset(named: "google")).makeProvider(id: "g", clientID: "c", domain: nil, tenant: nil)
        #expect(google.containerRegistries?.allSatisfy { $0.username == "oauth2accesstoken" } == true)
        #expect(google.containerRegistries?.contains { $0.matches("us-docker.pkg.dev") } == true)
    }
}
