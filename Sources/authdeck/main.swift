import CBuildInfo
import FoundationEssentials
import Glibc
import QuickToken

let authdeckVersion = ProgramLayout.version

/// `authdeck 0.1.0`, with `(commit …)` when scripts/package or scripts/install stamped the binary.
func versionLine() -> String {
    let commit = String(cString: authdeck_build_commit_text())
    return commit.isEmpty || commit.hasPrefix("@@") ? "authdeck \(authdeckVersion)" : "authdeck \(authdeckVersion) (commit \(commit))"
}

/// Runs the command line and returns the exit code.
func runMain(_ arguments: [String]) async -> Int32 {
    let root = Commands.root { parsed in
        if parsed.flag("version") {
            Output.line(versionLine())
            return ExitCode.ok
        }
        return await runTUI(parsed)
    }
    switch ArgumentParser.parse(arguments, root: root) {
    case .failure(.help(let text)):
        Output.raw(Data(text.utf8))
        return ExitCode.ok
    case .failure(.usage(let error)):
        Output.err(error.description)
        return ExitCode.usage
    case .success(let (command, parsed)):
        do {
            return try await command.run!(parsed)
        } catch let failure as CLIFailure {
            var text = "error: \(failure.message)"
            if let hint = failure.hint { text += "\n\(hint)" }
            if failure.exitCode == ExitCode.usage { text += "\n" + ArgumentParser.usageLine(command, path: parsed.path) }
            Output.err(text)
            return failure.exitCode
        } catch {
            Output.err("error: \(error)")
            return ExitCode.failure
        }
    }
}

reserveStandardDescriptors()
// Started by the launcher (execv of libexec/authdeck/authdeck-full), it is still `authdeck` to
// ps, pgrep and top: the process name the kernel took from the file name, set back.
ThisProcess.nameProcess(ProgramLayout.launcherName)
// Run as `docker-credential-authdeck OPERATION` (docker's helper naming), it is `docker-credential OPERATION`.
let invokedAs = CommandLine.arguments.first.map { $0.split(separator: "/").last.map(String.init) ?? $0 }
let arguments = (invokedAs == "docker-credential-authdeck" ? ["docker-credential"] : []) + Array(CommandLine.arguments.dropFirst())
// A subcommand (the line-mode CLI) runs on the main thread through CommandLineExecutor; the TUI
// (no subcommand) keeps the default executors, which its main-actor loop relies on.
if let first = arguments.first, Commands.root(run: { _ in ExitCode.ok }).subcommands.contains(where: { $0.name == first }) {
    exit(CommandLineExecutor.runToCompletion { await runMain(arguments) })
}
exit(await runMain(arguments))
