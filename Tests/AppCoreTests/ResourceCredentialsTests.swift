import AppCore
import Foundation
import Testing

/// Credentials in a resource URL, for `provider add --resource` and `provider set`:
/// `login URL` and `login --resource` refused a user name or password, but a provider's saved
/// resources went into providers.json, every token request and the browser's argv with them.
@Suite("A provider's resources and audience carry no credentials")
struct ResourceCredentialsTests {
    private func config(resources: [String] = [], audience: String? = nil) -> ProviderConfig {
        var config = ProviderConfig(id: "work", issuer: URL(string: "https://op.example")!, clientID: "c")
        config.resources = resources
        config.audience = audience
        return config
    }

    @Test("A --resource or --audience URI with a user name or password is refused before saving, the password shown nowhere", arguments: [
        ("https://user:s3cret@api.example/mcp", String?.none, "--resource"), ("https://s3cret@api.example/", String?.none, "--resource"),
        (String?.none, "https://user:s3cret@api.example/", "--audience"),
    ] as [(String?, String?, String)])
    func credentialsRefused(_ resource: String?, _ audience: String?, _ option: String) {
        let violations = config(resources: resource.map { [$0] } ?? [], audience: audience).validate()
        let violation = violations.first
        #expect(violation?.description.hasPrefix(option + ":") == true, "\(violations)")
        #expect(violation?.description.contains("s3cret") == false && violation?.hint.contains("s3cret") == false, "\(violations)")
        #expect(violation?.description.contains("api.example") == true, "names the resource without them: \(violations)")
    }

    @Test("Resources and audiences without credentials pass, an audience that is no URI (Auth0's identifiers) too")
    func plainOnesPass() {
        #expect(config(resources: ["https://api.example/mcp", "urn:example:api"], audience: "my-api").validate().isEmpty)
        var plain = config()
        plain.extraAuthorizationParameters = ["login_hint": "alice@example.com", "next": "https://app.example/a@b"]
        plain.gitHosts = [CredentialHost(host: "*.gcr.io", username: "oauth2")]
        #expect(plain.validate().isEmpty)
    }

    @Test("A user name or password in a --git-host, --registry, --trusted-audience or URL --authorization-parameter is refused, shown nowhere",
          arguments: ["git-host", "registry", "trusted-audience", "authorization-parameter"])
    func credentialsRefusedElsewhere(_ option: String) {
        var config = config()
        switch option {
        case "git-host": config.gitHosts = [CredentialHost(host: "user:s3cret@git.example", username: nil)]
        case "registry": config.containerRegistries = [CredentialHost(host: "s3cret@registry.example", username: nil)]
        case "trusted-audience": config.additionalTrustedAudiences = ["https://user:s3cret@api.example/"]
        default: config.extraAuthorizationParameters = ["resource_hint": "https://user:s3cret@api.example/x"]
        }
        let violations = config.validate()
        #expect(violations.first?.description.hasPrefix("--\(option):") == true, "\(violations)")
        #expect(!"\(violations)".contains("s3cret") && violations.first?.hint.contains("s3cret") == false, "\(violations)")
        #expect(violations.first?.description.contains(".example") == true, "names it without them: \(violations)")
    }
}
