// The real `authdeck` accounts screen under tmux when the terminal misbehaves: quit
// signals end it within a second with the terminal restored, and a terminal type it cannot use
// gets a clear refusal and a non-zero exit instead of a crash (`free(): double free`) or a blank
// screen.
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Single-quotes `s` for /bin/sh.
private func shellQuoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }

/// Whether a compiled terminfo entry named `term` exists on this machine (or in `extraDirectory`).
private func terminfoEntryExists(_ term: String, extraDirectory: String? = nil) -> Bool {
    guard let first = term.first else { return false }
    let home = ProcessInfo.processInfo.environment["HOME"].map { "\($0)/.terminfo" }
    let dirs = [extraDirectory, home, "/etc/terminfo", "/lib/terminfo", "/usr/share/terminfo", "/usr/lib/terminfo"].compactMap { $0 }
    return dirs.contains { FileManager.default.fileExists(atPath: "\($0)/\(first)/\(term)") }
}

@Suite("The accounts screen when the terminal misbehaves (real binary under tmux)", .serialized)
struct TerminalFaultTests {
    /// Starts `authdeck` (no subcommand) in a tmux pane with `TERM=term`, an empty memory store,
    /// then a shell line printing its exit status.
    func startTUI(term: String, extra: [String: String] = [:]) throws -> (TestSupport.TmuxSession, CLIHome) {
        try #require(TestSupport.TmuxSession.tmuxPath != nil, "tmux is required (scripts/apt-packages.txt)")
        let home = try CLIHome()
        var environment = home.environment
        environment["AUTHDECK_STORE"] = "memory"
        environment.removeValue(forKey: "NO_COLOR")
        environment.merge(extra, uniquingKeysWith: { $1 })
        let command = "env TERM=\(shellQuoted(term)) \(shellQuoted(authdeckBinary)); echo TUI-EXIT-STATUS=$?; exec sleep 600"
        let session = try TestSupport.TmuxSession(width: 100, height: 30, command: command, environment: environment)
        return (session, home)
    }

