import AppCore
import AppCoreLive
import AuthEngine
import AuthEngineLive
import CredentialStoreLive
import FoundationEssentials
import Synchronization
import QuickToken

#if canImport(Glibc)
import Glibc
#endif

// `authdeck exec [ACCOUNT] [--env NAME] [--token-file] [--min-valid S] [--kill-on-expiry] -- CMD ARGS…`:
// a program that takes its token from the environment or a file, run with a fresh one. authdeck
// stays the parent (signals passed on, the child's exit status returned) and, with --token-file,
// renews the file before each expiry for as long as the child runs (ExecRules).

struct ExecOptions {
    var account: String?
    var variable: String
    var tokenFile: Bool
    var minValid: Double
    var minValidGiven: Bool
    var resource: String?
    var killOnExpiry: Bool
    var command: [String]

    init(_ parsed: ParsedCommand) {
        account = parsed.positional("account")
        variable = parsed.value("env") ?? ExecRules.defaultTokenVariable
        tokenFile = parsed.flag("tokenFile")
        minValid = parsed.value("minValid").flatMap(durationSeconds) ?? 60
        minValidGiven = parsed.value("minValid") != nil
        resource = parsed.value("resource")
        killOnExpiry = parsed.flag("killOnExpiry")
        command = parsed.trailing
    }

    static func validate(_ parsed: ParsedCommand) -> String? {
        if let name = parsed.value("env"), let problem = ExecRules.variableNameProblem(name) { return problem }
        if let text = parsed.value("minValid"), durationSeconds(text) == nil {
            return "--min-valid must be a number of seconds from 0 to \(Int(maximumMinValid)) (10 years), got '\(text)'"
        }
        if let resource = parsed.value("resource"), let problem = resourceIndicatorProblem(resource) { return problem }
        if parsed.trailing.first?.isEmpty == true { return "the command after '--' is empty" }
        return nil
    }
}

func execRun(_ options: ExecOptions, _ context: CLIContext) async throws -> Int32 {
    // Descriptors open now are the caller's (a `3<file` for the child); those opened later are ours.
    let inherited = ChildProcess.openDescriptors()
    let source = try execTokenSource(options, context)
    let (handle, issue) = (source.handle, source.issue)
    if let outer = context.environment[ExecRules.nestingVariable], !outer.isEmpty {
        Output.err("note: this 'authdeck exec' runs inside another one (for \(outer)); the inner one gives \(handle)'s token")
    }
    var issued = try await context.run { () async throws(AppError) in try await issue(options.minValid) }
    printTokenNotes(issued.warnings, minValidGiven: options.minValidGiven, tokenType: issued.tokenType, refusedIDToken: issued.refusedIDToken)

    var file: TokenFile?
    if options.tokenFile {
        file = try TokenFile.create(runtimeDirectory: XDGPaths(environment: context.environment).runtimeDirectory)
        try file?.write(issued.value)
    }
    defer { file?.remove() }
    // Without authdeck's own secret-bearing variables (the passphrase's file and descriptor), as
    // a browser or a hook gets it; the passphrase descriptor is not inherited either.
    let environment = ExecRules.childEnvironment(parent: BrowserLauncher.childEnvironment(from: context.environment), variable: options.variable,
                                                 token: issued.value.exposedValue, tokenFile: file?.path,
                                                 expiration: issued.expiresAt.map(Times.rfc3339), account: handle)
    let relay = try SignalRelay.install()
    let child: ChildProcess
    do {
        let passphraseFD = context.environment[PassphraseSource.fileDescriptorVariable].flatMap(Int32.init)
        child = try ChildProcess.spawn(options.command, environment: environment, keeping: inherited.filter { $0 != passphraseFD })
    } catch let failure as ChildProcess.SpawnFailure {
        Output.err("authdeck exec: \(failure.message)")
        return failure.exitCode
    }
    let program = options.command[0]

    // The watch: pass signals on, reap the child, renew the file (or end the child at --kill-on-expiry).
    var renewAt = file == nil ? nil : ExecRules.renewalTime(expiresAt: issued.expiresAt, now: context.now(), minimumValidity: options.minValid)
    var failures = 0
    var grantGoneSaid = false
    var ending: ChildProcess.Ending?
    // Without a file the child holds the token it was given: --kill-on-expiry ends it at that expiry.
    let killAt = options.killOnExpiry && file == nil ? issued.expiresAt : nil
    while true {
        let wake = [renewAt, killAt, ending?.forceAt].compactMap { $0 }.min()
        for signal in relay.wait(until: wake) { child.signal(signal) }
        if let status = child.reap() { return status }
        if let forceAt = ending?.forceAt, context.now() >= forceAt {
            child.signal(SIGKILL)
            ending?.forceAt = nil
        }
        if let killAt, ending == nil, context.now() >= killAt {
            Output.err("authdeck exec: ending \(program) (pid \(child.pid)): its token expired at \(Times.rfc3339(killAt))"
                       + " and --kill-on-expiry was given")
            ending = child.end(now: context.now())
        }
        guard let due = renewAt, context.now() >= due, ending == nil else { continue }
        let validity = max(0, (issued.expiresAt ?? context.now()).timeIntervalSince(context.now()))
        do {
            issued = try await issue(validity)
            try file?.write(issued.value)
            failures = 0
            grantGoneSaid = false
            renewAt = ExecRules.renewalTime(expiresAt: issued.expiresAt, now: context.now(), minimumValidity: options.minValid)
        } catch let error as AppError {
            let expiry = issued.expiresAt.map { "its token expires \(Times.rfc3339($0)) (\(TimeText.relative($0, now: context.now())))" }
                ?? "its token has no expiry"
            if error.disposition == .needsSignIn {
                if options.killOnExpiry {
                    Output.err("authdeck exec: ending \(program) (pid \(child.pid)): the grant of \(handle) is gone (\(error.title))"
                               + " and --kill-on-expiry was given")
                    ending = child.end(now: context.now())
                } else if !grantGoneSaid {
                    grantGoneSaid = true
                    Output.err("authdeck exec: the grant of \(handle) is gone (\(error.title)): the token file is left as it is, \(expiry). "
                        + "Sign in again with '\(source.signIn)'; the next renewal picks the new grant up.")
                }
                failures += 1
                renewAt = context.now().addingTimeInterval(ExecRules.retryDelay(failures: failures, expiresAt: nil, now: context.now()))
                continue
            }
            failures += 1
            let delay = ExecRules.retryDelay(failures: failures, expiresAt: issued.expiresAt, now: context.now())
            Output.err("authdeck exec: could not renew \(handle)'s token (\(CLIFailure(error).message)); trying again in \(Int(delay)) s, \(expiry)")
            renewAt = context.now().addingTimeInterval(delay)
            if options.killOnExpiry, let expiresAt = issued.expiresAt, context.now() >= expiresAt {
                Output.err("authdeck exec: ending \(program) (pid \(child.pid)): its token expired at \(Times.rfc3339(expiresAt))"
                           + " and --kill-on-expiry was given")
                ending = child.end(now: context.now())
            }
        } catch let failure as CLIFailure {
            failures += 1
            Output.err("authdeck exec: could not write the token file: \(failure.message); trying again")
            renewAt = context.now().addingTimeInterval(ExecRules.retryDelay(failures: failures, expiresAt: issued.expiresAt, now: context.now()))
        }
    }
}

