import AppCore
import AppCoreLive
import FoundationEssentials
import QuickToken
import TextSupport

#if canImport(Glibc)
import Glibc
#endif

// `authdeck ssh`: the user's ssh with an agent for the session's length, its socket forwarded.

extension Commands {
    static let ssh = CommandSpec(
        name: "ssh",
        abstract: "Run ssh with this machine's accounts forwarded: the remote's authdeck asks an agent here for access tokens.",
        discussion: "An agent (see 'authdeck agent') listens under $XDG_RUNTIME_DIR/authdeck for the session's length; ssh forwards it"
            + " (-R, StreamLocalBindUnlink=yes, ExitOnForwardFailure=yes) to a new socket in the remote's /tmp, made 0600 by sshd, and the"
            + " remote command (a login shell without one) runs with AUTHDECK_AGENT_SOCK naming it and removes it when it ends. The remote's"
            + " sshd must allow stream-local forwarding (AllowStreamLocalForwarding, Debian's default). ssh's exit status is authdeck's.",
        options: agentOptions,
        trailing: PositionalSpec(name: "ssh-arguments", optional: false, help: "ssh's options, the destination and the remote command."),
        validate: agentValidate,
        run: { try await sshRun($0, .current) }
    )
}

/// The options of ssh(1) that take a value (OpenSSH 9): the destination is the first word that is not one of them or its value.
private let sshValueOptions = Set("BbcDEeFIiJLlmOoPpQRSWw".utf8)

/// `arguments` split into ssh's options, the destination and the remote command's words.
func splitSSHArguments(_ arguments: [String]) -> (options: [String], destination: String, command: [String])? {
    var index = 0
    while index < arguments.count {
        let word = arguments[index]
        if word == "--" { index += 1; break }
        guard word.utf8.first == UInt8(ascii: "-"), word.utf8.count > 1 else { break }
        // `-p22` carries its value; `-p 22` takes the next word; `-vA` are flags.
        let letters = Array(word.utf8.dropFirst())
        if let valued = letters.firstIndex(where: { sshValueOptions.contains($0) }), valued == letters.count - 1 { index += 1 }
        index += 1
    }
    guard index < arguments.count else { return nil }
    return (Array(arguments[..<index]), arguments[index], Array(arguments[(index + 1)...]))
}

/// The remote's shell words: `AUTHDECK_AGENT_SOCK` set and exported, the socket removed whenever
/// the shell exits (`trap … EXIT`: the command's end, its own `exit N`, a hang-up — a session cut
/// off, sshd closes its terminal — or SIGTERM, then 129/143), and on a line of its own the command
/// (a login shell without one), so that its `&`, a trailing `# comment` or `exit N` are its own.
func remoteCommand(socket: String, command: [String]) -> String {
    let body = command.isEmpty ? "\"${SHELL:-/bin/sh}\" -l" : command.joined(separator: " ")
    return "AUTHDECK_AGENT_SOCK=\(socket); export AUTHDECK_AGENT_SOCK; trap 'rm -f \(socket)' EXIT; trap 'exit 129' HUP;"
        + " trap 'exit 143' TERM\n\(body)\n"
}

func sshRun(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
    guard let split = splitSSHArguments(parsed.trailing) else {
        throw CLIFailure.usage("ssh needs a destination after its options: authdeck ssh -- [SSH OPTIONS] DESTINATION [COMMAND…]")
    }
    let paths = XDGPaths(environment: context.environment)
    let random = context.app.crypto.randomBytes(12).map { $0.hex() }.joined()
    // Under authdeck's runtime directory when the user's exists (XDG: $XDG_RUNTIME_DIR, 0700), else a new directory of /tmp.
    var info = stat()
    let runtime = paths.runtimeDirectory.flatMap { stat(PathText.directory($0), &info) == 0 ? $0 : nil }
    if let runtime { _ = mkdir(runtime, 0o700) }
    let directory = runtime.map { "\($0)/agent-\(random)" } ?? "/tmp/authdeck-agent-\(random)"
    let local = directory + "/agent.sock"
    let remote = "/tmp/authdeck-agent-\(random).sock"
    let agent = try startAgent(at: local, parsed, context)
    defer {
        agent.stop()
        rmdir(directory)
    }
    let command = ["ssh", "-o", "ExitOnForwardFailure=yes", "-o", "StreamLocalBindUnlink=yes", "-R", "\(remote):\(local)"]
        + (split.command.isEmpty ? ["-t"] : []) + split.options + [split.destination, remoteCommand(socket: remote, command: split.command)]
    var environment = context.environment
    environment["AUTHDECK_AGENT_SOCK"] = nil
    // SIGTERM, SIGHUP or SIGINT sent to us end ssh (passed on: ssh quits on each), then the agent and its socket
    // (the deferred stop); the terminal's own Ctrl-C reaches ssh with us (same process group) and is not sent twice.
    let relay = try SignalRelay.install()
    let child: ChildProcess
    do {
        child = try ChildProcess.spawn(command, environment: environment, keeping: [0, 1, 2])
    } catch let failure as ChildProcess.SpawnFailure {
        throw CLIFailure(failure.message, exitCode: failure.exitCode)
    }
    var forceAt: Date?, forced = false
    while true {
        for signal in relay.wait(until: forceAt) {
            child.signal(signal)
            if forceAt == nil, !forced, [SIGTERM, SIGHUP, SIGINT].contains(signal) { forceAt = context.now().addingTimeInterval(5) }
        }
        if let status = child.reap() { return status }
        // An ssh that does not quit when told (blocked in a prompt) is ended.
        if let due = forceAt, context.now() >= due {
            child.signal(SIGKILL)
            (forceAt, forced) = (nil, true)
        }
    }
}
