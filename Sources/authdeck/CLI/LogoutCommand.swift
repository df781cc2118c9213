import AppCore
import AppCoreLive
import AuthEngine
import FoundationEssentials
import Synchronization

// gh's shape: per command an options struct made from the parsed arguments (validated before
// anything runs) and a run function over the live session (one file per verb).

// MARK: - logout

struct LogoutOptions {
    var account: String?
    var localOnly: Bool
    var noEndSession: Bool
    var revokeGrant: Bool
    init(_ parsed: ParsedCommand) {
        account = parsed.positional("account")
        localOnly = parsed.flag("localOnly")
        noEndSession = parsed.flag("noEndSession")
        revokeGrant = parsed.flag("revokeGrant")
    }
}

func logoutRun(_ options: LogoutOptions, _ context: CLIContext) async throws -> Int32 {
    remoteStoreNote(context, "logout")
    let snapshot = try context.snapshot()
    let record = try context.account(options.account, in: snapshot)
    let signOutOptions = SignOutOptions(localOnly: options.localOnly, endSession: !options.noEndSession && !options.localOnly,
                                        revokeGrant: options.revokeGrant)
    try context.run { () throws(AppError) in try SignOut(context.app).prepare(signOutOptions) }
    let failures = FailureCounter()
    let outcome = await SignOut(context.app).run(record.id, options: signOutOptions) { step in
        switch step.outcome {
        case .done(let text): Output.err("✓ \(step.step.rawValue): \(text)")
        case .skipped(let text): Output.err("- \(step.step.rawValue): skipped (\(text))")
        case .started(let text): Output.err("… \(step.step.rawValue): \(text) (Ctrl-C stops waiting)")
        case .failed(let error):
            failures.add()
            Output.err("✗ \(step.step.rawValue): \(error.description)")
            if let next = error.nextStep { Output.err("  \(Output.visible(next))") }
        }
    }
    guard outcome.removed else {
        throw CLIFailure("\(AccountResolution.describe(record)) was not removed",
                         hint: "Fix the error above and run 'authdeck logout' again, or use --local-only to only delete the local secrets.")
    }
    if failures.count > 0 {
        Output.err("Logged out \(AccountResolution.describe(record)) locally, but a step failed:"
            + " the tokens may stay valid at the provider until they expire.")
        return ExitCode.failure
    }
    Output.err("Logged out \(AccountResolution.describe(record)).")
    return ExitCode.ok
}

final class FailureCounter: Sendable {
    private let value = Mutex(0)
    func add() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}
