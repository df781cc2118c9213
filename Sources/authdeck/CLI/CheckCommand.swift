import AppCore
import AppCoreLive
import AuthEngineLive
import CredentialStoreLive
import FoundationEssentials
import StrictJSON

#if canImport(Glibc)
import Glibc
#endif

// `authdeck check [ACCOUNT | --all] [--backstop S] [--ending-soon S] [--hook CMD]... [--notify] [--json]`: the
// unattended backstop (CheckAccounts), what was told kept in the state directory (CheckLedger),
// hooks run for each event. Never prompts: the live environment is made non-interactive.

struct CheckOptions {
    var account: String?
    var backstop: Double?
    var endingSoon: Double?
    var hooks: [String]
    var notify: Bool
    var json: Bool

    init(_ parsed: ParsedCommand) {
        account = parsed.positional("account")
        backstop = parsed.value("backstop").flatMap(Double.init)
        endingSoon = parsed.value("endingSoon").flatMap(Double.init)
        hooks = parsed.values("hook")
        notify = parsed.flag("notify")
        json = parsed.flag("json")
    }

    static func validate(_ parsed: ParsedCommand) -> String? {
        for name in ["backstop", "endingSoon"] {
            if let text = parsed.value(name), Double(text).map({ $0 >= 0 && $0 <= maximumMinValid }) != true {
                return "--\(name == "backstop" ? "backstop" : "ending-soon") must be a number of seconds from 0 to \(Int(maximumMinValid)), got '\(text)'"
            }
        }
        if parsed.flag("all"), parsed.positional("account") != nil { return "name an account or give --all, not both" }
        if parsed.values("hook").contains(where: { $0.allSatisfy(\.isWhitespace) }) { return "--hook needs a command, got an empty one" }
        return nil
    }
}

/// `$XDG_CONFIG_HOME/authdeck/check.json` (optional): `{"backstopSeconds": 5400,
/// "endingSoonSeconds": 259200, "hooks": ["cmd …"], "providers": {"NAME": {"backstopSeconds": N}}}`.
struct CheckConfig {
    var settings = CheckAccounts.Settings()
    var hooks: [String] = []

    init() {}

    init(json: JSONValue) throws(JSONShapeError) {
        let reader = try JSONReader(json)
        func seconds(_ reader: JSONReader, _ name: String) throws(JSONShapeError) -> Double? {
            guard let value = try reader.optionalDouble(name) else { return nil }
            guard value >= 0, value <= maximumMinValid else { throw reader.shapeError(name, expected: "seconds from 0 to \(Int(maximumMinValid))") }
            return value
        }
        func known(_ reader: JSONReader, _ names: Set<String>) throws(JSONShapeError) {
            if let unknown = reader.members.keys.sorted().first(where: { !names.contains($0) }) {
                throw reader.shapeError(unknown, expected: "one of \(names.sorted().joined(separator: ", ")) (not '\(unknown)')")
            }
        }
        try known(reader, ["backstopSeconds", "endingSoonSeconds", "hooks", "providers"])
        if let value = try seconds(reader, "backstopSeconds") { settings.backstop = value }
        if let value = try seconds(reader, "endingSoonSeconds") { settings.endingSoonWithin = value }
        hooks = try reader.optionalStrings("hooks") ?? []
        let providers = try reader.optionalMap("providers") { (value, path) throws(JSONShapeError) -> Double? in
            let provider = try JSONReader(value, path: path)
            try known(provider, ["backstopSeconds"])
            return try seconds(provider, "backstopSeconds")
        } ?? [:]
        for (name, seconds) in providers { if let seconds { settings.providerBackstops[ProviderID(name)] = seconds } }
    }
}

