import AppCore
import FoundationEssentials

// `authdeck bind ACCOUNT [--dir D]`: commands run in D and below use ACCOUNT.

extension Commands {
    static let bind = CommandSpec(
        name: "bind",
        abstract: "Make commands run in a directory (and below it) use an account, without changing the active one.",
        discussion: "The rule is kept in $XDG_CONFIG_HOME/authdeck/bindings.json for the directory's real path (symlinks resolved);"
            + " the longest matching directory wins. $AUTHDECK_ACCOUNT and git config's authdeck.account come before a rule;"
            + " 'authdeck which' says what chose. Where $AUTHDECK_AGENT_SOCK is set, ACCOUNT is one the agent serves (see 'authdeck ssh').",
        positionals: [
            PositionalSpec(name: "account", optional: false, help: "An alias, an unambiguous prefix of provider/username, or the account id."),
        ],
        options: [.value("dir", valueName: "directory", help: "The directory (default: the current one).")],
        run: { try await bindRun($0.positional("account") ?? "", directory: $0.value("dir"), .current) }
    )
}

func bindRun(_ query: String, directory: String?, _ context: CLIContext) async throws -> Int32 {
    if let socket = agentSocket(context) { return try remoteBindRun(query, directory: directory, socket, context) }
    let snapshot = try context.snapshot()
    let record = try context.account(query, in: snapshot)
    let places = Places(context.app)
    let (rule, replaced) = try context.run { () throws(AppError) in try places.bind(record.id, directory: directory) }
    let previous = replaced.flatMap { old in old.account == rule.account ? nil : " (it was \(old.account.rawValue))" } ?? ""
    Output.err("Commands in \(rule.directory) and below now use \(AccountResolution.describe(record))\(previous); the active account is unchanged.")
    if let setting = places.read(rule.directory).gitConfig {
        Output.err("note: authdeck.account = \(setting.value) in \(setting.file) comes before this rule there (see 'authdeck which')")
    }
    return ExitCode.ok
}
