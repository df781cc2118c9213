import AppCore
import AuthEngine
import FoundationEssentials
import TextSupport

/// `authdeck login PROVIDER --code CODE`: parses the handover options and runs
/// ``SignInWithCode`` (the rules live there).
struct CodeLoginOptions {
    var provider: String?
    var code: String
    var idToken: String?
    var idTokenFile: String?
    var user: String?
    var nonce: String?
    var nonceSHA256: String?
    var redirectURI: String?
    var name: String?

    /// The login options that belong to the handover (any of them selects it).
    static let handoverOptions = ["code", "idToken", "idTokenFile", "user", "nonce", "nonceSha256", "redirectUri"]

    static let specs: [OptionSpec] = [
        .value("code", valueName: "code",
               help: "Exchange an authorization code handed over by an app or web page (Sign in with Apple) instead of opening a browser;"
                   + " '-' reads it from stdin. A value in argv is visible to other local users (ps): prefer '-'."),
        .value("idToken", valueName: "jwt", help: "With --code: the identity token the app received, verified too; '-' reads it from stdin."),
        .value("idTokenFile", valueName: "path", help: "With --code: read the app's identity token from this file."),
        .value("user", valueName: "json", help: "With --code: Apple's one-time user JSON (name, email), sent only on the first sign-in."),
        .value("nonce", valueName: "nonce", help: "With --code: the expected nonce claim itself."),
        .value("nonceSha256", valueName: "raw-nonce", help: "With --code: a raw nonce whose SHA-256 hex is the expected claim (native Apple apps)."),
        .value("redirectUri", valueName: "uri", help: "With --code: the redirect_uri of the authorization request, when it had one (web flows)."),
    ]

    init(_ parsed: ParsedCommand) {
        provider = parsed.positional("provider")
        code = parsed.value("code") ?? ""
        idToken = parsed.value("idToken")
        idTokenFile = parsed.value("idTokenFile")
        user = parsed.value("user")
        nonce = parsed.value("nonce")
        nonceSHA256 = parsed.value("nonceSha256")
        redirectURI = parsed.value("redirectUri")
        name = parsed.value("name")
    }

    static func selected(_ parsed: ParsedCommand) -> Bool { handoverOptions.contains { parsed.value($0) != nil } }

    /// The usage errors of a handover login; nil when fine.
    static func validate(_ parsed: ParsedCommand) -> String? {
        guard selected(parsed) else { return nil }
        guard let code = parsed.value("code") else { return "--id-token, --user, --nonce and --redirect-uri go with --code CODE" }
        if code.isEmpty { return "--code needs the authorization code (or '-' to read it from stdin)" }
        for other in ["device", "noBrowser"] where parsed.flag(other) {
            return "--code does not use a browser or the device flow; drop --\(ArgumentParserNames.kebab(other))"
        }
        if !parsed.values("scope").isEmpty || !parsed.values("resource").isEmpty || parsed.value("audience") != nil {
            return "--code exchanges a code already granted: --scope, --resource and --audience do not apply"
        }
        if parsed.value("nonce") != nil && parsed.value("nonceSha256") != nil {
            return "give either --nonce (the claim itself) or --nonce-sha256 (the raw nonce whose SHA-256 hex is the claim), not both"
        }
        if parsed.value("idToken") != nil && parsed.value("idTokenFile") != nil { return "give either --id-token or --id-token-file, not both" }
        if code == "-" && parsed.value("idToken") == "-" { return "only one of --code and --id-token can read stdin; use --id-token-file" }
        if let path = parsed.value("idTokenFile"), !FileManager.default.isReadableFile(atPath: path) {
            return "--id-token-file '\(path)' is not a readable file"
        }
        return nil
    }
}

func codeLoginRun(_ options: CodeLoginOptions, _ context: CLIContext) async throws -> Int32 {
    let app = context.app
    let providerID = try context.run { () throws(AppError) in try SignIn(app).resolveProvider(options.provider) }
    func stdinText() -> String { String(decoding: readStandardInput(), as: UTF8.self).trimmingWhitespaceAndNewlines() }
    let code = options.code == "-" ? try readSecretFromStandardInput(prompt: "Authorization code (not shown): ") : options.code
    guard !code.isEmpty else { throw CLIFailure.usage("no authorization code on stdin") }
    var idToken = options.idToken == "-" ? stdinText() : options.idToken
    if let path = options.idTokenFile {
        guard let data = FileManager.default.contents(atPath: path) else { throw CLIFailure.usage("cannot read --id-token-file '\(path)'") }
        idToken = String(decoding: data, as: UTF8.self).trimmingWhitespaceAndNewlines()
    }
    let nonce: CodeHandoverRequest.Nonce = options.nonce.map { .value($0) } ?? options.nonceSHA256.map { .sha256Of($0) } ?? .none
    try context.unlock()
    let request = CodeHandoverRequest(providerID: providerID, code: AuthorizationCode(code), idToken: idToken.map { RawIDToken($0) },
                                      userJSON: options.user, nonce: nonce, redirectURI: options.redirectURI, alias: options.name)
    let outcome = try await context.run { () async throws(AppError) in try await SignInWithCode(app).run(request) }
    let record = outcome.record
    for warning in record.tokenWarnings ?? [] { Output.err("warning: \(warning)") }
    if let email = record.email {
        let flags = [
            record.emailVerified.map { $0 ? "verified" : "not verified" }, record.isPrivateEmail == true ? "private relay" : nil,
        ].compactMap { $0 }
        Output.err("Email: \(email)\(flags.isEmpty ? "" : " (\(flags.joined(separator: ", ")))")")
    }
    Output.err("Signed in as \(record.displayName) (\(AccountResolution.handle(record)))\(outcome.becameActive ? "; it is the active account" : "").")
    Output.err(storedInText(context.app.credentials.info()))
    return ExitCode.ok
}

extension TokenAudience {
    /// `token --organization ID`: a non-empty id of printable characters, not with --resource.
    static func validateOrganizationOption(_ parsed: ParsedCommand) -> String? {
        guard let id = parsed.value("organization") else { return nil }
        if parsed.value("resource") != nil { return "--organization and --resource select different tokens; choose one" }
        if parsed.flag("idToken") { return "--organization selects an access token; it cannot be used with --id-token" }
        if id.isEmpty || id.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == " " }) {
            return "--organization needs the organization id (as in the organizations claim of userinfo)"
        }
        return nil
    }
}
