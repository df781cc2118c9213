import AppCore
import AppCoreLive
import FoundationEssentials

// MARK: - provider set

extension Commands {
    /// `provider add`'s options but the preset's (the preset was chosen when the provider was added).
    private static let addOnly = ["preset", "domain", "tenant", "grant", "generateKey", "privateKeyFile", "clientAssertion", "assertionAudience"]
    static let providerSet = CommandSpec(
        name: "set",
        abstract: "Change a provider in place: its signed-in accounts and their tokens stay.",
        discussion: "Takes the options of 'provider add' but --preset, --domain and --tenant and a machine provider's --grant, key and"
            + " assertion source (chosen when it is added); an option not given keeps its value, a list"
            + " option given (--scope, --resource, --git-host, --registry, --trusted-audience) replaces the list, --header and"
            + " --authorization-parameter add or replace one by name. The discovery document is fetched first as by 'provider add'"
            + " (--no-probe skips it) and nothing changes when that fails. Another issuer or client id, or an endpoint on another"
            + " server, while accounts are signed in is refused: their grants belong to that server and client (log them out first, or add"
            + " another provider). --client-authentication none deletes the stored client secret. A provider made by 'login URL' keeps"
            + " its resource, issuer and client id. The change applies from each account's next sign-in or refresh.",
        positionals: [PositionalSpec(name: "name", optional: false, help: "The provider's name.")],
        options: providerAdd.options.filter { !addOnly.contains($0.name) },
        validate: { parsed in
            let name = parsed.positional("name") ?? ""
            if let problem = ProviderID.nameProblem(name) { return "provider NAME '\(Output.visible(name))': \(problem)" }
            return ProviderAddOptions.validateSettings(parsed)
        },
        run: { try await providerSetRun(ProviderAddOptions($0), .current) }
    )
}

func providerSetRun(_ options: ProviderAddOptions, _ context: CLIContext) async throws -> Int32 {
    let snapshot = try context.snapshot()
    guard var config = snapshot.providers.first(where: { $0.id.rawValue.utf8.elementsEqual(options.name.utf8) }) else {
        throw CLIFailure("Unknown provider '\(Output.visible(options.name))'",
                         hint: "See 'authdeck provider list'; add one with 'authdeck provider add'.", exitCode: ExitCode.usage)
    }
    try options.apply(to: &config)  // its errors at once, before the secret is read and the probe
    var clientSecret = try options.clientSecret(for: config.id)
    if let fromFile = try options.machine.fileSecret() { clientSecret = fromFile }
    let change: ProviderAdmin.Change
    do {
        // Applied again to the provider as saved after the probe (another command may have changed it meanwhile).
        change = try await ProviderAdmin(context.app).change(config.id, clientSecret: clientSecret,
                                                             probe: options.noProbe ? .skip : .discovery) { (config) throws(AppError) in
            do { try options.apply(to: &config) } catch {
                let failure = error as? CLIFailure
                throw AppError(title: failure?.message ?? "\(error)", detail: failure?.hint ?? "", disposition: .usage)
            }
        }
    } catch {
        throw CLIFailure(error, hint: error.probe.map { CLIFailure.advice($0, issuer: "--issuer", action: "change") })
    }
    let (before, accounts) = (change.before, change.accounts)
    config = change.after
    let kept = accounts == 0 ? ""
        : " (\(accounts) signed-in account\(accounts == 1 ? "" : "s") kept; the change applies from the next sign-in or refresh)"
    Output.err(config == before && clientSecret == nil ? "Provider '\(config.id)' is unchanged (no option changed it)."
                                                       : "Changed provider '\(config.id)'\(kept).")
    if change.secret == .removed {
        Output.err("Its client secret was deleted from the credential store: client authentication none sends none (a public client).")
    }
    if config.fixedRedirectPort != before.fixedRedirectPort {
        let uris = config.redirectURIsToRegister
        Output.err("Register exactly these with the client at the provider: redirect URI \(uris.signIn), post-logout redirect URI \(uris.signOut).")
    }
    return ExitCode.ok
}
