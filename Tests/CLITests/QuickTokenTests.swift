// The launcher's quick answer to `authdeck token` against the full program's, on real homes
// signed in to the bundled provider. Which one answered is seen without any switch in the
// binary: a copy of the launcher alone in a directory (no `authdeck-full` beside it) answers only
// what it answers itself, and says it cannot start the full program for everything else.
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

@Suite("CLI: the launcher answers a plain token itself, exactly as the full program would", .serialized)
struct QuickTokenTests {
    /// The full program beside the launcher (`.build/release/authdeck-full`).
    static let fullProgram = URL(fileURLWithPath: authdeckBinary).deletingLastPathComponent().appendingPathComponent("authdeck-full").path

    /// A copy of the launcher in a directory of its own: nothing to hand over to.
    final class LoneLauncher {
        let directory: URL
        var path: String { directory.appendingPathComponent("authdeck").path }

        init(directoryName: String = "authdeck-lone-\(UUID().uuidString)") throws {
            if let problem = ShippedBinary.problem { throw ShippedBinaryMissing(problem: problem) }
            directory = FileManager.default.temporaryDirectory.appendingPathComponent(directoryName)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: authdeckBinary, toPath: path)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }
    }

    enum Answer: Equatable, CustomStringConvertible {
        /// The launcher printed this token and exited 0.
        case quick(String)
        /// The launcher wanted the full program.
        case handedOver
        case other(String)

        var description: String {
            switch self {
            case .quick(let token): "quick (\(token.utf8.count) bytes)"
            case .handedOver: "handed over"
            case .other(let text): text
            }
        }
    }

    static func lone(_ home: CLIHome, _ launcher: LoneLauncher, _ arguments: [String] = ["token"], extra: [String: String] = [:]) async throws -> Answer {
        let result = try await RunningCommand(arguments, environment: home.environment.merging(extra, uniquingKeysWith: { $1 }),
                                              executable: launcher.path).wait()
        if result.exitCode == 0, result.stderr.isEmpty { return .quick(result.stdout) }
        if result.exitCode == 1, result.stderr.contains("cannot start the full program"), result.stdout.isEmpty { return .handedOver }
        return .other("\(result)")
    }

    static func full(_ home: CLIHome, _ arguments: [String] = ["token"], extra: [String: String] = [:]) async throws -> RunResult {
        try await RunningCommand(arguments, environment: home.environment.merging(extra, uniquingKeysWith: { $1 }), executable: fullProgram).wait()
    }

    static func signedIn(_ users: [String] = ["alice"], provider idp: LocalIdentityProvider? = nil) async throws -> CLIHome {
        let idp = if let idp { idp } else { try await CLIProvider.shared.provider() }
        let home = try CLIHome(provider: idp)
        try await home.addLocalProvider(idp)
        for user in users { try await home.login(user: user) }
        return home
    }

    @Test("A fresh token of the active account: the launcher alone prints the full program's token (and its ExecCredential), nothing on stderr")
    func freshTokenIsQuick() async throws {
        let home = try await Self.signedIn()
        defer { home.remove() }
        let launcher = try LoneLauncher()
        let full = try await Self.full(home)
        try #require(full.exitCode == 0, "\(full)")
        #expect(try await Self.lone(home, launcher) == .quick(full.stdout))
        // kubectl's ExecCredential, byte for byte.
        let credential = try await Self.full(home, ["token", "--exec-credential"])
        try #require(credential.exitCode == 0 && credential.stdout.contains("expirationTimestamp"), "\(credential)")
        #expect(try await Self.lone(home, launcher, ["token", "--exec-credential"]) == .quick(credential.stdout))
        // And through the real layout (the launcher beside the full program) the same line.
        let shipped = try await home.run(["token"])
        let same = shipped.stdout.utf8.elementsEqual(full.stdout.utf8)
        #expect(shipped.exitCode == 0 && same && shipped.stderr.isEmpty, "\(shipped)")
    }

    @Test("doctor says whether a plain token here is the launcher's, and if not why (never the token)")
    func doctorTellsWhoAnswers() async throws {
        let home = try await Self.signedIn()
        defer { home.remove() }
        let quick = try await home.run(["doctor"])
        #expect(quick.stdout.contains("token here: answered by the launcher alone"), "\(quick)")
        let token = try await Self.full(home)
        let leaks = quick.stdout.contains(token.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(!leaks, "doctor printed the token")
        let providers = try home.read(.config, "providers.json")
        try home.write(.config, "providers.json", providers + " ")
        let edited = try await home.run(["doctor", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(edited.stdout.utf8)) as? [String: Any]
        let quickToken = try #require(object?["quickToken"] as? [String: Any], "\(edited)")
        #expect(quickToken["answeredByLauncher"] as? Bool == false)
        #expect((quickToken["reason"] as? String)?.hasPrefix("providers.json is missing, or not as authdeck last wrote it") == true)
        // A variable's name is anybody's text: the reason that names it reaches the terminal made visible.
        let odd = try await home.run(["doctor"], extra: ["AUTHDECK_\u{1B}[2J": "1"])
        #expect(odd.stdout.contains("token here: the full program answers (AUTHDECK_") && !odd.stdout.contains("\u{1B}"), "\(odd)")
    }

    @Test("Anything but a plain token of the default account goes to the full program: options, an account, AUTHDECK_ACCOUNT, another store")
    func otherCallsAreHandedOver() async throws {
        let home = try await Self.signedIn()
        defer { home.remove() }
        let launcher = try LoneLauncher()
        for arguments in [["token", "alice"], ["token", "--json"], ["token", "--min-valid", "30"], ["token", "--exec-credential", "--json"],
                          ["token", "--id-token"], ["status"], ["--version"], []] {
            #expect(try await Self.lone(home, launcher, arguments) == .handedOver, "\(arguments)")
        }
        for extra in [["AUTHDECK_ACCOUNT": "alice"], ["AUTHDECK_STORE": "secret-service"], ["AUTHDECK_STORE": "plaintext"],
                      ["AUTHDECK_VAULT_CACHE_SECONDS": "0"], ["AUTHDECK_SOMETHING_NEW": "1"], ["GIT_CONFIG_COUNT": "0"]] {
            #expect(try await Self.lone(home, launcher, extra: extra) == .handedOver, "\(extra)")
        }
        // git's transport and prompt settings (set system-wide on some machines) change nothing here.
        let full = try await Self.full(home)
        let git = ["GIT_SSL_CAINFO": "/etc/ssl/certs/ca-certificates.crt", "GIT_TERMINAL_PROMPT": "0", "GIT_SSH_COMMAND": "ssh"]
        #expect(try await Self.lone(home, launcher, extra: git) == .quick(full.stdout))
    }

    @Test("Files not exactly as authdeck wrote them go to the full program: a hand edit, a damaged file, a directory rule, git config naming authdeck")
    func untrustedFilesAreHandedOver() async throws {
        let home = try await Self.signedIn()
        defer { home.remove() }
        let launcher = try LoneLauncher()
        let before = try await Self.full(home)
        try #require(try await Self.lone(home, launcher) == .quick(before.stdout))

        // The same JSON, one space more: not what authdeck wrote.
        let providers = try home.read(.config, "providers.json")
        try home.write(.config, "providers.json", providers + " ")
        #expect(try await Self.lone(home, launcher) == .handedOver)
        let edited = try await Self.full(home)
        #expect(edited.exitCode == 0 && !edited.stdout.isEmpty, "\(edited)")
        try home.write(.config, "providers.json", providers)
        #expect(try await Self.lone(home, launcher) == .quick(edited.stdout), "the bytes authdeck wrote, back in place: its mark holds again")

        // A damaged accounts.json: the full program says so (exit 5), the launcher never answers.
        let accounts = try home.read(.state, "accounts.json")
        try home.write(.state, "accounts.json", String(accounts.prefix(40)))
        #expect(try await Self.lone(home, launcher) == .handedOver)
        #expect(try await Self.full(home).exitCode == 5)
    }

    @Test("What the full program refuses stays refused: a vault or directory others may read, a symlinked data directory")
    func unsafeFilesAreTheFullProgramsToRefuse() async throws {
        let home = try await Self.signedIn()
        defer { home.remove() }
        let launcher = try LoneLauncher()
        let vault = home.path(.data, "secrets.vault"), data = home.root.appendingPathComponent("data/authdeck").path
        for (path, mode) in [(vault, mode_t(0o644)), (data, mode_t(0o755)), (home.path(.state, "accounts.json"), mode_t(0o666))] {
            chmod(path, mode)
            #expect(try await Self.lone(home, launcher) == .handedOver, "\(path) \(String(mode, radix: 8))")
            let refused = try await Self.full(home)
            #expect(refused.exitCode == 1 && refused.stderr.contains("lets group or others"), "\(refused)")
            chmod(path, path == data ? 0o700 : 0o600)
        }
        let moved = home.root.appendingPathComponent("data/real").path
        try FileManager.default.moveItem(atPath: data, toPath: moved)
        try FileManager.default.createSymbolicLink(atPath: data, withDestinationPath: "real")
        #expect(try await Self.lone(home, launcher) == .handedOver)
        #expect(try await Self.full(home).exitCode == 1)
    }

    @Test("A FIFO in a file's place: token neither hangs nor answers, through the launcher or not; it names the file")
    func fifoIsRefusedWithoutHanging() async throws {
        let home = try await Self.signedIn()
        defer { home.remove() }
        for name in ["accounts.json", "active.json"] {
            let path = home.path(.state, name)
            try FileManager.default.moveItem(atPath: path, toPath: path + ".kept")
            #expect(mkfifo(path, 0o600) == 0)
            let result = try await home.run(["token"], timeout: 20)
            #expect(result.exitCode != 0 && result.stdout.isEmpty && result.stderr.contains(name), "\(name): \(result)")
            unlink(path)
            try FileManager.default.moveItem(atPath: path + ".kept", toPath: path)
        }
    }

    @Test("Handed over, the process keeps its pid and is still called authdeck (ps, pgrep)")
    func processNameAfterTheHandOver() async throws {
        let home = try await Self.signedIn()
        defer { home.remove() }
        let running = try home.start(["exec", "--", "sleep", "3"])
        var handedOver = false
        for _ in 0..<50 where !handedOver {
            try await Task.sleep(for: .milliseconds(50))
            handedOver = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(running.pid)/exe"))?.hasSuffix("/authdeck-full") == true
        }
        #expect(handedOver)
        // The full program names itself first thing; the exec'd sleep keeps it waiting for 3 s.
        try await Task.sleep(for: .milliseconds(500))
        let name = (try? String(contentsOfFile: "/proc/\(running.pid)/comm", encoding: .utf8)) ?? ""
        #expect(name == "authdeck\n")
        let result = await running.wait()
        #expect(result.exitCode == 0, "\(result)")
    }

    @Test("A directory rule or a git config that could name the account goes to the full program")
    func placeRulesAreHandedOver() async throws {
        let home = try await Self.signedIn()
        defer { home.remove() }
        let launcher = try LoneLauncher()
        try "[authdeck]\n\taccount = local/alice\n".write(to: home.root.appendingPathComponent(".gitconfig"), atomically: true, encoding: .utf8)
        #expect(try await Self.lone(home, launcher) == .handedOver)
        try FileManager.default.removeItem(at: home.root.appendingPathComponent(".gitconfig"))
        let full = try await Self.full(home)
        #expect(try await Self.lone(home, launcher) == .quick(full.stdout))

        let bound = try await home.run(["bind", "local/alice", "--dir", home.root.path])
        try #require(bound.exitCode == 0, "\(bound)")
        #expect(try await Self.lone(home, launcher) == .handedOver)
    }

    @Test("Switch, refresh, lock and logout: the launcher follows what the full program wrote, and hands over what it cannot answer")
    func followsTheFullProgram() async throws {
        let home = try await Self.signedIn(["alice", "bob"])
        defer { home.remove() }
        let launcher = try LoneLauncher()
        // The first sign-in stays active.
        let alice = try await Self.full(home)
        #expect(try await Self.lone(home, launcher) == .quick(alice.stdout))
        let switched = try await home.run(["switch", "local/bob"])
        try #require(switched.exitCode == 0, "\(switched)")
        let bob = try await Self.full(home)
        let sameToken = alice.stdout.utf8.elementsEqual(bob.stdout.utf8)
        #expect(!sameToken, "the two accounts have their own tokens")
        #expect(try await Self.lone(home, launcher) == .quick(bob.stdout))

        let refreshed = try await home.run(["refresh"])
        try #require(refreshed.exitCode == 0, "\(refreshed)")
        let renewed = try await Self.full(home)
        let unchanged = renewed.stdout.utf8.elementsEqual(bob.stdout.utf8)
        #expect(!unchanged, "the refresh gave a new access token")
        #expect(try await Self.lone(home, launcher) == .quick(renewed.stdout))

        // No cached key: the full program asks for the passphrase (here from its file).
        _ = try await home.run(["lock"])
        #expect(try await Self.lone(home, launcher) == .handedOver)
        let unlocked = try await home.run(["token"])
        let sameAfterUnlock = unlocked.stdout.utf8.elementsEqual(renewed.stdout.utf8)
        #expect(sameAfterUnlock, "\(unlocked)")
        #expect(try await Self.lone(home, launcher) == .quick(renewed.stdout), "the full program cached the key again")

        let out = try await home.run(["logout", "local/bob", "--local-only"])
        try #require(out.exitCode == 0, "\(out)")
        #expect(try await Self.lone(home, launcher) == .handedOver, "no active account: the full program says what to do")
    }

    @Test("A token with a minute or less left is the full program's (a 30 s token: its half-lifetime rule); after a refresh the new one is quick")
    func shortLivedTokenIsTheFullProgramsAnswer() async throws {
        let idp = try await LocalIdentityProvider.start(signInAccessTokenLifetime: 30)
        defer { Task { await idp.stop() } }
        let home = try await Self.signedIn(provider: idp)
        defer { home.remove() }
        let launcher = try LoneLauncher()
        #expect(try await Self.lone(home, launcher) == .handedOver)
        let stored = try await home.run(["token"])
        try #require(stored.exitCode == 0 && stored.stderr.isEmpty, "\(stored)")
        let refreshed = try await home.run(["refresh"])
        try #require(refreshed.exitCode == 0, "\(refreshed)")
        let renewed = try await Self.full(home)
        #expect(try await Self.lone(home, launcher) == .quick(renewed.stdout))
    }

    @Test("Closed stdout: the launcher writes nothing and the full program's answer stands (exit and message as before)")
    func closedStandardOutput() async throws {
        let home = try await Self.signedIn()
        defer { home.remove() }
        let shipped = try await home.run(["token"], stdout: .closed)
        let full = try await RunningCommand(["token"], environment: home.environment, stdout: .closed, executable: Self.fullProgram).wait()
        #expect(shipped.exitCode == full.exitCode && shipped.stderr == full.stderr, "launcher: \(shipped); full: \(full)")
    }

    @Test("Without the full program, every other command says what is missing and what to do, exit 1")
    func missingFullProgram() async throws {
        let home = try CLIHome()
        defer { home.remove() }
        let launcher = try LoneLauncher()
        let result = try await RunningCommand(["status"], environment: home.environment, executable: launcher.path).wait()
        #expect(result.exitCode == 1)
        #expect(result.stderr.contains("libexec/authdeck/authdeck-full") && result.stderr.contains("reinstall authdeck"), "\(result)")
        // A directory name with an escape sequence reaches the terminal made visible.
        let odd = try LoneLauncher(directoryName: "authdeck-lone-\u{1B}[2J-\(UUID().uuidString)")
        let escaped = try await RunningCommand(["status"], environment: home.environment, executable: odd.path).wait()
        #expect(escaped.exitCode == 1 && !escaped.stderr.contains("\u{1B}") && escaped.stderr.contains("cannot start the full program"),
                "\(escaped)")
    }
}
