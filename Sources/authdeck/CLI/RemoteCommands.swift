import AppCore
import AppCoreLive
import AuthEngine
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

// The remote's side (AUTHDECK_AGENT_SOCK set): the commands that hand out a token ask the agent,
// which decides with the local commands' rules (AgentService); nothing here reads or writes the
// remote's store, and nothing is written to its disk.

/// The agent's socket when `AUTHDECK_AGENT_SOCK` names one.
func agentSocket(_ context: CLIContext) -> String? {
    guard let path = context.environment["AUTHDECK_AGENT_SOCK"], !path.isEmpty else { return nil }
    return path
}

/// This host's name, for the agent's question and log.
func remoteHostName() -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count - 1) == 0 else { return "?" }
    return String(decoding: buffer.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self)
}

/// What this host's directory says of the account (``Places/read(_:)``: the same git config and
/// `authdeck bind` rules as without an agent), for the agent to resolve over its accounts; nil when
/// the ACCOUNT argument or `AUTHDECK_ACCOUNT` chooses (then nothing is read, as locally).
func remotePlace(_ query: String?, directory: String? = nil, _ context: CLIContext) -> AccountPlace? {
    guard query == nil, context.environment["AUTHDECK_ACCOUNT"]?.isEmpty != false else { return nil }
    return Places(context.app).read(directory)
}

/// One request to the agent; a failure answer becomes the CLI's error with its exit status
/// (`denied`: ``ExitCode/agentDenied``).
func askAgent(_ path: String, _ request: AgentRequest) throws -> AgentAnswer {
    let answer: AgentAnswer
    do { answer = try AgentSocket.ask(path, request) } catch { throw agentFailure(error) }
    if case .failure(let failure) = answer { throw agentFailure(failure) }
    return answer
}

func agentFailure(_ failure: AgentAnswer.Failure) -> CLIFailure {
    CLIFailure("agent: " + failure.title, hint: failure.nextStep, exitCode: failure.exitStatus)
}

/// The agent's access token for `account` (nil: the agent's default), as `token` would print it.
func agentToken(_ path: String, account: String?, resource: String?, minValid: Double, idToken: Bool = false, command: String,
                _ context: CLIContext) throws -> AgentAnswer.IssuedToken {
    let request = AgentRequest(operation: .token, account: account, environmentAccount: context.environment["AUTHDECK_ACCOUNT"],
                               resource: resource, minimumValidity: minValid, idToken: idToken, command: command, host: remoteHostName(),
                               place: remotePlace(account, context))
    guard case .token(let issued) = try askAgent(path, request) else { throw CLIFailure("agent: the answer holds no token") }
    return issued
}

/// `authdeck token` on the remote.
func remoteTokenRun(_ options: TokenOptions, _ path: String, _ context: CLIContext) throws -> Int32 {
    let issued = try agentToken(path, account: options.account, resource: options.resource, minValid: options.minValid,
                                idToken: options.idToken, command: "token", context)
    if options.minValidGiven { for warning in issued.warnings { Output.err("warning: \(warning)") } }
    let token = issued.token.exposedValue
    if options.headerJSON {
        Output.json(.object(["Authorization": .string("Bearer " + token)]))
    } else if options.execCredential {
        let status = JSONValue.object(omittingNil: ["token": .string(token),
                                                    "expirationTimestamp": issued.expiresAt.map { .string(Times.rfc3339($0)) }])
        Output.json(.object(["apiVersion": .string("client.authentication.k8s.io/v1"), "kind": .string("ExecCredential"), "status": status]))
    } else if options.json {
        Output.json(.object([
            "account": .string(issued.account), "type": .string(issued.kind), "resource": .text(options.resource), "token": .string(token),
            "expiresAt": .time(issued.expiresAt), "secondsLeft": .integer(issued.expiresAt.map { Times.secondsLeft($0, now: context.now()) }),
        ]))
    } else {
        Output.line(token)
    }
    return ExitCode.ok
}

/// What `login` and `logout` say on a remote: they act on this machine's own store.
func remoteStoreNote(_ context: CLIContext, _ verb: String) {
    guard agentSocket(context) != nil else { return }
    Output.err("note: AUTHDECK_AGENT_SOCK is set, but \(verb) acts on this machine's own store, not on the forwarded accounts;"
        + " \(verb == "login" ? "sign in" : "sign out") on the agent's machine to change those.")
}

/// git's or docker's request on the remote: passed to the agent as it came; the answer printed as
/// the local helper prints it. A failure goes to stderr (git and docker show it) with its exit status.
func remoteHelperRun(_ operation: AgentRequest.Operation, _ bytes: [UInt8], _ path: String, _ context: CLIContext,
                     git: GitCredentialRequest? = nil, docker: DockerCredentialRequest? = nil) -> Int32 {
    let prefix = docker == nil ? "authdeck git-credential" : "docker-credential-authdeck"
    let command = docker == nil ? (operation == .gitCredentialErase ? "git-credential erase" : "git-credential get") : "docker-credential get"
    let request = AgentRequest(operation: operation, environmentAccount: context.environment["AUTHDECK_ACCOUNT"], command: command,
                               host: remoteHostName(), helperInput: String(decoding: bytes, as: UTF8.self), place: remotePlace(nil, context))
    let answer: AgentAnswer
    do { answer = try askAgent(path, request) } catch {
        let failure = error as? CLIFailure ?? CLIFailure("\(error)")
        Output.err("\(prefix): \(failure.message)\(failure.hint.map { "\n\($0)" } ?? "")")
        return failure.exitCode
    }
    guard case .token(let issued) = answer, let username = issued.username else {
        if docker != nil { Output.raw(Data((dockerCredentialsNotFound + "\n").utf8)); return ExitCode.failure }
        return ExitCode.ok
    }
    if let git { return printGitCredential(git, username: username, token: issued.token, expiresAt: issued.expiresAt) }
    Output.json(.object(["ServerURL": .string(docker?.serverURL ?? ""), "Username": .string(username), "Secret": .string(issued.token.exposedValue)]))
    return ExitCode.ok
}

