import AppCore
import FoundationEssentials

// `authdeck apple client-secret`: parses, reads the key file without following a symlink, calls
// `MintAppleClientSecret` (AppCore) and prints the JWT.

extension Commands {
    static let apple = CommandSpec(
        name: "apple",
        abstract: "Sign in with Apple helpers.",
        subcommands: [appleClientSecret]
    )

    static let appleClientSecret = CommandSpec(
        name: "client-secret",
        abstract: "Print the ES256 client-secret JWT Sign in with Apple expects as client_secret.",
        discussion: "Signed with the developer's AuthKey_<KEYID>.p8 (PKCS#8 P-256, mode 0600, not a symlink): iss the team id,"
            + " sub the Services ID, aud https://appleid.apple.com, exp --days after iat (at most 182 days)."
            + " Only the JWT goes to stdout; its expiry goes to stderr.",
        options: [
            .value("teamId", valueName: "team-id", help: "The Apple team id (10 characters)."),
            .value("keyId", valueName: "key-id", help: "The key id (10 characters)."),
            .value("clientId", valueName: "services-id", help: "The Services ID (the client id)."),
            .value("key", valueName: "file", help: "The AuthKey_<KEYID>.p8 file."),
            .value("days", valueName: "days", help: "How long the secret is valid, 1 to 182 (default 180)."),
        ],
        validate: { parsed in
            for name in ["teamId", "keyId", "clientId", "key"] where (parsed.value(name) ?? "").isEmpty {
                return "--\(name == "teamId" ? "team-id" : name == "keyId" ? "key-id" : name == "clientId" ? "client-id" : "key") is required"
            }
            if let days = parsed.value("days"), Int(days) == nil { return "--days must be a whole number of days (1 to 182)" }
            return nil
        },
        run: { try await appleClientSecretRun($0, .current) }
    )
}

func appleClientSecretRun(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
    let path = parsed.value("key") ?? ""
    let keyFile = try context.run { () throws(AppError) in try context.app.readKeyFile(path) }
    let minted = try context.run { () throws(AppError) in
        try MintAppleClientSecret(context.app).run(teamID: parsed.value("teamId") ?? "", keyID: parsed.value("keyId") ?? "",
                                                   clientID: parsed.value("clientId") ?? "", days: Int(parsed.value("days") ?? "180") ?? 180,
                                                   keyFile: keyFile)
    }
    Output.line(minted.secret.exposedValue)
    Output.err("The client secret expires \(Times.rfc3339(minted.expiresAt)).")
    return ExitCode.ok
}
