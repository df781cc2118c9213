// With the shipped binary: `authdeck --accessible` under tmux, its output recorded raw
// by `script` and read back by a terminal emulator (PyPI pyte, Tests/TerminalCheck/plain-lines):
// plain lines only (no cursor addressing, no erase, no redraw), each change said once, the
// accounts read in order, the sign-in dialog's choices numbered, keys typed as lines.
import Foundation
import Testing
import TestSupport

@Suite("CLI: the accessible mode under tmux, read back by a terminal emulator", .serialized)
struct AccessibleModeTests {
    static let checker = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("TerminalCheck/plain-lines").path

    struct Reading: Decodable {
        var moves: [String]
        var lines: [String]
    }

    @Test("Issue 39: --accessible says the accounts, a selection, the numbered sign-in choices, a refresh, the Edit provider form (its secret not echoed) and quits: plain lines, each once")
    func plainLinesEachOnce() async throws {
        let home = try await QuickTokenTests.signedIn(["alice", "bob"])
        defer { home.remove() }
        let raw = home.root.appendingPathComponent("accessible.raw")
        let command = "script -q -f -e -c '\(authdeckBinary) --accessible' \(raw.path); echo EXIT=$?; sleep 30"
        let tmux = try TmuxSession(width: 120, height: 40, command: command, environment: home.environment)
        defer { tmux.kill() }
        func type(_ line: String) throws {
            if !line.isEmpty { try tmux.sendKeys("-l", line) }
            try tmux.sendKeys("Enter")
        }
        try await tmux.waitFor("the accounts read", history: 200) { $0.contains("Accounts, 2:") }
        try type("j")
        try await tmux.waitFor("the selection said", history: 200) { $0.contains("Selected: 2.") }
        try type("l")
        try await tmux.waitFor("the sign-in dialog", history: 200) { $0.contains("Which provider?") && $0.contains("1. ") }
        try type("escape")
        try await tmux.waitFor("the dialog closed", history: 200) { $0.contains("Dialog closed.") }
        try type("r")
        try await tmux.waitFor("the refresh said", timeout: 30, history: 200) { $0.contains("access token renewed") }
        // E: the Edit provider form as lines; its client secret typed without echo (only bullets said); Escape closes it.
        try type("E")
        try await tmux.waitFor("the edit form", history: 200) { $0.contains("Scopes") && $0.contains("Tab next field · Enter save · Esc close") }
        try type("backtab")
        try await tmux.waitFor("the secret field focused", history: 200) { $0.contains("Client secret ▏") }
        try type("typed-s3cret")
        try await tmux.waitFor("the secret as bullets", history: 200) { $0.contains("Client secret ••••••••••••▏") }
        try type("escape")
        try await tmux.waitFor("the form closed", history: 200) { $0.components(separatedBy: "Dialog closed.").count == 3 }
        try type("time")
        try type("q")
        try await tmux.waitFor("the exit", history: 400) { $0.contains("EXIT=") }
        let screen = try tmux.capture(history: 400)
        #expect(screen.contains("EXIT=0"), "\(screen)")

        let check = try await RunningCommand([Self.checker, raw.path], environment: ["PATH": "/usr/bin:/bin"],
                                             executable: LocalIdentityProvider.pythonPath).wait()
        try #require(check.exitCode == 0, "\(check)")
        let reading = try JSONDecoder().decode(Reading.self, from: Data(check.stdout.utf8))
        #expect(reading.moves.isEmpty, "no cursor addressing, erase or mode switch: \(reading.moves.prefix(20))")
        let lines = reading.lines
        func count(_ part: String) -> Int { lines.filter { $0.contains(part) }.count }
        #expect(count("Accounts, 2:") == 1, "\(lines)")
        #expect(count("Selected: 2.") == 1 && count("Dialog closed.") == 2, "\(lines)")
        #expect(count("typed-s3cret") == 0 && !screen.contains("typed-s3cret"), "the secret never echoed: \(lines)")
        #expect(count("access token renewed") == 1, "one refresh, said once: \(lines)")
        #expect(lines.contains { $0.hasPrefix("1. ") && $0.contains("(chosen)") }, "numbered choices: \(lines)")
        // At most one countdown line per threshold per account (and nothing said twice but the typed keys' echo).
        let countdowns = lines.filter { $0.contains("more") && $0.contains("access token valid for") }
        #expect(Set(countdowns).count == countdowns.count, "\(countdowns)")
        #expect(lines.filter { $0.contains("at ") && $0.contains(": valid, access token valid for") }.count >= 4,
                "the list and 'time' say each account's state and time left in words: \(lines)")
    }
}
