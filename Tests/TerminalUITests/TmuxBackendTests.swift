import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// posix_spawn with a clean signal mask, output to a file (TestSupport's, shared with the
/// journey tests; Foundation.Process hangs on `tmux new-session -d`: docs/PLATFORM.md "tmux").
func spawnAndWait(_ args: [String], environment: [String: String]) throws -> (status: Int32, output: String) {
    try TestSupport.TmuxSession.spawnAndWait(args, environment: environment)
}

enum TmuxError: Error {
    case commandFailed([String], String)
    case timeout(String)
}

/// A private tmux server (its own socket via -L) running one command in a session "ui".
final class TmuxSession {
    let socket = "authdeck-tui-\(getpid())-\(UUID().uuidString.prefix(8))"
    let env: [String: String]

    init(width: Int, height: Int, command: String, after: String = "") throws {
        var e = ProcessInfo.processInfo.environment
        e.removeValue(forKey: "TMUX")
        e.removeValue(forKey: "NO_COLOR")  // the test runner may set it; tests choose explicitly
        e["LANG"] = "C.UTF-8"
        env = e
        // A shell runs the program, reaps it and prints its exit status, then idles: the pane's
        // screen stays readable after the program exits.
        let wrapped = "\(command); echo TUI-EXIT-STATUS=$?; \(after) exec sleep 600"
        try tmux(["-f", "/dev/null", "new-session", "-d", "-s", "ui", "-x", "\(width)", "-y", "\(height)", wrapped])
    }

    @discardableResult
    func tmux(_ args: [String]) throws -> String {
        let full = ["tmux", "-L", socket] + args
        let r = try spawnAndWait(full, environment: env)
        guard r.status == 0 else { throw TmuxError.commandFailed(args, r.output) }
        return r.output
    }

    func capture() throws -> String { try tmux(["capture-pane", "-p", "-t", "ui"]) }

    /// The screen with SGR escape sequences (colours and attributes).
    func captureStyled() throws -> String { try tmux(["capture-pane", "-p", "-e", "-t", "ui"]) }

    /// The screen plus up to 50 lines of history.
    func captureWithHistory() throws -> String { try tmux(["capture-pane", "-p", "-t", "ui", "-S", "-50"]) }

    func sendKeys(_ keys: String...) throws { try tmux(["send-keys", "-t", "ui"] + keys) }

    func display(_ format: String) throws -> String {
        try tmux(["display-message", "-p", "-t", "ui", format]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Polls the screen until `predicate` holds (or throws after `timeout` seconds).
    @discardableResult
    func waitFor(_ what: String, timeout: Double = 10, history: Bool = false, _ predicate: (String) -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        while Date() < deadline {
            last = (try? (history ? captureWithHistory() : capture())) ?? ""
            if predicate(last) { return last }
            usleep(50_000)
        }
        throw TmuxError.timeout("\(what); last screen:\n\(last)")
    }

    /// The PID of the program under test: the only child of the pane's shell.
    func programPID() throws -> pid_t? {
        let shell = try display("#{pane_pid}")
        let children = (try? String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)) ?? ""
        return children.split(separator: " ").first.flatMap { pid_t($0) }
    }

    /// Kills this test's own server by its socket name.
    func kill() {
        _ = try? tmux(["kill-server"])
        unlink("/tmp/tmux-\(getuid())/\(socket)")
    }
}

/// The test-only `tui-preview` executable, built by `swift build --build-tests` next to the tests.
func previewBinary() -> String? {
    var candidates: [URL] = []
    let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var dir = testBinary.deletingLastPathComponent()
    for _ in 0..<4 {
        candidates.append(dir.appendingPathComponent("tui-preview"))
        dir = dir.deletingLastPathComponent()
    }
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    candidates.append(root.appendingPathComponent(".build/debug/tui-preview"))
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }?.path
}

