import AppCore
import Foundation

/// `authdeck provider add NAME --preset P`: the documented endpoints and quirks of well-known
/// providers (each from the provider's own documentation).
struct ProviderPreset: Sendable {
    var name: String
    /// What `--domain` means for this preset (nil: not used).
    var domainHelp: String?
    /// A note printed after `provider add`.
    var note: String?
    var build: @Sendable (_ id: ProviderID, _ clientID: String, _ domain: String?, _ tenant: String?) throws -> ProviderConfig

    func make(_ id: ProviderID, clientID: String, domain: String?, tenant: String?) throws -> ProviderConfig {
        var config = try build(id, clientID, domain, tenant)
        config.preset = name
        return config
    }

    static func named(_ name: String) -> ProviderPreset? { all.first { $0.name == name } }

    static func requireDomain(_ domain: String?, _ preset: String, example: String) throws -> String {
        guard var domain, !domain.isEmpty else {
            throw CLIFailure.usage("--preset \(preset) needs --domain (e.g. --domain \(example))")
        }
        if domain.hasPrefix("https://") { domain.removeFirst("https://".count) }
        if domain.hasPrefix("http://") {
            throw CLIFailure.usage("--domain '\(domain)' must be an https host; plain http is refused")
        }
        while domain.hasSuffix("/") { domain.removeLast() }
        return domain
    }

    static func url(_ text: String) throws -> URL {
        guard let url = URL(string: text) else { throw CLIFailure.usage("'\(text)' is not a valid URL") }
        return url
    }

    static let all: [ProviderPreset] = [
        // Auth0: issuer with a trailing slash; `audience` for API tokens; /oauth/revoke.
        ProviderPreset(name: "auth0", domainHelp: "the tenant domain, e.g. example.eu.auth0.com",
                       note: "Auth0: add --audience for your API's access token") { id, clientID, domain, _ in
            let host = try requireDomain(domain, "auth0", example: "example.eu.auth0.com")
            return ProviderConfig(id: id, displayName: "Auth0 (\(host))", issuer: try url("https://\(host)/"), clientID: clientID,
                                  endpoints: EndpointOverrides(revocation: try url("https://\(host)/oauth/revoke")))
        },
        // GitHub: no OIDC; manual endpoints; JSON only with `Accept: application/json`; identity from /user.
        ProviderPreset(name: "github", note: "GitHub: no OpenID Connect; the identity comes from api.github.com/user") { id, clientID, _, _ in
            ProviderConfig(id: id, displayName: "GitHub", issuer: nil, clientID: clientID, scopes: ["read:user", "user:email"],
                           extraHeaders: ["Accept": "application/json"],
                           endpoints: EndpointOverrides(
                               authorization: try url("https://github.com/login/oauth/authorize"),
                               token: try url("https://github.com/login/oauth/access_token"),
                               deviceAuthorization: try url("https://github.com/login/device/code"),
                               userinfo: try url("https://api.github.com/user")))
        },
        // Google: refresh tokens need access_type=offline (and prompt=consent to get one again).
        ProviderPreset(name: "google", note: "Google: desktop clients also need --client-secret-stdin (not confidential)") { id, clientID, _, _ in
            ProviderConfig(id: id, displayName: "Google", issuer: try url("https://accounts.google.com"), clientID: clientID,
                           scopes: ["openid", "profile", "email"],
                           extraAuthorizationParameters: ["access_type": "offline", "prompt": "consent"])
        },
        // Microsoft Entra ID: https://login.microsoftonline.com/{tenant}/v2.0 (`common` → {tenantid}).
        ProviderPreset(name: "entra", domainHelp: nil, note: "Entra: --tenant selects the tenant (default common)") { id, clientID, _, tenant in
            let tenant = tenant ?? "common"
            return ProviderConfig(id: id, displayName: "Microsoft Entra ID (\(tenant))",
                                  issuer: try url("https://login.microsoftonline.com/\(tenant)/v2.0"), clientID: clientID)
        },
        // Okta: https://{domain}/oauth2/default (or another authorization server with --tenant).
        ProviderPreset(name: "okta", domainHelp: "the Okta domain, e.g. example.okta.com") { id, clientID, domain, tenant in
            let host = try requireDomain(domain, "okta", example: "example.okta.com")
            return ProviderConfig(id: id, displayName: "Okta (\(host))", issuer: try url("https://\(host)/oauth2/\(tenant ?? "default")"), clientID: clientID)
        },
        // Keycloak: https://{host}/realms/{realm}; refresh_expires_in.
        ProviderPreset(name: "keycloak", domainHelp: "the Keycloak host, e.g. sso.example.com", note: "Keycloak: --tenant is the realm") { id, clientID, domain, tenant in
            let host = try requireDomain(domain, "keycloak", example: "sso.example.com")
            guard let realm = tenant else { throw CLIFailure.usage("--preset keycloak needs --tenant REALM") }
            return ProviderConfig(id: id, displayName: "Keycloak (\(realm))", issuer: try url("https://\(host)/realms/\(realm)"), clientID: clientID)
        },
        // GitLab: https://gitlab.com (or a self-managed instance); refresh-token rotation.
        ProviderPreset(name: "gitlab", domainHelp: "a self-managed instance (default gitlab.com)") { id, clientID, domain, _ in
            let host = domain == nil ? "gitlab.com" : try requireDomain(domain, "gitlab", example: "gitlab.example.com")
            return ProviderConfig(id: id, displayName: "GitLab (\(host))", issuer: try url("https://\(host)"), clientID: clientID,
                                  scopes: ["openid", "profile", "email"])
        },
        // Logto: {endpoint}/oidc; default scopes openid profile offline_access; RFC 8707 resources.
        ProviderPreset(name: "logto", domainHelp: "the Logto endpoint host, e.g. example.logto.app", note: "Logto: add --resource for API access tokens") { id, clientID, domain, _ in
            let host = try requireDomain(domain, "logto", example: "example.logto.app")
            return ProviderConfig(id: id, displayName: "Logto (\(host))", issuer: try url("https://\(host)/oidc"), clientID: clientID,
                                  scopes: ["openid", "profile", "offline_access"])
        },
        // Sign in with Apple (Sign in with Apple REST API; "Authenticating users with Sign in with
        // Apple"): the client secret is an ES256 JWT sent as a form field (client_secret_post); name
        // and email scopes need response_mode=form_post; email_verified / is_private_email may be
        // strings. Apple redirects only to registered https URIs: 'login apple --code' exchanges a
        // code an app or web page handed over; the loopback listener takes form_post from a relay.
        ProviderPreset(name: "apple", note: "Apple: pipe the client-secret JWT to --client-secret-stdin; sign in with 'authdeck login apple --code -' (a code handed over by your app or web page)") { id, clientID, _, _ in
            var config = ProviderConfig(id: id, displayName: "Sign in with Apple", issuer: try url("https://appleid.apple.com"), clientID: clientID,
                                        clientAuthentication: .clientSecretPost, scopes: ["openid", "name", "email"],
                                        extraAuthorizationParameters: ["response_mode": "form_post"],
                                        endpoints: EndpointOverrides(revocation: try url("https://appleid.apple.com/auth/revoke")))
            config.booleanStringClaims = ["email_verified", "is_private_email"]
            return config
        },
    ]
}
