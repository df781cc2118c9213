import AppCore
import AppCoreLive
import FoundationEssentials
import QuickToken
import Synchronization
import TextSupport

#if canImport(Glibc)
import Glibc
#endif

// `authdeck agent`: this machine's accounts served on a Unix socket (AgentService, AgentSocket).

extension Commands {
    /// The options `agent` and `ssh` share.
    static let agentOptions: [OptionSpec] = [
        .repeated("account", valueName: "account", help: "An account to serve (default: the active account)."),
        .flag("confirm", help: "Ask on this terminal before each first use of an account by a remote program (no answer in time is no)."),
        .value("confirmTimeout", valueName: "seconds", help: "How long --confirm waits for an answer (default 30, at most 120)."),
        .flag("allowIdToken", help: "Hand out ID tokens too (token --id-token)."),
    ]

    static let agent = CommandSpec(
        name: "agent",
        abstract: "Serve access tokens of this machine's accounts on a Unix socket, for a remote shell or a container.",
        discussion: "Only access tokens (fresh, refreshed here under the account's lock), account names, expiry and token type cross the"
            + " socket: never a refresh token, client secret or DPoP key, an ID token only with --allow-id-token; a DPoP-bound account is"
            + " refused. The socket is made 0600 in a directory that must be yours and 0700, and takes callers of your own user only."
            + " Where AUTHDECK_AGENT_SOCK names it, token, git-credential, docker-credential, exec, which and status use it. Every request is"
            + " recorded in $XDG_STATE_HOME/authdeck/agent.log (--log shows it). SIGINT or SIGTERM ends the agent and removes the socket.",
        options: [
            .value("socket", valueName: "path", help: "Where to listen (a new path in a 0700 directory of yours)."),
        ] + agentOptions + [
            .value("forSeconds", valueName: "seconds", help: "End after this many seconds (default: until SIGINT or SIGTERM)."),
            .flag("log", help: "Print the agent's log (every request, allowed or not) and exit."),
        ],
        validate: { parsed in
            if parsed.flag("log") { return nil }
            guard parsed.value("socket") != nil else { return "agent needs --socket PATH (or --log)" }
            return agentValidate(parsed)
        },
        run: { parsed in
            parsed.flag("log") ? try agentLogRun(.current) : try await agentRun(parsed, .current)
        }
    )
}

/// `--confirm-timeout` (at most ``AgentConnection/maximumConfirmTimeout``) and `agent`'s `--for-seconds` are seconds.
func agentValidate(_ parsed: ParsedCommand) -> String? {
    for (name, flag) in [("forSeconds", "--for-seconds"), ("confirmTimeout", "--confirm-timeout")] {
        if let text = parsed.value(name), durationSeconds(text) == nil { return "\(flag) must be a number of seconds, got '\(text)'" }
    }
    let most = AgentConnection.maximumConfirmTimeout
    if let text = parsed.value("confirmTimeout"), let seconds = durationSeconds(text), seconds > Double(most) {
        return "--confirm-timeout must be at most \(most) seconds (how long a remote waits for the answer), got '\(text)'"
    }
    return nil
}

/// The agent until SIGINT, SIGTERM or `--for-seconds`.
func agentRun(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
    let path = parsed.value("socket") ?? ""
    let agent = try startAgent(at: path, parsed, context)
    let seconds = parsed.value("forSeconds").flatMap(durationSeconds)
    _ = await Interrupt.cancellable {
        try? await Task.sleep(for: .seconds(seconds ?? 315_360_000))
    }
    agent.stop()
    return ExitCode.ok
}

/// A listening agent: ``stop()`` removes its socket.
struct RunningAgent {
    let fd: Int32
    let path: String

    func stop() {
        unlink(path)
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }
}

/// Listens at `path` and serves the accounts `parsed` names (`--account`, `--confirm`,
/// `--confirm-timeout`, `--allow-id-token`: `agent`'s and `ssh`'s options).
func startAgent(at path: String, _ parsed: ParsedCommand, _ context: CLIContext) throws -> RunningAgent {
    let env = context.app
    let ids = try context.run { () throws(AppError) in
        try AgentService.servedAccounts(parsed.values("account"), environmentAccount: context.environment["AUTHDECK_ACCOUNT"], env: env)
    }
    let fd = try context.run { () throws(AppError) in try AgentSocket.listen(at: path) }
    let log = AgentLog(stateDirectory: XDGPaths(environment: context.environment).stateDirectory)
    let desk = ConfirmDesk(timeout: parsed.value("confirmTimeout").flatMap(durationSeconds) ?? 30)
    let service = AgentService(env: env, policy: .init(accounts: ids, allowIDToken: parsed.flag("allowIdToken"), confirm: parsed.flag("confirm")),
                               ask: { await desk.ask($0) },
                               record: { entry in if let problem = log.append(entry) { Output.err("warning: \(problem)") } })
    AgentSocket.serve(fd, refused: { peer in
        _ = log.append(.init(time: Date(), peer: peer, host: "", command: "", account: nil, outcome: "refused",
                             reason: "a process of another user (uid \(peer.uid))"))
    }, answer: { bytes, peer in
        let request: AgentRequest
        do throws(AgentAnswer.Failure) { request = try AgentRequest.parse(bytes) } catch {
            _ = log.append(.init(time: Date(), peer: peer, host: "", command: "", account: nil, outcome: error.code.rawValue, reason: error.title))
            return Array(AgentAnswer.failure(error).json.serialized())
        }
        return Array(await service.answer(request, peer: peer).json.serialized())
    })
    Output.err("authdeck agent: serving \(ids.count) account\(ids.count == 1 ? "" : "s") on \(path)")
    return RunningAgent(fd: fd, path: path)
}

/// `authdeck agent --log`.
func agentLogRun(_ context: CLIContext) throws -> Int32 {
    let log = AgentLog(stateDirectory: XDGPaths(environment: context.environment).stateDirectory)
    let entries = try context.run { () throws(AppError) in try log.entries() }
    if entries.isEmpty { Output.err("No request recorded in \(log.path).") }
    for entry in entries {
        let words = [Times.rfc3339(entry.time), "pid \(entry.peer.pid)", entry.host.isEmpty ? "-" : entry.host, entry.account ?? "-",
                     entry.outcome, entry.command.isEmpty ? "-" : entry.command] + (entry.resource.map { ["resource \($0)"] } ?? [])
            + (entry.reason.map { [$0] } ?? [])
        Output.line(words.map { Sanitizer.visible($0) }.joined(separator: "  "))
    }
    return ExitCode.ok
}
