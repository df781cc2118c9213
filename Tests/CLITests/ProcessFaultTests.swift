// The command line when its process starts in odd conditions: stdout closed or full,
// and an empty argument vector. Each runs the real binary.
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The one line `Output` prints when the result cannot be written.
private let cannotWrite = "authdeck: cannot write the result to standard output"

/// Every regular file under `directory` whose bytes contain `needle`.
private func filesContaining(_ needle: String, under directory: URL) -> [String] {
    guard let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
    var hits: [String] = []
    for case let url as URL in walker {
        guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true,
              let data = try? Data(contentsOf: url) else { continue }
        if data.range(of: Data(needle.utf8)) != nil { hits.append(url.path) }
    }
    return hits
}

@Suite("Closed or full stdout: one line on stderr and exit 1, never a trap", .serialized)
struct ClosedOrFullStdoutTests {
    /// Commands that print a result without any account (text `status` and `provider list` print
    /// their "nothing yet" notes on stderr, so they have nothing to write to stdout).
    static let commands: [[String]] = [["status", "--json"], ["--version"], ["--help"], ["status", "--help"], ["completion", "bash"], ["provider", "list", "--json"]]

    @Test("stdout closed (>&-) and full (>/dev/full) for commands without an account", arguments: commands, [true, false])
    func noAccount(_ arguments: [String], closed: Bool) async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let result = try await home.run(arguments, stdout: closed ? .closed : .file("/dev/full"))
        #expect(result.exitCode == 1, "\(arguments) \(result)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix(cannotWrite), "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains(closed ? "closed (EBADF)" : "(ENOSPC)"), "\(result.stderr)")
        #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("crashed"))
    }

    @Test("token with stdout closed or full: exit 1, one line, and the token lands in no file (fd 1 is kept from the store)")
    func tokenClosedAndFull() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let token = try await home.run(["token"])
        try #require(token.exitCode == 0, "\(token)")
        let value = token.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(value.count > 10)
        for target in [StandardOutputTarget.closed, .file("/dev/full")] {
            // --min-valid far beyond the lifetime: a refresh (or a warning, where that is clamped) before the write.
            for arguments in [["token"], ["token", "--json"], ["token", "--min-valid", "86400"]] {
                let result = try await home.run(arguments, stdout: target)
                #expect(result.exitCode == 1, "\(arguments) \(target): \(result)")
                #expect(result.stderr.split(separator: "\n").filter { $0.hasPrefix(cannotWrite) }.count == 1, "\(result.stderr)")
                #expect(!result.stderr.contains(value))
            }
        }
        let current = try await home.run(["token"])
        let latest = current.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(filesContaining(value, under: home.root).isEmpty)
        #expect(filesContaining(latest, under: home.root).isEmpty)
        let (status, _) = try await home.statusJSON()
        #expect(status.exitCode == 0, "the store still reads: \(status)")
    }
}

@Suite("An empty argument vector (argc 0)", .serialized)
struct EmptyArgumentVectorTests {
    /// A launcher that starts its first argument with `execve(path, { NULL }, environ)`, compiled
    /// with the toolchain's clang into `directory`. (Linux ≥ 5.18 hands the program one empty
    /// string instead of no argument at all. A preload that empties `CommandLine.arguments`
    /// through the stdlib's override hook cannot reach the shipped binary, whose runtime is linked
    /// in statically and exports no such symbol.)
    static func emptyArgvLauncher(in directory: URL) throws -> String {
        let source = directory.appendingPathComponent("argv0.c")
        let launcher = directory.appendingPathComponent("argv0")
        try Data("""
        #include <stddef.h>
        #include <unistd.h>
        extern char **environ;
        int main(int argc, char **argv) {
            if (argc < 2) return 126;
            char *none[] = { NULL };
            execve(argv[1], none, environ);
            return 127;
        }
        """.utf8).write(to: source)
        let r = try TestSupport.TmuxSession.spawnAndWait(["clang", "-o", launcher.path, source.path],
                                                         environment: ProcessInfo.processInfo.environment)
        try #require(r.status == 0, "clang (part of the Swift toolchain) could not build the launcher: \(r.output)")
        return launcher.path
    }

    @Test("An empty argv from execve: no crash; no terminal → the clear message, exit 1")
    func emptyArguments() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        // execve with argv = { NULL }: the binary sees no arguments, so the accounts screen, refused without a terminal.
        let viaExec = try await home.start([], argv: []).wait()
        #expect(viaExec.exitCode == 1, "\(viaExec)")
        #expect(viaExec.stderr.contains("cannot start the accounts screen"), "\(viaExec.stderr)")
        #expect(!viaExec.stderr.contains("Fatal error"))
    }

    @Test("An empty argv on a terminal: the accounts screen opens and q quits with 0")
    func emptyArgumentsOnATerminal() async throws {
        try #require(TestSupport.TmuxSession.tmuxPath != nil, "tmux is required (scripts/apt-packages.txt)")
        let home = try CLIHome()
        defer { home.remove() }
        let launcher = try Self.emptyArgvLauncher(in: home.root)
        var environment = home.environment
        environment["AUTHDECK_STORE"] = "memory"
        let command = "env TERM=tmux-256color '\(launcher)' '\(authdeckBinary)'; echo TUI-EXIT-STATUS=$?; exec sleep 600"
        let t = try TestSupport.TmuxSession(width: 100, height: 30, command: command, environment: environment)
        defer { t.kill() }
        try await t.waitFor("first-run screen", history: 50) { $0.contains("No accounts. Press l to sign in.") || $0.contains("TUI-EXIT-STATUS=") }
        try t.sendKeys("q")
        let after = try await t.waitFor("exit status", history: 50) { $0.contains("TUI-EXIT-STATUS=") }
        #expect(after.contains("TUI-EXIT-STATUS=0"), "\(after)")
    }
}