/// Where exec's tokens come from: this machine's store (``TokenForScripts``), or the agent at
/// `AUTHDECK_AGENT_SOCK` (its failures as ``AppError``s, so the watch treats both alike).
struct ExecTokenSource {
    var handle: String
    /// The command that signs the account in again.
    var signIn: String
    var issue: (TimeInterval) async throws(AppError) -> TokenForScripts.Issued<AccessToken>
}

func execTokenSource(_ options: ExecOptions, _ context: CLIContext) throws -> ExecTokenSource {
    if let socket = agentSocket(context) {
        func ask(_ validity: TimeInterval) throws(AppError) -> AgentAnswer.IssuedToken {
            do {
                return try agentToken(socket, account: options.account, resource: options.resource, minValid: validity,
                                      command: "exec " + options.command[0], context)
            } catch {
                let failure = error as? CLIFailure
                let disposition: AppError.Disposition = failure?.exitCode == ExitCode.needsSignIn ? .needsSignIn : .other
                throw AppError(title: failure?.message ?? "\(error)", disposition: disposition)
            }
        }
        // The account's name comes with its first token: asked for once, handed out once.
        let first = Mutex<AgentAnswer.IssuedToken?>(try ask(options.minValid))
        let handle = first.withLock { $0?.account } ?? "?"
        return ExecTokenSource(handle: handle, signIn: "authdeck login (on the agent's machine)") { validity throws(AppError) in
            let kept = first.withLock { $0.take() }
            let issued = if let kept { kept } else { try ask(validity) }
            return .init(value: issued.token, tokenType: issued.tokenType, expiresAt: issued.expiresAt, warnings: issued.warnings)
        }
    }
    let snapshot = try context.snapshot()
    let record = try context.account(options.account, in: snapshot)
    let tokens = TokenForScripts(context.app)
    let signIn = "authdeck login \(record.providerID.rawValue)"
    return ExecTokenSource(handle: AccountResolution.handle(record), signIn: signIn) { validity throws(AppError) in
        try await tokens.accessToken(record.id, minimumValidity: .milliseconds(Int64(validity * 1000)), resource: options.resource,
                                     notices: Output.refreshNotice)
    }
}

/// The 0600 file under `$XDG_RUNTIME_DIR/authdeck/` that `--token-file` hands the child:
/// `exec-<pid>.token`, rewritten atomically, removed when the child ends. Files of earlier runs
/// whose process is gone (killed before it could remove its file) are removed on creation.
struct TokenFile {
    let path: String

    /// - Throws: ``CLIFailure`` when there is no `XDG_RUNTIME_DIR` or the directory is not private.
    static func create(runtimeDirectory: String?) throws -> TokenFile {
        guard let runtimeDirectory else {
            throw CLIFailure("--token-file needs XDG_RUNTIME_DIR (a per-user directory in memory, removed at logout),"
                                 + " and it is not set to an absolute path",
                             hint: "Set XDG_RUNTIME_DIR to a private directory (systemd sets /run/user/$UID),"
                                 + " or drop --token-file to get the token in the environment.",
                             exitCode: ExitCode.usage)
        }
        do {
            try PrivateFiles.ensureDirectory(runtimeDirectory)
            try PrivateFiles.checkPrivate(runtimeDirectory)
        } catch {
            throw CLIFailure("Cannot use \(runtimeDirectory) for the token file: \(error)")
        }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: runtimeDirectory)) ?? [] {
            guard name.hasPrefix("exec-"), name.hasSuffix(".token"),
                  let pid = pid_t(name.dropFirst(5).dropLast(6)), kill(pid, 0) != 0, errno == ESRCH else { continue }
            unlink("\(runtimeDirectory)/\(name)")
        }
        return TokenFile(path: "\(runtimeDirectory)/exec-\(getpid()).token")
    }

    /// Replaces the file's content with `token` (no newline), atomically, mode 0600.
    func write(_ token: AccessToken) throws {
        do { try PrivateFiles.writeAtomically(Data(token.exposedValue.utf8), to: path) } catch {
            throw CLIFailure("\(error)")
        }
    }

    func remove() { unlink(path) }
}
