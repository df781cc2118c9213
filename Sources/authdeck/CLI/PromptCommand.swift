import FoundationEssentials
import QuickToken
#if canImport(Glibc)
import Glibc
#endif

// `authdeck prompt [--format FORMAT]`: the shell prompt's segment (PromptSegment). The launcher
// answers it from the kept status; here it is the status computed as `status --json` does (and
// kept for the launcher's next answer), printed by the same PromptSegment.

extension Commands {
    static let prompt = CommandSpec(
        name: "prompt",
        abstract: "Print one line for a shell prompt: the account that applies here, why, its state and time left.",
        discussion: "Made from the files and the kept status (never the network; no secret is read); the launcher answers it alone."
            + " Prints nothing and exits 0 when no account applies, and never an error (a prompt must not). FORMAT placeholders:"
            + " {account} (alias, else provider/username), {handle}, {source} (env, git, dir, active, only), {state} (valid,"
            + " expiring soon, expired, needs sign-in, ...), {left} (45s, 12m, 1h05m, 3d). Default: '\(PromptSegment.defaultFormat)'.",
        options: [.value("format", valueName: "format", help: "The line, with {account} {handle} {source} {state} {left}.")],
        run: { try await promptRun(format: $0.value("format") ?? PromptSegment.defaultFormat, .current) }
    )
}

/// Prints the prompt line (or nothing); always 0, nothing on stderr (it goes to /dev/null first).
func promptRun(format: String, _ context: CLIContext) async throws -> Int32 {
    let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
    if null >= 0 {
        dup2(null, 2)
        close(null)
    }
    _ = try? await statusRun(StatusOptions(prompt: format), context)
    return ExitCode.ok
}
