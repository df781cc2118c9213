import AppCore
import AppCoreLive
import AuthEngineLive
import CredentialStore
import CredentialStoreLive
import FoundationEssentials
import QuickToken
import StrictJSON

#if canImport(Glibc)
import Glibc
#endif

// `authdeck check [ACCOUNT | --all] [--backstop S] [--ending-soon S] [--hook CMD]... [--notify] [--json]`: the
// unattended backstop (CheckAccounts), each state told once (AccountEvents: stderr, --notify,
// hooks; the ledger in the state directory). Never prompts: the live environment is made non-interactive.

struct CheckOptions {
    var account: String?
    var backstop: Double?
    var endingSoon: Double?
    var hooks: [String]
    var notify: Bool
    var json: Bool

    init(_ parsed: ParsedCommand) {
        account = parsed.positional("account")
        backstop = parsed.value("backstop").flatMap(durationSeconds)
        endingSoon = parsed.value("endingSoon").flatMap(durationSeconds)
        hooks = parsed.values("hook")
        notify = parsed.flag("notify")
        json = parsed.flag("json")
    }

    static func validate(_ parsed: ParsedCommand) -> String? {
        for name in ["backstop", "endingSoon"] {
            if let text = parsed.value(name), durationSeconds(text) == nil {
                let option = name == "backstop" ? "backstop" : "ending-soon"
                return "--\(option) must be a number of seconds from 0 to \(Int(maximumMinValid)), got '\(text)'"
            }
        }
        if parsed.flag("all"), parsed.positional("account") != nil { return "name an account or give --all, not both" }
        if parsed.values("hook").contains(where: { $0.allSatisfy(\.isWhitespace) }) { return "--hook needs a command, got an empty one" }
        return nil
    }
}

func checkRun(_ options: CheckOptions, _ parent: CLIContext) async throws -> Int32 {
    // Nothing may ask: no passphrase prompt (the vault's key must be cached, or a passphrase file given).
    var adjusted = parent.environment
    adjusted[PassphraseSource.nonInteractiveVariable] = "1"
    let environment = adjusted
    let now = parent.now
    let context = CLIContext(environment: environment, now: now) {
        AppEnvironment.live(processEnvironment: environment, now: now, report: { Output.err($0) })
    }
    let paths = XDGPaths(environment: environment)
    let configFile = MetadataFile.config("check.json", paths: paths, read: { json throws(JSONShapeError) in try CheckConfiguration(json: json) },
                                         write: { _ in .object([:]) })
    var config: CheckConfiguration
    do { config = try configFile.read() ?? CheckConfiguration() } catch {
        // The person's own file: never moved aside (not even by doctor --repair), said with what to fix.
        let damage = AccountEventsClient.damage(error, path: configFile.path)
        throw CLIFailure("\(configFile.path) cannot be used: \(damage.damage)",
                         hint: "Fix it (or replace a link with the file itself), or remove it; its members are backstopSeconds, "
                            + "endingSoonSeconds, hooks, notify and providers.",
                         exitCode: ExitCode.fileDamaged)
    }
    if let backstop = options.backstop { config.settings.backstop = backstop; config.settings.providerBackstops = [:] }
    if let endingSoon = options.endingSoon { config.settings.endingSoonWithin = endingSoon }
    let hooks = config.hooks + options.hooks
    let settings = config.settings

    // One check at a time (a timer and a person's run): the accounts are read under this lock,
    // so the second finds them just refreshed and leaves them. The ledger has a lock of its own,
    // held only while it is read and written (every command tells its events through it).
    let runLock = "\(paths.stateDirectory)/check.lock"
    let lock = try takeCheckLock(runLock, stateDirectory: paths.stateDirectory)
    defer { lock.release() }
    let snapshot = try context.snapshot()
    let records = try options.account.map { [try context.account($0, in: snapshot)] } ?? snapshot.accounts
    if records.isEmpty {
        if options.json { Output.json(.object(["accounts": .array([])])) } else { Output.err("No account is signed in: nothing to check.") }
        return ExitCode.ok
    }
    let outcomes: [CheckAccounts.Outcome]
    let check = CheckAccounts(context.app)
    switch await context.result({ () async throws(AppError) in try await check.run(records, settings: settings, notices: Output.refreshNotice) }) {
    case .success(let result): outcomes = result
    case .failure(let error):
        // Nothing could be checked: said once on stderr (and in --json); a locked store also
        // told once to the hooks and as a notification, until a check reads it again.
        var hint = error.nextStep
        var told: [CheckLedger.Told] = []
        if error.disposition == .storeLocked {
            hint = context.app.credentials.info().backend == .secretService
                ? "authdeck check never shows a keyring prompt: unlock the keyring (sign in to the desktop session); the next check reads it."
                : "authdeck check never asks for a passphrase: give AUTHDECK_PASSPHRASE_FILE (a 0600 file) "
                    + "or use the Secret Service (AUTHDECK_STORE=secret-service) for unattended checks."
            let reason = error.detail.isEmpty ? error.title : "\(error.title): \(error.detail)"
            told = (try? AccountEvents(context.app).storeLocked(reason: reason, hint: hint ?? "", hooks: hooks,
                                                                 notify: options.notify || config.notify)) ?? []
        }
        let failure = CLIFailure(error, hint: hint)
        if options.json {
            Output.json(.object([
                "accounts": .array([]),
                "error": .object(["title": .string(error.title), "detail": .text(error.detail.isEmpty ? nil : error.detail),
                                  "disposition": .string(checkDispositionName(error.disposition)),
                                  "hint": .text(hint), "exitCode": .int(Int(failure.exitCode))]),
                "told": .array(told.map { .string($0.event.rawValue) }),
            ]))
        }
        throw failure
    }
    // Each state told once (AccountEvents): as a desktop notification (--notify, or check.json's
    // notify) and to each hook (check.json's, then --hook's); on stderr here.
    let (ledger, told, unkept) = AccountEvents(context.app).tell(outcomes, check: true, existing: Set(snapshot.accounts.map(\.id)),
                                                                 hooks: hooks, notify: options.notify || config.notify)
    if let unkept {
        // The run is not lost: its lines, --json and hooks as usual, its exit code as if the file were fine.
        let file = "\(paths.stateDirectory)/check-state.json"
        let why = unkept.damage?.damage ?? (unkept.detail.isEmpty ? unkept.title : "\(unkept.title): \(unkept.detail)")
        Output.err("warning: what check told cannot be kept in \(file) (\(why)), so each state is told again by every check"
                   + " and no notification is shown — remove or move aside \(file); `authdeck doctor --repair` does it")
    }
    for event in told where event.event != .refreshed { Output.err("authdeck check: \(event.message)") }
    let stillTransient = outcomes.contains { ledger.entries[$0.account]?.reported == .transient }
    if options.json {
        Output.json(.object(["accounts": .array(outcomes.map { outcome in
            .object([
                "id": .string(outcome.account.rawValue), "handle": .string(outcome.handle), "provider": .string(outcome.provider.rawValue),
                "verdict": .string(outcome.verdict.rawValue), "reason": .text(outcome.reason.isEmpty ? nil : outcome.reason),
                "refreshed": .bool(outcome.refreshed), "endsAt": .time(outcome.endsAt),
                "told": .array(told.filter { $0.account == outcome.account }.map { .string($0.event.rawValue) }),
            ])
        })]))
    } else {
        for outcome in outcomes {
            var line = "\(outcome.verdict.rawValue.padding(12)) \(outcome.handle)"
            if !outcome.reason.isEmpty { line += ": \(outcome.reason)" }
            if let ends = outcome.endsAt, outcome.verdict != .ok {
                line += " (\(Times.rfc3339(ends)), \(TimeText.relative(ends, now: context.now())))"
            }
            if outcome.refreshed { line += outcome.reason.isEmpty ? " (refreshed)" : "; refreshed" }
            Output.line(line)
        }
    }
    let verdicts = Set(outcomes.map(\.verdict))
    if verdicts.contains(.needsSignIn) { return ExitCode.needsSignIn }
    if verdicts.contains(.failed) { return ExitCode.failure }
    // Transient trouble counts once it has lasted (the ledger reports it), and for as long as it lasts.
    if stillTransient { return ExitCode.failure }
    return ExitCode.ok
}

