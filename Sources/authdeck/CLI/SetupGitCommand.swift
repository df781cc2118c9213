import AppCore
import FoundationEssentials
import Glibc
import QuickToken

// `authdeck setup-git [--host URL] [--global|--file F] [--uninstall]`.

extension Commands {
    static let setupGit = CommandSpec(
        name: "setup-git",
        abstract: "Make git use authdeck for the hosts its providers serve (credential.<url>.helper).",
        discussion: "For each URL (default: https://HOST for every git host of the configured providers; 'provider add --git-host'),"
            + " writes an empty credential.<url>.helper first (so helpers configured before do not answer for that host)"
            + " and then authdeck's. --uninstall removes exactly those two values."
            + " The config is the global one (~/.gitconfig) unless --file names another.",
        options: [
            .repeated("host", valueName: "url", help: "A URL to set up, e.g. https://github.com (default: every git host of the providers)."),
            .flag("global", help: "Write the global config, ~/.gitconfig (the default)."),
            .value("file", valueName: "path", help: "Write this config file instead (git config --file)."),
            .flag("uninstall", help: "Remove what setup-git wrote."),
        ],
        validate: { parsed in
            if parsed.flag("global") && parsed.value("file") != nil { return "--global and --file name two config files; give one" }
            for url in parsed.values("host") where HelperURL(url).map({ $0.scheme != "https" && $0.scheme != "http" }) ?? true {
                return "--host takes a URL such as https://github.com, got '\(url)'"
            }
            return nil
        },
        run: { parsed in
            try await setupGitRun(hosts: parsed.values("host"), file: parsed.value("file"), uninstall: parsed.flag("uninstall"), .current)
        }
    )
}

/// What git runs as the helper: the launcher `authdeck` beside this full program
/// (``ProgramLayout/launcher(fullProgram:)``) when it is there, else this executable's real path (`/proc/self/exe`).
func currentExecutablePath() -> String {
    guard let running = ThisProcess.runningExecutable() else { return CommandLine.arguments[0] }
    guard let launcher = ProgramLayout.launcher(fullProgram: running), access(launcher, X_OK) == 0 else { return running }
    return launcher
}

func setupGitRun(hosts: [String], file: String?, uninstall: Bool, _ context: CLIContext) async throws -> Int32 {
    let setup = SetupGit(context.app)
    let urls = hosts.isEmpty ? try context.run { () throws(AppError) in try setup.defaultURLs() } : hosts
    guard !urls.isEmpty else {
        throw CLIFailure("No git host to set up",
                         hint: "Name one with --host https://HOST, or give a provider its git hosts"
                             + " ('authdeck provider add NAME --git-host HOST …'; the github and gitlab presets have theirs).")
    }
    let scope: SetupGit.Scope = file.map { .file($0) } ?? .global
    let place = file ?? "the global git config"
    let executable = currentExecutablePath()
    if uninstall {
        let removed = try context.run { () throws(AppError) in try setup.uninstall(urls, scope: scope, executable: executable) }
        Output.err(removed.isEmpty ? "authdeck was not set up for \(commaList(urls)) in \(place); nothing changed."
                                   : "git no longer asks authdeck for \(commaList(removed)) (removed from \(place)).")
        return ExitCode.ok
    }
    // A host no provider serves: git would ask authdeck, get nothing, and ask for a username.
    let unserved = try context.run { () throws(AppError) in try setup.unservedURLs(urls) }
    if !unserved.isEmpty {
        throw CLIFailure("No provider serves \(commaList(unserved)): git would ask authdeck and get no answer",
                         hint: "A provider's git hosts are given when it is added: 'authdeck provider add NAME … --git-host HOST'"
                             + " ('authdeck provider show NAME' lists them); then run setup-git again.")
    }
    let added = try context.run { () throws(AppError) in try setup.install(urls, scope: scope, executable: executable) }
    let already = urls.filter { !added.contains($0) }
    if !added.isEmpty { Output.err("git now asks authdeck for the credentials of \(commaList(added)) (in \(place)).") }
    if !already.isEmpty { Output.err("Already set up: \(commaList(already)).") }
    return ExitCode.ok
}
