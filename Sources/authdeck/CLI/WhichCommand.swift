import AppCore
import AuthEngine
import FoundationEssentials

// `authdeck which [ACCOUNT] [--dir D]`: the account a command run here would use, and why.

extension Commands {
    static let which = CommandSpec(
        name: "which",
        abstract: "Print the account a command run here uses, and where the choice came from.",
        discussion: "One precedence everywhere: the ACCOUNT argument, then $AUTHDECK_ACCOUNT, then git config's authdeck.account"
            + " (the user's and the repository's own config; never a file in the work tree), then the directory rule ('authdeck bind'),"
            + " then the active account ('authdeck switch'), then the only account. The source is printed as argument, environment,"
            + " git config (FILE), rule DIR, active or only account.",
        positionals: [account],
        options: [
            .value("dir", valueName: "directory", help: "Ask for this directory instead of the current one."),
            json,
        ],
        run: { try await whichRun($0.positional("account"), directory: $0.value("dir"), json: $0.flag("json"), .current) }
    )
}

func whichRun(_ query: String?, directory: String?, json: Bool, _ context: CLIContext) async throws -> Int32 {
    if let socket = agentSocket(context) { return try remoteWhichRun(query, directory: directory, json: json, socket, context) }
    let snapshot = try context.snapshot()
    let places = Places(context.app)
    if let directory { _ = try context.run { () throws(AppError) in try places.realDirectory(directory) } }
    let place = places.read(directory)
    for note in place.notes { Output.err("note: \(note)") }
    let choice = try context.choice(query, in: snapshot, place: place)
    if json {
        Output.json(.object(omittingNil: [
            "account": .string(choice.record.id.rawValue), "handle": .string(AccountResolution.handle(choice.record)),
            "alias": choice.record.alias.map(JSONValue.string), "source": .string(choice.source.label),
            "directory": place.directory.map(JSONValue.string),
        ]))
    } else {
        Output.line("\(AccountResolution.describe(choice.record)) — \(choice.source.label)")
    }
    return ExitCode.ok
}
