import AppCore
import FoundationEssentials
import Testing

/// ``ExecRules``: the child's environment and the token file's renewal times of `authdeck exec`.
@Suite("exec rules: the child's environment, renewal times, retries")
struct ExecRulesTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("The token replaces an inherited value; with a file only NAME_FILE is set; AUTHDECK_EXEC names the account")
    func childEnvironment() {
        let parent = ["PATH": "/usr/bin", "AUTHDECK_TOKEN": "stale", "AUTHDECK_TOKEN_FILE": "/old", "AUTHDECK_EXEC": "outer/bob"]
        let plain = ExecRules.childEnvironment(parent: parent, variable: "AUTHDECK_TOKEN", token: "fresh", tokenFile: nil, account: "local/alice")
        #expect(plain == ["PATH": "/usr/bin", "AUTHDECK_TOKEN": "fresh", "AUTHDECK_EXEC": "local/alice"])
        let file = ExecRules.childEnvironment(parent: parent, variable: "AUTHDECK_TOKEN", token: "fresh", tokenFile: "/run/t", account: "local/alice")
        #expect(file == ["PATH": "/usr/bin", "AUTHDECK_TOKEN_FILE": "/run/t", "AUTHDECK_EXEC": "local/alice"])
        let named = ExecRules.childEnvironment(parent: [:], variable: "GH_TOKEN", token: "fresh", tokenFile: nil, account: "gh/octo")
        #expect(named == ["GH_TOKEN": "fresh", "AUTHDECK_EXEC": "gh/octo"])
    }

    @Test("Variable names are POSIX portable names, not AUTHDECK_EXEC, and none the shell, ld.so or libc give a meaning", arguments: [
        ("AUTHDECK_TOKEN", true), ("GH_TOKEN", true), ("_x1", true), ("", false), ("1X", false), ("A-B", false),
        ("TOKÉN", false), ("A B", false), ("AUTHDECK_EXEC", false), ("PATH", false), ("LD_PRELOAD", false), ("HOME", false),
        ("IFS", false), ("LC_ALL", false), ("AUTHDECK_PASSPHRASE_FILE", false), ("XDG_RUNTIME_DIR", false), ("MYPATH", true),
    ])
    func variableNames(_ name: String, _ valid: Bool) {
        #expect((ExecRules.variableNameProblem(name) == nil) == valid, "\(name)")
    }

    @Test("Renewal: min-valid before expiry, at most half the time left, at least 1 s ahead, never without an expiry")
    func renewalTime() {
        let hour = now.addingTimeInterval(3600)
        #expect(ExecRules.renewalTime(expiresAt: hour, now: now, minimumValidity: 60) == hour.addingTimeInterval(-60))
        // A 6 s token with --min-valid 60: at half-life.
        #expect(ExecRules.renewalTime(expiresAt: now.addingTimeInterval(6), now: now, minimumValidity: 60) == now.addingTimeInterval(3))
        // Expired or about to: one second from now, never a busy loop.
        #expect(ExecRules.renewalTime(expiresAt: now.addingTimeInterval(-5), now: now, minimumValidity: 60) == now.addingTimeInterval(1))
        #expect(ExecRules.renewalTime(expiresAt: now.addingTimeInterval(1), now: now, minimumValidity: 0) == now.addingTimeInterval(1))
        #expect(ExecRules.renewalTime(expiresAt: nil, now: now, minimumValidity: 60) == nil)
    }

    @Test("Retries back off 2, 4, 8 … 60 s, and the last one comes before the expiry")
    func retries() {
        #expect((1...7).map { ExecRules.retryDelay(failures: $0, expiresAt: nil, now: now) } == [2, 4, 8, 16, 32, 60, 60])
        #expect(ExecRules.retryDelay(failures: 5, expiresAt: now.addingTimeInterval(10), now: now) == 9)
        #expect(ExecRules.retryDelay(failures: 5, expiresAt: now.addingTimeInterval(-10), now: now) == 32)
        #expect(ExecRules.retryDelay(failures: 1, expiresAt: now.addingTimeInterval(1.5), now: now) == 1)
    }
}