/// Replaces what legitimately changes every second (countdowns, bars, the clock) with placeholders.
func normalizeTicking(_ screen: String) -> String {
    var s = screen
    let patterns = [
        #"in (\d+[dhms] ?)+"#, #"expired (\d+[dhms] ?)+ ago"#, #"[▏▎▍▌▋▊▉█░]+"#, #"\d\d:\d\d(:\d\d)?"#,
    ]
    for p in patterns {
        s = s.replacingOccurrences(of: p, with: "<t>", options: .regularExpression)
    }
    return s.split(separator: "\n", omittingEmptySubsequences: false)
        .map { $0.replacingOccurrences(of: #"\s+$"#, with: "", options: .regularExpression) }
        .joined(separator: "\n")
}

@Suite("ncurses backend under tmux (tui-preview)", .serialized)
struct TmuxBackendTests {
    func start(width: Int = 100, height: Int = 30, env: String = "", args: String = "", after: String = "") throws -> TmuxSession {
        let tmuxPath = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) }
        try #require(tmuxPath != nil, "tmux is required (scripts/apt-packages.txt)")
        let bin = try #require(previewBinary(), "tui-preview not built; run swift build --build-tests")
        return try TmuxSession(width: width, height: height,
                               command: "env LANG=C.UTF-8 TERM=tmux-256color \(env) \(bin) \(args)", after: after)
    }

    @Test("Screen appears, countdown ticks alone, j moves the selection, resize re-lays out, q restores the terminal")
    func interactiveSession() throws {
        let t = try start()
        defer { t.kill() }
        try t.waitFor("accounts screen with the background result") {
            $0.contains("Accounts (3)") && $0.contains("background check finished")
        }
        // Two captures 1.2 s apart differ, and only in the countdowns (and bars/clock).
        let a = try t.capture()
        let until = Date().addingTimeInterval(1.2)
        while Date() < until { usleep(20_000) }  // usleep alone may end early on a signal
        let b = try t.capture()
        #expect(a != b, "the countdown did not tick: \(a.split(separator: "\n").prefix(4).joined(separator: "\n"))")
        #expect(normalizeTicking(a) == normalizeTicking(b))
        let changed = zip(a.split(separator: "\n"), b.split(separator: "\n")).filter { $0 != $1 }
        #expect(changed.contains { $0.0.contains("in ") && $0.1.contains("in ") }, "no countdown line changed")

        // j selects the next account (selection marker ▸ moves to bob; the detail follows).
        try t.sendKeys("j")
        try t.waitFor("bob selected") { screen in
            screen.split(separator: "\n").contains { $0.contains("▸") && $0.contains("bob@example.test") }
                && screen.contains("┌ bob@example.test")
        }

        // Resize to 70×24: below 80 columns the detail pane stacks under the accounts.
        try t.tmux(["resize-window", "-t", "ui", "-x", "70", "-y", "24"])
        let narrow = try t.waitFor("stacked layout at 70×24") { screen in
            let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
            return lines.contains { $0.hasPrefix("┌ Accounts (3)") } && lines.contains { $0.hasPrefix("┌ bob@example.test") }
        }
        for line in narrow.split(separator: "\n") {
            #expect(line.count <= 70)
        }

        // q quits: the alternate screen is left and the shell's screen is back.
        try t.sendKeys("q")
        let after = try t.waitFor("exit message", history: true) { $0.contains("tui-preview exited: quit") }
        #expect(!after.contains("┌ Accounts"))
        #expect(try t.display("#{alternate_on}") == "0")
        try t.waitFor("exit status", history: true) { $0.contains("TUI-EXIT-STATUS=") }
        #expect(try t.captureWithHistory().contains("TUI-EXIT-STATUS=0"))
    }

    @Test("SIGINT, SIGTERM and SIGHUP (kill) end the loop within a second and restore the terminal",
          arguments: [SIGINT, SIGTERM, SIGHUP])
    func quitSignal(_ number: Int32) throws {
        let t = try start()
        defer { t.kill() }
        try t.waitFor("accounts screen") { $0.contains("Accounts (3)") }
        let pid = try #require(try t.programPID())
        let sent = Date()
        #expect(Glibc.kill(pid, number) == 0)
        while Glibc.kill(pid, 0) == 0 && Date().timeIntervalSince(sent) < 10 { usleep(10_000) }
        let took = Date().timeIntervalSince(sent)
        #expect(took < 1, "the program was still running \(took) s after signal \(number)")
        let after = try t.waitFor("exit message", history: true) { $0.contains("TUI-EXIT-STATUS=") }
        #expect(after.contains("tui-preview exited: signal(\(number))"))
        #expect(after.contains("TUI-EXIT-STATUS=0"))
        #expect(!after.contains("┌ Accounts"))
        #expect(try t.display("#{alternate_on}") == "0")
    }

    @Test("The device dialog shows the QR code from libqrencode in half blocks")
    func deviceDialogQR() throws {
        let t = try start()
        defer { t.kill() }
        try t.waitFor("accounts screen") { $0.contains("Accounts (3)") }
        try t.sendKeys("l")
        let screen = try t.waitFor("device dialog") { $0.contains("W D J B - M J H T") }
        // Finder patterns: a top row of the QR is "█▀▀▀▀▀█" twice (left and right corners).
        let finderRows = screen.split(separator: "\n").filter { $0.components(separatedBy: "█▀▀▀▀▀█").count - 1 == 2 }
        #expect(finderRows.count == 1)
        try t.sendKeys("Escape")
        try t.waitFor("dialog closed") { !$0.contains("W D J B") }
        try t.sendKeys("q")
        try t.waitFor("exit message", history: true) { $0.contains("tui-preview exited: quit") }
    }

    @Test("Ctrl-C (SIGINT through the tty) ends the loop and restores the terminal")
    func controlC() throws {
        let t = try start()
        defer { t.kill() }
        try t.waitFor("accounts screen") { $0.contains("Accounts (3)") }
        try t.sendKeys("C-c")
        let after = try t.waitFor("exit message", history: true) { $0.contains("TUI-EXIT-STATUS=") }
        #expect(after.contains("tui-preview exited: signal(2)"))
        #expect(try t.display("#{alternate_on}") == "0")
    }

    /// SGR parameters that set a colour (30–37, 40–47, 90–97, 100–107, 38/48 extended); 39/49 are
    /// "default colour" and do not count.
    static func colourParameters(_ styled: String) -> [String] {
        let re = try! NSRegularExpression(pattern: "\u{1B}\\[([0-9;]*)m")
        let ns = styled as NSString
        return re.matches(in: styled, range: NSRange(location: 0, length: ns.length)).flatMap { m in
            ns.substring(with: m.range(at: 1)).split(separator: ";").map(String.init).filter { p in
                guard let n = Int(p) else { return false }
                return (30...38).contains(n) || (40...48).contains(n) || (90...97).contains(n) || (100...107).contains(n)
            }
        }
    }

    @Test("The default theme reaches the terminal as colour pairs; NO_COLOR gives attributes only", arguments: [false, true])
    func colours(noColor: Bool) throws {
        let t = try start(env: noColor ? "NO_COLOR=1" : "")
        defer { t.kill() }
        try t.waitFor("accounts screen") { $0.contains("Accounts (3)") }
        let styled = try t.captureStyled()
        let colours = Self.colourParameters(styled)
        if noColor {
            #expect(colours.isEmpty, "colour SGR with NO_COLOR: \(colours.prefix(5))")
            #expect(styled.contains("7m"), "the selection should be reverse video")
        } else {
            // The selected row: black on cyan (default theme `selection`).
            #expect(colours.contains("46"), "\(styled.prefix(400).debugDescription)")
            #expect(colours.contains("30"))
        }
        try t.sendKeys("q")
        try t.waitFor("exit message", history: true) { $0.contains("TUI-EXIT-STATUS=") }
    }

    @Test("A crash (fatalError → SIGILL) still leaves the alternate screen and restores the tty modes")
    func crashPath() throws {
        // After the program dies, the shell prints the tty's canonical/echo flags.
        let t = try start(args: "--crash-key", after: "stty -a | tr ' ' '\\n' | grep -E '^-?(icanon|echo)$' | tr '\\n' ' '; echo;")
        defer { t.kill() }
        try t.waitFor("accounts screen") { $0.contains("Accounts (3)") }
        try t.sendKeys("!")
        let after = try t.waitFor("exit status", history: true) { $0.contains("TUI-EXIT-STATUS=") && $0.contains("icanon") }
        #expect(!after.contains("TUI-EXIT-STATUS=0"), "the program should have died from the signal")
        #expect(after.contains("icanon echo"), "tty modes not restored:\n\(after)")
        #expect(!after.contains("┌ Accounts"))
        #expect(try t.display("#{alternate_on}") == "0")
    }
}