/// The agent's accounts (`status` and `which` on the remote).
func agentAccounts(_ path: String, account: String?, place: AccountPlace?, command: String,
                   _ context: CLIContext) throws -> [AgentAnswer.ServedAccount] {
    let request = AgentRequest(operation: .accounts, account: account, environmentAccount: context.environment["AUTHDECK_ACCOUNT"],
                               command: command, host: remoteHostName(), place: place)
    guard case .accounts(let accounts) = try askAgent(path, request) else { throw CLIFailure("agent: the answer holds no accounts") }
    return accounts
}

/// `authdeck bind ACCOUNT [--dir D]` on the remote: ACCOUNT is one the agent serves (resolved by the
/// agent, with the one rule); the rule keeps its id in this host's `bindings.json`, the one file written.
func remoteBindRun(_ query: String, directory: String?, _ path: String, _ context: CLIContext) throws -> Int32 {
    let accounts = try agentAccounts(path, account: query, place: nil, command: "bind", context)
    guard let chosen = accounts.first(where: \.isDefault), let id = chosen.id else {
        throw CLIFailure("The agent serves no account '\(query)'",
                         hint: "It serves: \(accounts.map(\.handle).joined(separator: ", ")). Name one of them.",
                         exitCode: ExitCode.usage)
    }
    let places = Places(context.app)
    let (rule, _) = try context.run { () throws(AppError) in try places.bind(AccountID(rawValue: id), directory: directory) }
    let name = chosen.alias.map { "\($0) (\(chosen.handle))" } ?? chosen.handle
    Output.err("Commands in \(rule.directory) and below now use \(name), forwarded by the agent at \(path).")
    return ExitCode.ok
}

/// `authdeck status` on the remote: the forwarded accounts, their expiry, and where they come from.
func remoteStatusRun(json: Bool, _ path: String, _ context: CLIContext) throws -> Int32 {
    let accounts = try agentAccounts(path, account: nil, place: remotePlace(nil, context), command: "status", context)
    if json {
        Output.json(.object(["agent": .string(path), "accounts": .array(accounts.map { account in
            .object(["account": .string(account.handle), "alias": .text(account.alias), "expiresAt": .time(account.expiresAt),
                     "tokenType": .text(account.tokenType), "needsSignIn": .bool(account.needsSignIn), "default": .bool(account.isDefault)])
        })]))
    } else {
        Output.line("Forwarded by the authdeck agent at \(path) (AUTHDECK_AGENT_SOCK); this machine's own store is not used.")
        for account in accounts {
            let expiry = account.expiresAt.map { "expires \(TimeText.relative($0, now: context.now()))" } ?? "no expiry"
            let state = account.needsSignIn ? "needs sign-in (on the agent's machine)" : expiry
            let name = account.alias.map { "\($0) (\(account.handle))" } ?? account.handle
            Output.line(Output.visible("\(account.isDefault ? "*" : " ") \(name)  \(state)"))
        }
    }
    return accounts.contains { $0.needsSignIn } ? ExitCode.needsSignIn : ExitCode.ok
}

/// `authdeck which [--dir D]` on the remote: the choice is the agent's, from what this directory says.
func remoteWhichRun(_ query: String?, directory: String?, json: Bool, _ path: String, _ context: CLIContext) throws -> Int32 {
    if let directory { _ = try context.run { () throws(AppError) in try Places(context.app).realDirectory(directory) } }
    let place = remotePlace(query, directory: directory, context)
    for note in place?.notes ?? [] { Output.err("note: \(note)") }
    let accounts = try agentAccounts(path, account: query, place: place, command: "which", context)
    let source = query != nil ? "argument" : context.environment["AUTHDECK_ACCOUNT"]?.isEmpty == false ? "AUTHDECK_ACCOUNT"
        : place?.gitConfig.map { AccountSource.gitConfig(file: $0.file).label }
        ?? place?.rule.map { AccountSource.rule(directory: $0.directory).label } ?? "the agent's default"
    guard let chosen = accounts.first(where: \.isDefault) else {
        let ruleNote = place?.gitConfig == nil ? place?.rule.map { " (\($0.account.rawValue), which the agent does not serve)" } : nil
        throw CLIFailure("No forwarded account is chosen by \(query.map { "'\($0)'" } ?? source)\(ruleNote ?? "")",
                         hint: "The agent serves: \(accounts.map(\.handle).joined(separator: ", ")). Name one.",
                         exitCode: ExitCode.usage)
    }
    if json {
        Output.json(.object(["account": .string(chosen.handle), "source": .string(source), "agent": .string(path)]))
    } else {
        Output.line(Output.visible("\(chosen.handle)  (\(source), forwarded by the agent at \(path))"))
    }
    return ExitCode.ok
}
