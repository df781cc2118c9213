// The launcher's answer to `authdeck status --json` (QuickStatus): the full program's last answer,
// kept while it holds, with the time filled in; held equal to the full program's, and handed
// over the moment anything it was made from changes.
import Foundation
import QuickToken
import Testing
import TestSupport

@Suite("CLI: the launcher answers status --json from the full program's kept answer while it holds", .serialized)
struct QuickStatusTests {
    typealias Lone = QuickTokenTests

    /// `output` with the clock's members (generatedAt, every secondsLeft) blanked.
    static func timeless(_ output: String) -> String {
        output.replacingOccurrences(of: #""generatedAt": "[^"]*""#, with: #""generatedAt": ""#, options: .regularExpression)
            .replacingOccurrences(of: #""secondsLeft": -?[0-9]+"#, with: #""secondsLeft": 0"#, options: .regularExpression)
    }

    static func lone(_ home: CLIHome, _ launcher: Lone.LoneLauncher, extra: [String: String] = [:]) async throws -> RunResult {
        try await RunningCommand(["status", "--json"], environment: home.environment.merging(extra, uniquingKeysWith: { $1 }),
                                 executable: launcher.path).wait()
    }

    static func handedOver(_ result: RunResult) -> Bool {
        result.exitCode == 1 && result.stderr.contains("cannot start the full program") && result.stdout.isEmpty
    }

    @Test("After the full program's status --json, the launcher alone answers with the same document (time filled in for now) and exit status")
    func keptStatusAnswered() async throws {
        let home = try await Lone.signedIn(["alice", "bob"])
        defer { home.remove() }
        let launcher = try Lone.LoneLauncher()
        #expect(Self.handedOver(try await Self.lone(home, launcher)), "nothing kept before the full program answered")
        let full = try await Lone.full(home, ["status", "--json"])
        try #require(full.exitCode == 0 && full.stderr.isEmpty, "\(full)")
        let quick = try await Self.lone(home, launcher)
        #expect(quick.exitCode == full.exitCode && quick.stderr.isEmpty, "\(quick)")
        #expect(Self.timeless(quick.stdout) == Self.timeless(full.stdout))
        // The clock's members are the launcher's own: generatedAt now, each secondsLeft counted from it.
        let document = try #require(try JSONSerialization.jsonObject(with: Data(quick.stdout.utf8)) as? [String: Any])
        let generatedText = try #require(document["generatedAt"] as? String)
        let generatedAt = try #require(ISO8601DateFormatter().date(from: generatedText))
        #expect(abs(generatedAt.timeIntervalSinceNow) < 30)
        let accounts = try #require(document["accounts"] as? [[String: Any]])
        #expect(accounts.count == 2)
        for account in accounts {
            let token = try #require(account["accessToken"] as? [String: Any])
            let expiresText = try #require(token["expiresAt"] as? String)
            let expiresAt = try #require(ISO8601DateFormatter().date(from: expiresText))
            let left = try #require(token["secondsLeft"] as? Int)
            #expect(abs(Double(left) - expiresAt.timeIntervalSince(generatedAt)) <= 1, "\(left)")
        }
        // The full program's next answer (the launcher with its full program) is the same again.
        let through = try await home.run(["status", "--json"])
        #expect(Self.timeless(through.stdout) == Self.timeless(full.stdout) && through.exitCode == 0)
    }

    @Test("Anything the kept status was made from changes (a provider added, the active account switched, accounts.json edited by hand, the vault locked): handed over, and the full program keeps the new answer")
    func changedInputsHandedOver() async throws {
        let home = try await Lone.signedIn(["alice", "bob"])
        defer { home.remove() }
        let launcher = try Lone.LoneLauncher()
        func keep(_ step: String) async throws {
            let full = try await Lone.full(home, ["status", "--json"])
            try #require(full.exitCode == 0, "\(full)")
            let quick = try await Self.lone(home, launcher)
            try #require(quick.exitCode == 0 && Self.timeless(quick.stdout) == Self.timeless(full.stdout), "\(step): \(quick)")
        }
        try await keep("step 1")
        let idp = try await CLIProvider.shared.provider()
        try await home.addLocalProvider(idp, name: "second")
        #expect(Self.handedOver(try await Self.lone(home, launcher)), "a provider was added")
        try await keep("step 2")
        let switched = try await home.run(["switch", "local/bob"])
        try #require(switched.exitCode == 0, "\(switched)")
        #expect(Self.handedOver(try await Self.lone(home, launcher)), "the active account was switched")
        try await keep("step 3")
        let locked = try await home.run(["lock"])
        try #require(locked.exitCode == 0, "\(locked)")
        #expect(Self.handedOver(try await Self.lone(home, launcher)), "the vault was locked")
        // Unlocked again by the next command that reads a secret (the passphrase file).
        let token = try await home.run(["token"])
        try #require(token.exitCode == 0, "\(token)")
        try await keep("after the vault was unlocked")
        let accounts = home.root.appendingPathComponent("state/authdeck/accounts.json")
        let handle = try FileHandle(forWritingTo: accounts)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(" ".utf8))
        try handle.close()
        #expect(Self.handedOver(try await Self.lone(home, launcher)), "accounts.json was edited by hand")
        // Nothing is kept from a file authdeck did not write last, until it writes it again.
        let full = try await Lone.full(home, ["status", "--json"])
        #expect(full.exitCode == 0, "\(full)")
        #expect(Self.handedOver(try await Self.lone(home, launcher)), "a status was kept from a hand-edited accounts.json")
    }

    @Test("A status kept with the store named by AUTHDECK_STORE is not the answer without it (the answer says where the choice came from), nor the other way round")
    func storeNamedAsKept() async throws {
        let home = try await Lone.signedIn(["alice"])
        defer { home.remove() }
        let launcher = try Lone.LoneLauncher()
        var unnamed = home.environment
        unnamed["AUTHDECK_STORE"] = nil
        func lone(_ environment: [String: String]) async throws -> RunResult {
            try await RunningCommand(["status", "--json"], environment: environment, executable: launcher.path).wait()
        }
        let named = try await Lone.full(home, ["status", "--json"])
        try #require(named.exitCode == 0 && named.stdout.contains("AUTHDECK_STORE=vault"), "\(named)")
        #expect(try await lone(home.environment).exitCode == 0)
        #expect(Self.handedOver(try await lone(unnamed)))
        // The first call without the variable records the store in store.json as it answers (an
        // input changed while it was read: nothing kept); the second keeps its answer.
        var recorded = try await RunningCommand(["status", "--json"], environment: unnamed, executable: Lone.fullProgram).wait()
        #expect(Self.handedOver(try await lone(unnamed)))
        recorded = try await RunningCommand(["status", "--json"], environment: unnamed, executable: Lone.fullProgram).wait()
        try #require(recorded.exitCode == 0 && recorded.stdout.contains("recorded in"), "\(recorded)")
        let quick = try await lone(unnamed)
        #expect(quick.exitCode == 0 && Self.timeless(quick.stdout) == Self.timeless(recorded.stdout), "\(quick)")
        #expect(Self.handedOver(try await lone(home.environment)))
    }

    @Test("A file written again with the same bytes (the active account switched away and back) is another file: handed over, so a status read between the two writes is never kept under the marks of the last")
    func rewrittenFileIsAnotherFile() async throws {
        let home = try await Lone.signedIn(["alice", "bob"])
        defer { home.remove() }
        let launcher = try Lone.LoneLauncher()
        let active = home.root.appendingPathComponent("state/authdeck/active.json")
        let first = try #require(try? Data(contentsOf: active))
        let full = try await Lone.full(home, ["status", "--json"])
        let kept = try await Self.lone(home, launcher)
        try #require(full.exitCode == 0 && kept.exitCode == 0, "\(full) \(kept)")
        let name = try #require((try JSONSerialization.jsonObject(with: first) as? [String: Any])?["account"] as? String)
        let other = name == "local/alice" ? "local/bob" : "local/alice"
        for account in [other, name] {
            let switched = try await home.run(["switch", account])
            try #require(switched.exitCode == 0, "\(switched)")
        }
        #expect(try Data(contentsOf: active) == first, "active.json has its first bytes again")
        #expect(Self.handedOver(try await Self.lone(home, launcher)))
    }

    @Test("A call that is not plain (an account named by AUTHDECK_ACCOUNT) keeps nothing, and the launcher hands it over")
    func notPlainKeepsNothing() async throws {
        let home = try await Lone.signedIn(["alice", "bob"])
        defer { home.remove() }
        let launcher = try Lone.LoneLauncher()
        let full = try await Lone.full(home, ["status", "--json"], extra: ["AUTHDECK_ACCOUNT": "local/bob"])
        try #require(full.exitCode == 0, "\(full)")
        #expect(!FileManager.default.fileExists(atPath: home.root.appendingPathComponent("cache/authdeck/status.json").path))
        #expect(Self.handedOver(try await Self.lone(home, launcher)))
        #expect(Self.handedOver(try await Self.lone(home, launcher, extra: ["AUTHDECK_ACCOUNT": "local/bob"])))
    }

    @Test("The kept status holds until an account's status could change: an instant before, the launcher answers with the time counted on; at it, the full program answers")
    func keptUntilTheFirstChange() async throws {
        let home = try await Lone.signedIn(["alice"])
        defer { home.remove() }
        let full = try await Lone.full(home, ["status", "--json"])
        try #require(full.exitCode == 0, "\(full)")
        let kept = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: home.root.appendingPathComponent("cache/authdeck/status.json")))
            as? [String: Any])
        let until = try #require(kept["until"] as? Double)
        let variables = home.environment.map { "\($0.key)=\($0.value)" }
        func decide(_ now: Double) -> QuickAnswer.Decision {
            QuickStatus.decide(arguments: ["authdeck", "status", "--json"], variables: variables, directory: home.root.path, now: now)
        }
        let before = try #require(decide(until - 0.5).output)
        #expect(Self.timeless(before) == Self.timeless(full.stdout))
        let document = try #require(try JSONSerialization.jsonObject(with: Data(before.utf8)) as? [String: Any])
        let token = try #require((document["accounts"] as? [[String: Any]])?.first?["accessToken"] as? [String: Any])
        #expect((token["secondsLeft"] as? Int).map { $0 >= 0 && $0 <= 300 } == true, "counted on to the expiring-soon threshold: \(token)")
        #expect(decide(until).output == nil)
        #expect(decide(until + 3_600).output == nil)
        // A clock set back before the answer was made (NTP, a restored VM) is not inside the window.
        let since = try #require(kept["since"] as? Double)
        // (Foundation's reading of the number may differ from jansson's in the last bit.)
        #expect(decide(since + 0.01).output != nil, "\(decide(since + 0.01)) since \(since) until \(until)")
        #expect(decide(since - 1).output == nil)
    }

    /// `authdeck prompt ARGUMENTS` run in `directory` by `executable` (the launcher with its full program, or alone).
    static func prompt(_ home: CLIHome, in directory: URL, executable: String = authdeckBinary, _ arguments: [String] = []) async throws -> RunResult {
        try await RunningCommand(["-c", "cd \"$1\" && shift && exec \"$@\"", "sh", directory.path, executable, "prompt"] + arguments,
                                 environment: home.environment, executable: "/bin/sh").wait()
    }

    @Test("Prompt says the account that applies here and why, the same from the launcher alone and the full program, after switch, bind and an expiry; nothing on stderr, exit 0")
    func promptFollowsSwitchBindAndExpiry() async throws {
        let home = try await Lone.signedIn(["alice", "bob"])
        defer { home.remove() }
        let launcher = try Lone.LoneLauncher()
        let here = home.root
        // Nothing kept yet: the launcher alone hands over; the full program answers (and keeps the status).
        #expect(Self.handedOver(try await Self.prompt(home, in: here, executable: launcher.path)))
        let full = try await Self.prompt(home, in: here, executable: Lone.fullProgram)
        #expect(full.exitCode == 0 && full.stderr.isEmpty && full.stdout.hasPrefix("local/alice (active) valid "), "\(full)")
        let quick = try await Self.prompt(home, in: here, executable: launcher.path)
        #expect(quick.exitCode == 0 && quick.stderr.isEmpty && Self.sameMinute(quick.stdout, full.stdout), "\(quick) vs \(full)")
        let formatted = try await Self.prompt(home, in: here, executable: launcher.path, ["--format", "{handle}|{source}|{state}"])
        #expect(formatted.stdout == "local/alice|active|valid\n", "\(formatted)")

        try #require(try await home.run(["switch", "local/bob"]).exitCode == 0)
        let switched = try await Self.prompt(home, in: here)
        #expect(switched.stdout.hasPrefix("local/bob (active) valid ") && switched.stderr.isEmpty, "\(switched)")
        let quickSwitched = try await Self.prompt(home, in: here, executable: launcher.path)
        #expect(Self.sameMinute(quickSwitched.stdout, switched.stdout), "\(quickSwitched)")

        // A directory rule: the full program answers there (the launcher hands over a call a rule could name), and says "dir".
        let bound = try makeDirectory(here.appendingPathComponent("work"))
        try #require(try await runAuthdeck(["bind", "alice"], in: bound, home: home).exitCode == 0)
        let inBound = try await Self.prompt(home, in: bound)
        #expect(inBound.stdout.hasPrefix("local/alice (dir) valid ") && inBound.exitCode == 0 && inBound.stderr.isEmpty, "\(inBound)")
        #expect(Self.handedOver(try await Self.prompt(home, in: bound, executable: launcher.path)))
        #expect(try await Self.prompt(home, in: here).stdout.hasPrefix("local/bob (active) valid "), "outside the bound directory")

        // Expired (accounts.json's access token expiries moved into the past): the state, no time left, from both.
        let file = here.appendingPathComponent("state/authdeck/accounts.json")
        let text = try String(contentsOf: file, encoding: .utf8)
        let expired = text.replacingOccurrences(of: #""expiresAt" *: *"[0-9T:.Z-]+""#, with: #""expiresAt":"2001-01-01T00:00:00Z""#,
                                                options: .regularExpression)
        try #require(expired != text, "accounts.json holds expiries: \(text.prefix(400))")
        try expired.write(to: file, atomically: true, encoding: .utf8)
        let late = try await Self.prompt(home, in: bound)
        #expect(late.stdout == "local/alice (dir) expired\n" && late.exitCode == 0 && late.stderr.isEmpty, "\(late)")
    }

    /// Two prompt lines the same but for a minute of the time left (the two answers a moment apart).
    static func sameMinute(_ a: String, _ b: String) -> Bool {
        func words(_ line: String) -> [Substring] { line.split(separator: " ").dropLast() }
        return !a.isEmpty && words(a) == words(b)
    }
}