    /// The PID of the program under test: the only child of the pane's shell.
    func programPID(_ t: TestSupport.TmuxSession) throws -> pid_t? {
        let shell = try t.display("#{pane_pid}")
        let children = (try? String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)) ?? ""
        return children.split(separator: " ").first.flatMap { pid_t($0) }
    }

    /// Waits (10 ms steps) until `pid` is gone; returns how long that took.
    func waitUntilGone(_ pid: pid_t, from start: Date, limit: Double = 10) -> Double {
        while kill(pid, 0) == 0 && Date().timeIntervalSince(start) < limit { usleep(10_000) }
        return Date().timeIntervalSince(start)
    }

    enum Delivery: String, CaseIterable, CustomTestStringConvertible {
        case controlC, sigint, sigterm, sighup, sigtermToAnotherThread
        var testDescription: String { rawValue }
        var signal: Int32 {
            switch self {
            case .controlC, .sigint: SIGINT
            case .sigterm, .sigtermToAnotherThread: SIGTERM
            case .sighup: SIGHUP
            }
        }
    }

    @Test("Ctrl-C, SIGINT, SIGTERM and SIGHUP end the accounts screen within a second and restore the terminal (also when the kernel hands the signal to another thread)",
          arguments: Delivery.allCases)
    func quitSignals(_ delivery: Delivery) async throws {
        let (t, home) = try startTUI(term: "tmux-256color")
        defer { t.kill(); home.remove() }
        // The first-run screen redraws once a minute only: nothing else would wake the loop.
        try await t.waitFor("first-run screen") { $0.contains("No accounts. Press l to sign in.") }
        let pid = try #require(try programPID(t))
        let sent = Date()
        switch delivery {
        case .controlC:
            try t.sendKeys("C-c")
        case .sigint, .sigterm, .sighup:
            #expect(kill(pid, delivery.signal) == 0)
        case .sigtermToAnotherThread:
            // tgkill(2) to a thread other than the main one that does not block the signal, as the
            // kernel may choose for a process-directed signal (Glibc's tgkill is not visible to
            // Swift). Threads that block it (Dispatch's workers block most signals, GDBus's all)
            // are never chosen by the kernel: a signal sent to one of them stays pending there.
            let script = """
            import ctypes, os, sys
            pid, sig = int(sys.argv[1]), int(sys.argv[2])
            def blocks(t):
                for line in open(f"/proc/{pid}/task/{t}/status"):
                    if line.startswith("SigBlk:"):
                        return int(line.split()[1], 16) & (1 << (sig - 1)) != 0
                return True
            others = sorted(int(t) for t in os.listdir(f"/proc/{pid}/task") if int(t) != pid and not blocks(t))
            if not others: sys.exit(3)
            sys.exit(0 if ctypes.CDLL(None, use_errno=True).tgkill(pid, others[-1], sig) == 0 else 4)
            """
            let r = try TestSupport.TmuxSession.spawnAndWait(["python3", "-c", script, "\(pid)", "\(SIGTERM)"], environment: ProcessInfo.processInfo.environment)
            try #require(r.status == 0, "tgkill helper: \(r.status) \(r.output)")
        }
        let took = waitUntilGone(pid, from: sent)
        #expect(took < 1, "authdeck was still running \(took) s after \(delivery)")
        let after = try await t.waitFor("exit status", history: 50) { $0.contains("TUI-EXIT-STATUS=") }
        #expect(after.contains("TUI-EXIT-STATUS=\(128 + delivery.signal)"), "\(after)")
        #expect(!after.contains("┌ Accounts"))
        #expect(try t.display("#{alternate_on}") == "0")
    }

    @Test("A resize redraws at once, even on the first-run screen that otherwise wakes once a minute")
    func resizeRedrawsAtOnce() async throws {
        let (t, home) = try startTUI(term: "tmux-256color")
        defer { t.kill(); home.remove() }
        try await t.waitFor("first-run screen") { $0.contains("No accounts. Press l to sign in.") }
        func widest(_ screen: String) -> Int { screen.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces).count }.max() ?? 0 }
        #expect(widest(try t.capture()) > 90, "drawn at 100 columns first")
        // Several resizes: the kernel hands SIGWINCH to whichever thread it likes, and without the
        // wake-up one in three redraws waited for the next tick.
        for width in [70, 90, 60, 80] {
            let resized = Date()
            try t.resize(width: width, height: 24)
            let screen = try await t.waitFor("redrawn at \(width) columns", timeout: 8) {
                widest($0) <= width && widest($0) >= width - 2 && $0.contains("No accounts")
            }
            let took = Date().timeIntervalSince(resized)
            #expect(took < 1, "the screen was redrawn \(took) s after the resize to \(width) columns")
            #expect(screen.contains("No accounts. Press l to sign in."))
        }
    }

    @Test("A TERM without a terminfo entry gets the clear message and exit 1, not a crash (double free)",
          arguments: ["xterm-kitty", "alacritty", "xterm-ghostty", "wezterm", "authdeck-no-such-terminal"])
    func unknownTerminal(_ term: String) async throws {
        let (t, home) = try startTUI(term: term)
        defer { t.kill(); home.remove() }
        let screen = try await t.waitFor("exit status", history: 50) { $0.contains("TUI-EXIT-STATUS=") || $0.contains("No accounts") }
        if terminfoEntryExists(term) {
            // This machine knows the terminal: the screen works and q quits.
            #expect(screen.contains("No accounts"))
            try t.sendKeys("q")
            let after = try await t.waitFor("exit status", history: 50) { $0.contains("TUI-EXIT-STATUS=") }
            #expect(after.contains("TUI-EXIT-STATUS=0"))
            return
        }
        let text = screen.replacingOccurrences(of: "\n", with: "")
        #expect(text.contains("unknown terminal type \"\(term)\" (no terminfo entry); try TERM=xterm-256color"), "\(screen)")
        #expect(screen.contains("TUI-EXIT-STATUS=1"), "\(screen)")
        #expect(!screen.contains("double free"))
        #expect(try t.display("#{alternate_on}") == "0")
    }

    @Test("A terminal without cursor addressing (TERM=dumb, a private glass-tty entry) is refused with a clear message and exit 1",
          arguments: ["dumb", "authdeck-glass-tty"])
    func noCursorAddressing(_ term: String) async throws {
        var extra: [String: String] = [:]
        let terminfo = FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-terminfo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: terminfo) }
        if term == "authdeck-glass-tty" {
            try FileManager.default.createDirectory(at: terminfo, withIntermediateDirectories: true)
            let source = terminfo.appendingPathComponent("glass.src")
            try Data("authdeck-glass-tty|a glass tty without cursor addressing,\n\tam, cols#80, lines#24,\n\tbel=^G, cr=\\r, cud1=\\n, ind=\\n,\n".utf8).write(to: source)
            let r = try TestSupport.TmuxSession.spawnAndWait(["tic", "-o", terminfo.path, source.path], environment: ProcessInfo.processInfo.environment)
            try #require(r.status == 0, "tic: \(r.output)")
            extra["TERMINFO"] = terminfo.path
        }
        try #require(terminfoEntryExists(term, extraDirectory: terminfo.path), "no terminfo entry \(term) (ncurses-base provides dumb)")
        let (t, home) = try startTUI(term: term, extra: extra)
        defer { t.kill(); home.remove() }
        let screen = try await t.waitFor("exit status", history: 50) { $0.contains("TUI-EXIT-STATUS=") }
        let text = screen.replacingOccurrences(of: "\n", with: "")
        #expect(text.contains("terminal type \"\(term)\" cannot move the cursor"), "\(screen)")
        #expect(screen.contains("TUI-EXIT-STATUS=1"), "\(screen)")
    }
}

