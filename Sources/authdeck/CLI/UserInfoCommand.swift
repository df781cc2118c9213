import AppCore
import AppCoreLive
import AuthEngine
import FoundationEssentials
import Synchronization

// gh's shape: per command an options struct made from the parsed arguments (validated before
// anything runs) and a run function over the live session (one file per verb).

// MARK: - userinfo

func userinfoRun(_ query: String?, json: Bool, _ context: CLIContext) async throws -> Int32 {
    let snapshot = try context.snapshot()
    let record = try context.account(query, in: snapshot)
    switch await context.result({ () async throws(AppError) in try await ShowUserInfo(context.app).run(record.id) }) {
    case .success(let claims):
        if json {
            Output.json(claims)
        } else if case .object(let members) = claims {
            let provider = snapshot.providers.first { $0.id == record.providerID }
            Output.out(ClaimsText.lines(members, provider: provider, now: context.now()).joined(separator: "\n") + "\n")
        }
        return ExitCode.ok
    case .failure(let error):
        throw CLIFailure(error)
    }
}
