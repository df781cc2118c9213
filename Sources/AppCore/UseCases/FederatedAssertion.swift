import AuthEngine
import FoundationEssentials
import TextSupport

/// A federated client assertion (RFC 7521 §4.2, RFC 7523 §2.2), read fresh from its
/// ``ClientAssertionSource`` for every token request and never stored: GitHub Actions' OIDC
/// token service, a variable (GitLab CI `id_tokens`), a file (a Kubernetes projected token, which
/// rotates), or a command. A missing or expired one is an error naming the source.
struct FederatedAssertion: Sendable {
    let env: AppEnvironment
    init(_ env: AppEnvironment) { self.env = env }

    /// The assertion for `provider`'s token endpoint at `metadata`'s server.
    /// - Throws: ``AppError`` naming the source: missing (unset, no file, the command failed,
    ///   GitHub's service refused), not a JWT, or expired (`exp` not after now).
    func read(_ source: ClientAssertionSource, metadata: AuthorizationServerMetadata) async throws(AppError) -> ClientAssertion {
        let text: String?
        switch source {
        case .githubActions(let audience): text = try await githubActions(audience: audience ?? metadata.issuer)
        case .environment(let name): text = env.readAssertionInput(.variable(name))
        case .file(let path): text = env.readAssertionInput(.file(path))
        case .command(let argv): text = env.readAssertionInput(.command(argv))
        }
        guard let jwt = text?.trimmingWhitespaceAndNewlines(), !jwt.isEmpty else {
            throw Self.failure(source, "is missing", next: Self.hint(source))
        }
        guard let jws = try? CompactJWS(parsing: jwt), case .success(let claims) = parseJSONObject(jws.payload) else {
            throw Self.failure(source, "is not a JWT", next: "It must hold one compact JWS (RFC 7515 §7.1), as the provider expects.")
        }
        guard case .number(let exp)? = claims["exp"], Date(timeIntervalSince1970: exp) > env.now() else {
            throw Self.failure(source, "has expired", next: Self.hint(source))
        }
        return ClientAssertion(jwt)
    }

    /// `GET {ACTIONS_ID_TOKEN_REQUEST_URL}&audience=…` with the request token as Bearer (GitHub's
    /// OIDC token service); the answer's `value`. The request token never leaves this request.
    private func githubActions(audience: String) async throws(AppError) -> String? {
        let source = ClientAssertionSource.githubActions(audience: audience)
        guard let base = env.readAssertionInput(.variable("ACTIONS_ID_TOKEN_REQUEST_URL")),
              let token = env.readAssertionInput(.variable("ACTIONS_ID_TOKEN_REQUEST_TOKEN")), !token.isEmpty else { return nil }
        let separator = base.utf8.contains(UInt8(ascii: "?")) ? "&" : "?"
        guard let url = URL(string: base + separator + "audience=" + FormEncoding.encode(audience)) else {
            throw Self.failure(source, "has an unusable ACTIONS_ID_TOKEN_REQUEST_URL", next: "It must be a URL.")
        }
        do { try URLPolicy.requireSecure(url) } catch { throw ErrorMapping.appError(error) }
        let request = HTTPRequest(method: .get, url: url, headers: [HTTPHeader("Authorization", "Bearer " + token),
                                                                    HTTPHeader("Accept", "application/json")], timeout: .seconds(30))
        let response: HTTPResponse
        do { response = try await env.http(nil).send(request) } catch { throw ErrorMapping.appError(AuthError.transport(error)) }
        guard response.status == 200, case .success(let object) = parseJSONObject(response.body), let value = object["value"]?.stringValue else {
            throw Self.failure(source, "was refused (HTTP \(response.status))",
                               next: "The job needs 'permissions: id-token: write', and the audience '\(audience)' must be allowed.")
        }
        return value
    }

    private static func failure(_ source: ClientAssertionSource, _ what: String, next: String) -> AppError {
        AppError(title: "The client assertion from \(source.name) \(what)", detail: next + " Nothing was sent to the provider.",
                 specReference: "RFC 7523 §2.2")
    }

    private static func hint(_ source: ClientAssertionSource) -> String {
        switch source {
        case .githubActions:
            "Run inside a GitHub Actions job with 'permissions: id-token: write' (ACTIONS_ID_TOKEN_REQUEST_URL and _TOKEN are set there)."
        case .environment(let name): "Set \(name) (GitLab CI: name it under the job's id_tokens) to a current token."
        case .file(let path): "\(path) must hold a current token (Kubernetes: a projected service account token volume)."
        case .command: "The command must print a current token and exit 0."
        }
    }
}
