import AuthEngine
import FoundationEssentials

/// Where a machine provider's client assertion comes from when no secret or key is kept (RFC 7521 §4.2,
/// RFC 7523 §2.2): read fresh for every token request, never stored. In
/// `providers.json` under `clientCredentials.assertionSource`, one member:
/// `{"githubActions": {"audience": "…"}}`, `{"environment": "NAME"}`, `{"file": "PATH"}` or
/// `{"command": ["PROGRAM", "ARG", …]}`.
public enum ClientAssertionSource: Hashable, Sendable {
    /// GitHub Actions' OIDC token: `GET $ACTIONS_ID_TOKEN_REQUEST_URL&audience=…` with
    /// `Authorization: Bearer $ACTIONS_ID_TOKEN_REQUEST_TOKEN`, answered `{"value": JWT}`;
    /// `audience`: the `aud` the provider wants (nil: its issuer).
    case githubActions(audience: String?)
    /// An environment variable holding the JWT (GitLab CI `id_tokens`: the variable the job names).
    case environment(String)
    /// A file holding the JWT, re-read every time (a Kubernetes projected service-account token rotates).
    case file(String)
    /// A program (argv, no shell) whose stdout is the JWT.
    case command([String])

    /// The source in words, for errors: which one failed.
    public var name: String {
        switch self {
        case .githubActions: "GitHub Actions' ID token (ACTIONS_ID_TOKEN_REQUEST_URL)"
        case .environment(let variable): "the environment variable \(variable)"
        case .file(let path): "the file \(path)"
        case .command(let argv): "the command '\(argv.joined(separator: " "))'"
        }
    }

    /// What the live environment reads for a source (``AppEnvironment/readAssertionInput``).
    public enum Input: Hashable, Sendable {
        case variable(String)
        case file(String)
        case command([String])
    }
}

extension ClientAssertionSource {
    /// Reads the one member ``ClientAssertionSource`` says.
    /// - Throws: ``JSONShapeError`` naming the member.
    public init(json reader: JSONReader) throws(JSONShapeError) {
        if let github = try reader.optionalReader("githubActions") {
            self = .githubActions(audience: try github.optionalString("audience"))
        } else if let name = try reader.optionalString("environment") {
            self = .environment(name)
        } else if let path = try reader.optionalString("file") {
            self = .file(path)
        } else if let argv = try reader.optionalStrings("command"), !argv.isEmpty {
            self = .command(argv)
        } else {
            throw reader.shapeError("githubActions", expected: "one of githubActions, environment, file, command")
        }
    }

    public var json: JSONValue {
        switch self {
        case .githubActions(let audience): .object(["githubActions": .object(omittingNil: ["audience": audience.map(JSONValue.string)])])
        case .environment(let name): .object(["environment": .string(name)])
        case .file(let path): .object(["file": .string(path)])
        case .command(let argv): .object(["command": .strings(argv)])
        }
    }
}
