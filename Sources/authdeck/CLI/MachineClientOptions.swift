import AppCore
import AuthEngine
import FoundationEssentials

/// `provider add … --grant client-credentials` (RFC 6749 §4.4): a machine provider. Client
/// authentication by a secret (`--client-secret-stdin` or `--client-secret-file PATH`, never
/// argv) or by `private_key_jwt` (RFC 7523 §2.2) with a key made here (`--generate-key`, the
/// public JWK printed on stdout to register) or read from `--private-key-file PEM`; both kept in
/// the credential store. `--assertion-audience token_endpoint|issuer`: the assertions' `aud`.
struct MachineClientOptions {
    var clientCredentials: Bool
    var clientSecretFile: String?
    var generateKey: Bool
    var privateKeyFile: String?
    var assertionAudience: ClientAssertionAudience?
    /// `--client-assertion SOURCE`: a federated assertion read for every request.
    var assertionSource: ClientAssertionSource?

    static let specs: [OptionSpec] = [
        .value("grant", valueName: "grant", help: "client-credentials: a machine provider (RFC 6749 4.4), tokens with no browser and no"
            + " person; default: a person signs in."),
        .value("clientSecretFile", valueName: "path", help: "Read the client secret from this file into the credential store."),
        .flag("generateKey", help: "private_key_jwt (RFC 7523): make a P-256 key, kept in the credential store; its public JWK is printed"
            + " to register with the client."),
        .value("privateKeyFile", valueName: "pem", help: "private_key_jwt (RFC 7523) with this PKCS#8 PEM P-256 key (copied into the"
            + " credential store)."),
        .value("assertionAudience", valueName: "token_endpoint|issuer", help: "The aud of private_key_jwt assertions (default the token"
            + " endpoint)."),
        .value("clientAssertion", valueName: "source", help: "With --grant client-credentials: a federated client assertion read for every"
            + " request, never stored: github-actions[=AUDIENCE], env=NAME (GitLab CI id_tokens), file=PATH (a Kubernetes projected"
            + " token), command=PROGRAM [ARG...]."),
    ]

    /// The source `--client-assertion` names, nil for an unknown form.
    static func source(_ text: String) -> ClientAssertionSource? {
        if text == "github-actions" { return .githubActions(audience: nil) }
        guard let equals = text.firstIndex(of: "=") else { return nil }
        let kind = text[..<equals], value = String(text[text.index(after: equals)...])
        guard !value.isEmpty else { return nil }
        switch kind {
        case "github-actions": return .githubActions(audience: value)
        case "env": return .environment(value)
        case "file": return .file(URL(fileURLWithPath: value).standardizedFileURL.path)
        case "command": return .command(value.split(separator: " ").map(String.init))
        default: return nil
        }
    }

    init(_ parsed: ParsedCommand) {
        clientCredentials = parsed.value("grant") == "client-credentials"
        clientSecretFile = parsed.value("clientSecretFile")
        generateKey = parsed.flag("generateKey")
        privateKeyFile = parsed.value("privateKeyFile")
        assertionAudience = parsed.value("assertionAudience").flatMap(ClientAssertionAudience.init(rawValue:))
        assertionSource = parsed.value("clientAssertion").flatMap(Self.source)
    }

    static func validate(_ parsed: ParsedCommand) -> String? {
        if let grant = parsed.value("grant"), grant != "client-credentials", grant != "authorization-code" {
            return "--grant must be client-credentials or authorization-code, got '\(grant)'"
        }
        if let audience = parsed.value("assertionAudience"), ClientAssertionAudience(rawValue: audience) == nil {
            return "--assertion-audience must be token_endpoint or issuer, got '\(audience)'"
        }
        if let source = parsed.value("clientAssertion") {
            if Self.source(source) == nil {
                return "--client-assertion takes github-actions[=AUDIENCE], env=NAME, file=PATH or command=PROGRAM [ARG...], got '\(source)'"
            }
            if parsed.value("grant") != "client-credentials" { return "--client-assertion goes with --grant client-credentials" }
        }
        let given = [parsed.flag("clientSecretStdin"), parsed.value("clientSecretFile") != nil, parsed.flag("generateKey"),
                     parsed.value("privateKeyFile") != nil, parsed.value("clientAssertion") != nil].filter { $0 }.count
        if given > 1 {
            return "give one of --client-secret-stdin, --client-secret-file, --generate-key, --private-key-file and --client-assertion"
        }
        let key = parsed.flag("generateKey") || parsed.value("privateKeyFile") != nil
        if key, let method = parsed.value("clientAuthentication"), method != ClientAuthenticationMethod.privateKeyJWT.rawValue {
            return "--generate-key and --private-key-file authenticate with private_key_jwt, not \(method)"
        }
        if parsed.value("grant") == "client-credentials", given == 0 {
            return "a client-credentials provider authenticates the client: give --client-secret-stdin, --client-secret-file,"
                + " --generate-key, --private-key-file or --client-assertion"
        }
        for name in ["clientSecretFile", "privateKeyFile"] {
            if let path = parsed.value(name), !FileManager.default.isReadableFile(atPath: path) {
                return "--\(ArgumentParserNames.kebab(name)) '\(path)' is not a readable file"
            }
        }
        return nil
    }

    /// Whether a client secret comes with the command (stdin or file).
    func givesSecret(stdin: Bool) -> Bool { stdin || clientSecretFile != nil }

    func apply(to config: inout ProviderConfig, scopesGiven: Bool) {
        // A federated assertion is a JWT too (RFC 7523 §2.2), from its source instead of a stored key.
        if generateKey || privateKeyFile != nil || assertionSource != nil { config.clientAuthentication = .privateKeyJWT }
        if clientCredentials {
            config.clientCredentials = ClientCredentialsSettings(assertionAudience: assertionAudience, assertionSource: assertionSource)
            // A person's default (openid profile email offline_access) means nothing for a client.
            if !scopesGiven { config.scopes = [] }
        } else if let assertionAudience {
            config.clientCredentials?.assertionAudience = assertionAudience
        }
    }

    /// The secret of `--client-secret-file` (trimmed), nil without it.
    /// - Throws: ``CLIFailure`` for an unreadable or empty file (named, never its bytes).
    func fileSecret() throws -> ClientSecret? {
        guard let path = clientSecretFile else { return nil }
        guard let data = FileManager.default.contents(atPath: path),
              case let text = String(decoding: data, as: UTF8.self).trimmingWhitespaceAndNewlines(), !text.isEmpty else {
            throw CLIFailure("--client-secret-file '\(path)' could not be read or is empty", hint: "Give a file holding the client secret.")
        }
        return ClientSecret(text)
    }

    /// The `private_key_jwt` key: made now, or read from `--private-key-file`; nil without either.
    func key(_ keys: ClientKeys) throws -> JWSKeyPair? {
        if generateKey { return try keys.generate() }
        guard let path = privateKeyFile else { return nil }
        guard let pem = FileManager.default.contents(atPath: path) else {
            throw CLIFailure("--private-key-file '\(path)' could not be read", hint: "Give a PKCS#8 PEM P-256 private key.")
        }
        return try keys.read(pem: pem, path: path)
    }
}