/// `check.lock`, waiting up to 600 s for another check; a wait longer than a second is said once
/// on stderr, with the other check's pid (which the holder writes into the lock file).
/// - Throws: ``CLIFailure`` when the lock cannot be taken.
func takeCheckLock(_ path: String, stateDirectory: String) throws -> FileLock {
    let clock = ContinuousClock()
    let start = clock.now
    var said = false
    do {
        try PrivateFiles.ensureDirectory(stateDirectory)
        while true {
            if let lock = try FileLock.tryLock(path) {
                lock.record("\(getpid())\n")
                return lock
            }
            let waited = clock.now - start
            if !said, waited > .seconds(1) {
                said = true
                let holder = FileLock.recorded(path).flatMap { $0.split(separator: "\n").first.flatMap { Int32($0) } }
                Output.err("waiting for another authdeck check\(holder.map { " (pid \($0))" } ?? "")…")
            }
            if waited > .seconds(600) { throw CLIFailure("Cannot take the lock \(path): another 'authdeck check' held it for 600 s",
                                                        hint: "Another 'authdeck check' may be stuck; see 'ps'.") }
            usleep(20_000)
        }
    } catch let error as SecretStoreError {
        throw CLIFailure("Cannot take the lock \(path): \(error)", hint: "Another 'authdeck check' may be stuck; see 'ps'.")
    }
}

/// `check --json`'s `error.disposition` when nothing could be checked.
func checkDispositionName(_ disposition: AppError.Disposition) -> String {
    switch disposition {
    case .storeLocked: "store_locked"
    case .fileDamaged: "file_damaged"
    case .cancelled: "cancelled"
    case .transient: "transient"
    case .usage: "usage"
    case .needsSignIn, .securityRelevant, .other: "error"
    }
}

extension String {
    /// Left-aligned in `width` columns (ASCII text).
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
