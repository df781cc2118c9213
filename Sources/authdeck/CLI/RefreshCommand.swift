import AppCore
import AppCoreLive
import AuthEngine
import FoundationEssentials
import Synchronization

// gh's shape: per command an options struct made from the parsed arguments (validated before
// anything runs) and a run function over the live session (one file per verb).

// MARK: - refresh

/// `refresh [ACCOUNT] [--resource URI]`: every access token the account holds (the same use case
/// as the accounts screen's `r`), or only the one for `resource`.
func refreshRun(_ query: String?, resource: String?, _ context: CLIContext) async throws -> Int32 {
    let snapshot = try context.snapshot()
    let record = try context.account(query, in: snapshot)
    if let resource, !record.accessTokens.contains(where: { $0.resource.exactlyEquals(resource) }) {
        let held = record.accessTokens.compactMap(\.resource)
        throw CLIFailure("\(AccountResolution.describe(record)) holds no access token for the resource '\(resource)'",
                         hint: held.isEmpty ? "It holds only its default token: refresh without --resource, or sign in with --resource \(resource)."
                             : "It holds tokens for: \(held.joined(separator: ", ")). Or sign in with --resource \(resource).",
                         exitCode: ExitCode.usage)
    }
    let refresh = { () async throws(AppError) -> AccountRecord in
        if let resource { return try await RefreshAccount(context.app).run(record, resource: resource, force: true, notices: Output.refreshNotice) }
        return try await RefreshAccount(context.app).runAll(record.id, force: true, notices: Output.refreshNotice)
    }
    switch await context.result(refresh) {
    case .success(let updated):
        let expiry = updated.accessTokenExpiresAt.map {
            "; the access token expires \(Times.rfc3339($0)) (\(TimeText.relative($0, now: context.now())))"
        } ?? ""
        Output.err("Refreshed \(AccountResolution.describe(updated))\(expiry).")
        for warning in updated.tokenWarnings ?? [] { Output.err("warning: \(warning)") }
        if let change = updated.scopeChange, !change.added.isEmpty || !change.removed.isEmpty {
            Output.err("Scopes changed: added [\(change.added.joined(separator: " "))], removed [\(change.removed.joined(separator: " "))]")
        }
        return ExitCode.ok
    case .failure(let error):
        throw CLIFailure(error)
    }
}