@Suite("Secrets typed at a terminal: never echoed, the terminal restored", .serialized)
struct PassphrasePromptSignalTests {
    @Test("provider add --client-secret-stdin on a terminal asks for the secret without echo")
    func clientSecretOnATerminal() async throws {
        try #require(TestSupport.TmuxSession.tmuxPath != nil, "tmux is required (scripts/apt-packages.txt)")
        let home = try CLIHome()
        defer { home.remove() }
        let shell = "env TERM=tmux-256color \(shellQuoted(authdeckBinary)) provider add x --issuer https://idp.example.com --client-id c "
            + "--client-secret-stdin --no-probe; echo ADD-EXIT=$?; exec sleep 600"
        let t = try TestSupport.TmuxSession(width: 100, height: 30, command: shell, environment: home.environment)
        defer { t.kill() }
        try await t.waitFor("the prompt") { $0.contains("Client secret for 'x' (not shown):") }
        try t.sendKeys("-l", "sekrit-typed")
        try t.sendKeys("Enter")
        let after = try await t.waitFor("the exit status") { $0.contains("ADD-EXIT=") }
        #expect(after.contains("ADD-EXIT=0"), "\(after)")
        #expect(!after.contains("sekrit-typed"), "the secret was echoed:\n\(after)")
        let show = try await home.run(["provider", "show", "x", "--json"])
        #expect(show.stdout.contains("client_secret_basic"), "\(show)")
    }

    @Test("Ctrl-C at the vault passphrase prompt: the terminal gets its echo back and the exit status is 130", arguments: ["token", "tui"])
    func controlCRestoresEcho(_ command: String) async throws {
        try #require(TestSupport.TmuxSession.tmuxPath != nil, "tmux is required (scripts/apt-packages.txt)")
        let idp = try await LocalIdentityProvider.shared.provider()
        let home = try CLIHome(provider: idp)
        defer { home.remove() }
        // A signed-in account in the vault, then the vault's cached key dropped.
        let added = try await home.run(["provider", "add", "local", "--issuer", idp.issuer.absoluteString, "--client-id", idp.nativeClient.clientID])
        try #require(added.exitCode == 0, "\(added)")
        let login = try await home.run(["login", "local"], timeout: 90)
        try #require(login.exitCode == 0, "\(login)")
        _ = try await home.run(["lock"])
        var environment = home.environment
        environment.removeValue(forKey: "AUTHDECK_PASSPHRASE_FILE")
        // Any keyring cache is per process here; the vault asks on the terminal.
        environment["AUTHDECK_VAULT_CACHE_SECONDS"] = "0"
        let arguments = command == "tui" ? "" : " token"
        // The shell ignores SIGINT so that it outlives Ctrl-C and reports (a shell whose child dies
        // of SIGINT ends too, as scripts should; an interactive one is not in the foreground group).
        let shell = "trap '' INT; env TERM=tmux-256color \(shellQuoted(authdeckBinary))\(arguments); echo PROMPT-EXIT=$?; "
            + "stty -a | tr ' ' '\\n' | grep -x -- '-\\{0,1\\}echo'; exec sleep 600"
        let t = try TestSupport.TmuxSession(width: 100, height: 30, command: shell, environment: environment)
        defer { t.kill() }
        try await t.waitFor("the passphrase prompt") { $0.contains("passphrase") && !$0.contains("PROMPT-EXIT") }
        try t.sendKeys("s", "e", "c")
        try t.sendKeys("C-c")
        let after = try await t.waitFor("the exit status and the terminal's echo") { $0.contains("PROMPT-EXIT=") && $0.contains("echo") }
        #expect(after.contains("PROMPT-EXIT=130"), "\(after)")
        let echo = after.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.first { $0 == "echo" || $0 == "-echo" }
        #expect(echo == "echo", "the terminal's echo after Ctrl-C: \(echo ?? "?")\n\(after)")
    }
}
