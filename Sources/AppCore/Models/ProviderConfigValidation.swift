import AuthEngine
import FoundationEssentials
import TextSupport

/// Why a provider configuration is refused before it is saved (`provider add`). Pure: the CLI
/// calls ``ProviderConfig/validate()`` and ``ProviderConfig/validateClientID(_:)`` and shows the
/// first violation with its hint.
public enum ProviderConfigViolation: Error, Sendable, Equatable, CustomStringConvertible {
    /// `--client-id ""` (RFC 6749 §2.2: the client identifier the provider issued).
    case emptyClientID
    /// Characters a client_id cannot have (RFC 6749 Appendix A.1: `client-id = *VSCHAR`,
    /// %x20-7E), or leading/trailing spaces (a copy-paste slip); `what` names them.
    case clientIDCharacters(what: String)
    /// The issuer breaks a URL rule.
    case issuer(URLPolicy.ConfiguredURLViolation)
    /// An endpoint (named by its option, e.g. `token-endpoint`) breaks a URL rule.
    case endpoint(String, URLPolicy.ConfiguredURLViolation)
    /// A resource indicator (`--resource`, or `--audience` written as a URI) that is not one, or
    /// carries a user name or password (RFC 8707 §2, RFC 3986 §3.2.1); `problem` never echoes them.
    case resource(option: String, problem: String)

    public var description: String {
        switch self {
        case .emptyClientID: "--client-id is empty"
        case .clientIDCharacters(let what): "--client-id contains \(what)"
        case .issuer(let violation): "the issuer \(violation)"
        case .endpoint(let option, let violation): "--\(option) \(violation)"
        case .resource(let option, let problem): "--\(option): \(problem)"
        }
    }

    public var hint: String {
        switch self {
        case .emptyClientID: "Give the client ID the provider shows for your registered application (RFC 6749 §2.2)."
        case .clientIDCharacters: "Copy the client ID again without spaces or line breaks; it is printable ASCII only (RFC 6749 Appendix A.1)."
        case .issuer(let violation), .endpoint(_, let violation): violation.hint
        case .resource: "Give the resource as the API's URI without `user:password@` (authdeck sends tokens, never a password)."
        }
    }
}

extension ProviderConfig {
    /// RFC 6749 §2.2 and Appendix A.1: a non-empty string of VSCHAR (%x20-7E), and no leading or
    /// trailing space.
    public static func validateClientID(_ clientID: String) -> ProviderConfigViolation? {
        if clientID.isEmpty { return .emptyClientID }
        if let bad = clientID.unicodeScalars.first(where: { !(0x20...0x7E).contains($0.value) }) {
            let name = bad == "\n" ? "a newline" : bad == "\r" ? "a carriage return" : bad == "\t" ? "a tab" : "the character \(bad.codePointText)"
            return .clientIDCharacters(what: name)
        }
        if clientID.first == " " || clientID.last == " " {
            return .clientIDCharacters(what: clientID.allSatisfy { $0 == " " } ? "only spaces" : "a leading or trailing space")
        }
        return nil
    }

    /// Every rule for a configuration about to be saved: the client ID, the issuer (RFC 8414 §2)
    /// and every endpoint (RFC 6749 §3.1), whether typed or built by a preset from `--domain`.
    public func validate() -> [ProviderConfigViolation] {
        var violations: [ProviderConfigViolation] = []
        if let violation = Self.validateClientID(clientID) { violations.append(violation) }
        if let issuer, case .failure(let violation) = URLPolicy.validateConfigured(issuer.absoluteString, role: .issuer) {
            violations.append(.issuer(violation))
        }
        let endpointList: [(String, URL?)] = [
            ("authorization-endpoint", endpoints.authorization), ("token-endpoint", endpoints.token),
            ("device-authorization-endpoint", endpoints.deviceAuthorization), ("revocation-endpoint", endpoints.revocation),
            ("introspection-endpoint", endpoints.introspection), ("userinfo-endpoint", endpoints.userinfo),
            ("end-session-endpoint", endpoints.endSession), ("jwks-uri", endpoints.jwks),
        ]
        for (option, url) in endpointList {
            if let url, case .failure(let violation) = URLPolicy.validateConfigured(url.absoluteString, role: .endpoint) {
                violations.append(.endpoint(option, violation))
            }
        }
        // RFC 8707 §2: saved resources go into every token request (and the browser's argv): never a password.
        for resource in resources {
            if let problem = Self.resourceProblem(resource) { violations.append(.resource(option: "resource", problem: problem)) }
        }
        // The same rule wherever a host or URI is saved (providers.json, `provider show`, requests): never a password.
        let hosts = (gitHosts ?? []).map { ("git-host", $0.host) } + (containerRegistries ?? []).map { ("registry", $0.host) }
        let uris = (audience.map { [("audience", $0)] } ?? []) + (additionalTrustedAudiences ?? []).map { ("trusted-audience", $0) }
            + extraAuthorizationParameters.keys.sorted().map { ("authorization-parameter", extraAuthorizationParameters[$0] ?? "") }
            + hosts.map { ($0.0, "https://" + $0.1) }
        for (option, uri) in uris {
            if let problem = Self.credentialsProblem(uri) { violations.append(.resource(option: option, problem: problem)) }
        }
        return violations
    }

    /// RFC 3986 §3.2.1: `uri` with a user name or password, said without them (nil: none, or no URI).
    public static func credentialsProblem(_ uri: String) -> String? {
        if let parts = URIParts(uri) { return parts.userinfo == nil ? nil : "\(parts.withoutUserinfo) was given with a user name or password" }
        guard uri.contains("@"), uri.utf8.starts(with: "https://".utf8) else { return nil }
        return "a host was given with a user name or password"  // a host URIParts does not take (`*.gcr.io`)
    }

    /// What is wrong with `resource` as an RFC 8707 resource indicator, in the engine's words (nil: nothing).
    static func resourceProblem(_ resource: String) -> String? {
        do throws(AuthError) {
            try validateResourceIndicator(resource)
            return nil
        } catch {
            return PresentableError(from: error).detail
        }
    }
}