func checkRun(_ options: CheckOptions, _ parent: CLIContext) async throws -> Int32 {
    // Nothing may ask: no passphrase prompt (the vault's key must be cached, or a passphrase file given).
    var adjusted = parent.environment
    adjusted[PassphraseSource.nonInteractiveVariable] = "1"
    let environment = adjusted
    let now = parent.now
    let context = CLIContext(environment: environment, now: now) { AppEnvironment.live(processEnvironment: environment, now: now) }
    let paths = XDGPaths(environment: environment)
    let configFile = MetadataFile.config("check.json", paths: paths, read: { json throws(JSONShapeError) in try CheckConfig(json: json) },
                                         write: { _ in .object([:]) })
    var config: CheckConfig
    do { config = try configFile.read() ?? CheckConfig() } catch {
        throw CLIFailure("\(configFile.path) cannot be used: \(error)", hint: "Fix or remove it; its members are backstopSeconds, endingSoonSeconds, hooks and providers.", exitCode: ExitCode.usage)
    }
    if let backstop = options.backstop { config.settings.backstop = backstop; config.settings.providerBackstops = [:] }
    if let endingSoon = options.endingSoon { config.settings.endingSoonWithin = endingSoon }
    let hooks = config.hooks + options.hooks
    let settings = config.settings

    // One check at a time (a timer and a person's run): the accounts are read under the lock, so
    // the second finds them just refreshed and leaves them.
    let ledgerFile = MetadataFile.state("check-state.json", paths: paths, read: { json throws(JSONShapeError) in try CheckLedger(json: json) },
                                        write: { $0.json })
    var outcomes: [CheckAccounts.Outcome] = []
    var told: [CheckLedger.Told] = []
    let lock: FileLock
    do {
        try PrivateFiles.ensureDirectory(paths.stateDirectory)
        lock = try FileLock.lock(ledgerFile.path + ".lock", timeout: .seconds(600))
    } catch {
        throw CLIFailure("Cannot take the lock of \(ledgerFile.path): \(error)", hint: "Another 'authdeck check' may be stuck; see 'ps'.")
    }
    defer { lock.release() }
    let snapshot = try context.snapshot()
    let records = try options.account.map { [try context.account($0, in: snapshot)] } ?? snapshot.accounts
    if records.isEmpty {
        if options.json { Output.json(.object(["accounts": .array([])])) } else { Output.err("No account is signed in: nothing to check.") }
        return ExitCode.ok
    }
    switch await context.result({ () async throws(AppError) in try await CheckAccounts(context.app).run(records, settings: settings) }) {
    case .success(let result): outcomes = result
    case .failure(let error):
        if error.disposition == .storeLocked {
            throw CLIFailure(error, hint: "authdeck check never asks for a passphrase: give AUTHDECK_PASSPHRASE_FILE (a 0600 file) or use the Secret Service (AUTHDECK_STORE=secret-service) for unattended checks.")
        }
        throw CLIFailure(error)
    }
    var stillTransient = false
    do {
        var ledger = CheckLedger()
        do {
            ledger = try ledgerFile.read() ?? CheckLedger()
        } catch {
            // Damaged: kept aside (every byte), and every state is told again.
            let aside = (try? PrivateFiles.moveAside(ledgerFile.path, now: context.now())) ?? nil
            Output.err("warning: \(ledgerFile.path) was damaged (\(error)); moved to \(aside ?? "nowhere") — every state is told again")
        }
        var (next, events) = ledger.applying(outcomes, now: context.now(), existing: Set(snapshot.accounts.map(\.id)))
        told = events
        stillTransient = outcomes.contains { next.entries[$0.account]?.reported == .transient }
        if options.notify { notify(told, ledger: &next, environment: parent.environment) }
        try ledgerFile.write(next)
    } catch {
        throw CLIFailure("Cannot keep what check told in \(ledgerFile.path): \(error)")
    }

    for event in told where event.event != .refreshed { Output.err("authdeck check: \(event.message)") }
    for event in told {
        for hook in hooks { runHook(hook, event: event, environment: parent.environment) }
    }
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
            if let ends = outcome.endsAt, outcome.verdict != .ok { line += " (\(Times.rfc3339(ends)), \(TimeText.relative(ends, now: context.now())))" }
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

/// One desktop notification per state change (not for `refreshed`), replacing the account's
/// previous one (its id kept in the ledger); urgency by kind: needs sign-in and error critical,
/// ending soon and transient normal, recovered low. No session bus, no server: nothing, silently
/// (stderr and the hooks still tell).
func notify(_ told: [CheckLedger.Told], ledger: inout CheckLedger, environment: [String: String]) {
    for event in told {
        let urgency: DesktopNotifications.Urgency
        switch event.event {
        case .refreshed: continue
        case .needsSignIn, .failed: urgency = .critical
        case .endingSoon, .transient: urgency = .normal
        case .recovered: urgency = .low
        }
        let previous = ledger.entries[event.account]?.notificationID ?? 0
        let notification = DesktopNotifications.Notification(summary: event.summary, body: event.detail, urgency: urgency, replacesID: previous)
        if let id = DesktopNotifications.send(notification, environment: environment) {
            ledger.entries[event.account]?.notificationID = id
        }
    }
}

extension String {
    /// Left-aligned in `width` columns (ASCII text).
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}

/// Runs one hook for one event: `sh -c CMD` in its own process group with `AUTHDECK_EVENT`,
/// `AUTHDECK_ACCOUNT` (the id), `AUTHDECK_PROVIDER` and `AUTHDECK_MESSAGE`; never a token (the
/// environment is authdeck's own, which holds none, without its secret variables); stdin
/// `/dev/null`, stdout to stderr (``ChildProcess`` detached); ended (SIGTERM, then SIGKILL, to its
/// group) after 10 s. A failure is said,
/// never fatal.
func runHook(_ command: String, event: CheckLedger.Told, environment: [String: String], limit: Double = 10) {
    var child = BrowserLauncher.childEnvironment(from: environment)
    child["AUTHDECK_EVENT"] = event.event.rawValue
    child["AUTHDECK_ACCOUNT"] = event.account.rawValue
    child["AUTHDECK_PROVIDER"] = event.provider.rawValue
    child["AUTHDECK_MESSAGE"] = event.message
    let hook: ChildProcess
    do {
        hook = try ChildProcess.spawn(["/bin/sh", "-c", command], environment: child, keeping: [], detached: true)
    } catch {
        Output.err("authdeck check: the hook '\(command)' could not start")
        return
    }
    let deadline = Date().addingTimeInterval(limit)
    while true {
        if let status = hook.reap() {
            if status > 128 {
                Output.err("authdeck check: the hook '\(command)' for \(event.event.rawValue) was ended by signal \(status - 128)")
            } else if status != 0 {
                Output.err("authdeck check: the hook '\(command)' for \(event.event.rawValue) exited \(status)")
            }
            return
        }
        if Date() >= deadline {
            hook.endGroup()
            Output.err("authdeck check: the hook '\(command)' for \(event.event.rawValue) was ended after \(Int(limit)) s")
            return
        }
        usleep(20_000)
    }
}
