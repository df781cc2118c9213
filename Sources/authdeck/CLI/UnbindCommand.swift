import AppCore
import FoundationEssentials

// `authdeck unbind [--dir D]`: removes the directory rule of D.

extension Commands {
    static let unbind = CommandSpec(
        name: "unbind",
        abstract: "Remove a directory's rule ('authdeck bind'); the active account is unchanged.",
        options: [.value("dir", valueName: "directory", help: "The directory (default: the current one).")],
        run: { try await unbindRun(directory: $0.value("dir"), .current) }
    )
}

func unbindRun(directory: String?, _ context: CLIContext) async throws -> Int32 {
    let places = Places(context.app)
    let (removed, covering) = try context.run { () throws(AppError) in try places.unbind(directory: directory) }
    // The account as bind named it (its alias and handle), its id only when it is no longer signed in.
    let accounts = (try? context.snapshot().accounts) ?? []
    func named(_ id: AccountID) -> String { accounts.first { $0.id == id }.map(AccountResolution.describe) ?? id.rawValue }
    let still = covering.map { " The rule for \($0.directory) (\(named($0.account))) still covers it." } ?? ""
    guard let removed else {
        let real = (try? places.realDirectory(directory)) ?? directory ?? "."
        throw CLIFailure("No rule for \(real)", hint: "\(still.isEmpty ? "" : "\(still.dropFirst()) ")"
            + "See the rules with 'authdeck which' in a directory, or 'authdeck bind ACCOUNT' to make one.")
    }
    Output.err("Removed the rule for \(removed.directory) (\(named(removed.account))).\(still)")
    return ExitCode.ok
}
