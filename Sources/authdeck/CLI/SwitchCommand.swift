import AppCore
import AppCoreLive
import AuthEngine
import FoundationEssentials
import Synchronization

// gh's shape: per command an options struct made from the parsed arguments (validated before
// anything runs) and a run function over the live session (one file per verb).

// MARK: - switch

func switchRun(_ query: String, _ context: CLIContext) async throws -> Int32 {
    let snapshot = try context.snapshot()
    let record: AccountRecord
    do {
        record = try AccountResolution.resolve(query, accounts: snapshot.accounts, active: snapshot.activeAccountID, environmentAccount: nil)
    } catch {
        throw CLIFailure(error, providers: snapshot.providers)
    }
    _ = try context.run { () throws(AppError) in try SwitchAccount(context.app).run(record.id) }
    Output.err("Switched to \(AccountResolution.describe(record)).")
    if let pinned = context.environment["AUTHDECK_ACCOUNT"], !pinned.isEmpty {
        Output.err("note: AUTHDECK_ACCOUNT=\(pinned) still selects an account in this shell")
    }
    return ExitCode.ok
}
