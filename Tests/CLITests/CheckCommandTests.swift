// `authdeck check` against the real local provider: the backstop refresh, a grant revoked at the
// provider found and told once (stderr and a hook), lasting transient trouble, hooks' limits,
// no prompt, and two checks at once.
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

@Suite("authdeck check", .serialized)
struct CheckCommandTests {
    static func accounts(_ result: RunResult) throws -> [[String: Any]] {
        try #require(try jsonObject(result.stdout)["accounts"] as? [[String: Any]], "check --json: \(result)")
    }

    @Test("Within the backstop nothing is refreshed; --backstop 0 refreshes every account, told as 'refreshed' to the hook")
    func backstop() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let quiet = try await home.run(["check", "--json"])
        #expect(quiet.exitCode == 0, "\(quiet)")
        let first = try Self.accounts(quiet)
        #expect(first.count == 1 && first[0]["verdict"] as? String == "ok" && first[0]["refreshed"] as? Bool == false)
        let hookFile = home.root.appendingPathComponent("hook.txt")
        let forced = try await home.run(["check", "--all", "--backstop", "0", "--json", "--hook", "echo \"$AUTHDECK_EVENT $AUTHDECK_ACCOUNT\" >> '\(hookFile.path)'"])
        #expect(forced.exitCode == 0, "\(forced)")
        let second = try Self.accounts(forced)
        #expect(second[0]["refreshed"] as? Bool == true && (second[0]["told"] as? [String]) == ["refreshed"])
        let id = try #require(second[0]["id"] as? String)
        #expect(try String(contentsOf: hookFile, encoding: .utf8) == "refreshed \(id)\n")
        let status = try await home.statusJSON().1
        #expect(((status["accounts"] as? [[String: Any]])?.first?["lastRefreshAt"] as? String) != nil, "the refresh is recorded")
    }

    @Test("A grant revoked at the provider: exit 3, told once on stderr and to the hook (no token in its environment); a new sign-in is 'recovered'")
    func revokedGrantToldOnce() async throws {
        let idp = try await LocalIdentityProvider.start(fixtureControl: true)
        defer { Task { await idp.stop() } }
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let token = try await home.run(["token"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try await idp.revokeGrants(of: "alice") >= 1)
        let dump = home.root.appendingPathComponent("hook-env")
        let hook = "env > '\(dump.path)'"
        let found = try await home.run(["check", "--backstop", "0", "--hook", hook])
        #expect(found.exitCode == 3, "\(found)")
        #expect(found.stderr.contains("needs sign-in") && found.stderr.contains("run authdeck login local"), "\(found)")
        #expect(found.stdout.hasPrefix("needs_signin"), "\(found.stdout)")
        let environment = try String(contentsOf: dump, encoding: .utf8)
        #expect(environment.contains("AUTHDECK_EVENT=needs_signin") && environment.contains("AUTHDECK_PROVIDER=local"))
        #expect(environment.contains("AUTHDECK_MESSAGE=") && environment.contains("AUTHDECK_ACCOUNT=local/"))
        #expect(!token.isEmpty && !environment.contains(token), "no token in the hook's environment")
        try FileManager.default.removeItem(at: dump)
        let again = try await home.run(["check", "--backstop", "0", "--hook", hook])
        #expect(again.exitCode == 3 && !again.stderr.contains("needs sign-in ("), "told once: \(again)")
        #expect(!FileManager.default.fileExists(atPath: dump.path), "the hook is not run again for the same state")
        try await home.login()
        let recovered = try await home.run(["check", "--json", "--hook", hook])
        #expect(recovered.exitCode == 0, "\(recovered)")
        #expect((try Self.accounts(recovered).first?["told"] as? [String]) == ["recovered"])
        #expect(try String(contentsOf: dump, encoding: .utf8).contains("AUTHDECK_EVENT=recovered"))
    }

    @Test("The provider down: transient, exit 0 twice, then exit 1 (told on the third run in a row) for as long as it lasts; never 'needs sign-in'")
    func transientTrouble() async throws {
        let idp = try await LocalIdentityProvider.start()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        await idp.stop()
        var codes: [Int32] = []
        var told: [[String]] = []
        for _ in 0..<4 {
            let result = try await home.run(["check", "--backstop", "0", "--json"])
            codes.append(result.exitCode)
            let account = try #require(try Self.accounts(result).first)
            #expect(account["verdict"] as? String == "transient", "\(result)")
            told.append(account["told"] as? [String] ?? [])
        }
        #expect(codes == [0, 0, 1, 1], "exit 1 once the trouble has lasted, and while it lasts")
        #expect(told == [[], [], ["transient"], []])
        let status = try await home.run(["status"])
        #expect(status.exitCode != 3, "never marked as needing sign-in: \(status)")
    }

    @Test("A damaged check-state.json is moved aside and said; check.json's bad values and unknown members are refused by name")
    func damagedFiles() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let state = URL(fileURLWithPath: home.environment["XDG_STATE_HOME"]!).appendingPathComponent("authdeck/check-state.json")
        try Data("{not json".utf8).write(to: state)
        let damaged = try await home.run(["check"])
        #expect(damaged.exitCode == 0 && damaged.stderr.contains("check-state.json was damaged") && damaged.stderr.contains(".damaged-"), "\(damaged)")
        let aside = try FileManager.default.contentsOfDirectory(atPath: state.deletingLastPathComponent().path).filter { $0.hasPrefix("check-state.json.damaged-") }
        #expect(aside.count == 1, "kept aside: \(aside)")
        let config = URL(fileURLWithPath: home.environment["XDG_CONFIG_HOME"]!).appendingPathComponent("authdeck/check.json")
        for (text, named) in [(#"{"backstopSeconds": -5}"#, "backstopSeconds"), (#"{"backstopSecs": 60}"#, "backstopSecs"),
                              (#"{"providers": {"local": {"backstop": 1}}}"#, "backstop")] {
            try Data(text.utf8).write(to: config)
            let refused = try await home.run(["check"])
            #expect(refused.exitCode == 5 && refused.stderr.contains(named) && refused.stderr.contains("check.json"), "\(text): \(refused)")
        }
    }

    @Test("check-state.json a directory or a symlink: the run is not lost (lines, --json, hooks, exit 0), said once with what to do; token keeps working")
    func unusableLedgerDegrades() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let state = URL(fileURLWithPath: home.environment["XDG_STATE_HOME"]!).appendingPathComponent("authdeck/check-state.json")
        let log = home.root.appendingPathComponent("events.log")
        let target = home.root.appendingPathComponent("elsewhere.json")
        try Data("{}".utf8).write(to: target)
        for index in ["a directory", "a symlink"] {
            try? FileManager.default.removeItem(at: state)
            try? FileManager.default.removeItem(at: log)
            if index == "a directory" {
                try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
            } else {
                try FileManager.default.createSymbolicLink(at: state, withDestinationURL: target)
            }
            let json = try await home.run(["check", "--backstop", "0", "--json", "--hook", "echo $AUTHDECK_EVENT >> '\(log.path)'"])
            #expect(json.exitCode == 0, "\(index): \(json)")
            #expect((try Self.accounts(json).first?["told"] as? [String]) == ["refreshed"], "\(index): \(json)")
            #expect(try String(contentsOf: log, encoding: .utf8) == "refreshed\n", "the hook still runs")
            #expect(!json.stderr.contains("Credential store error"), "\(json)")
            #expect(json.stderr.contains("check-state.json") && json.stderr.contains("remove or move aside")
                        && json.stderr.contains("authdeck doctor --repair"), "\(json)")
            #expect(json.stderr.components(separatedBy: "remove or move aside").count == 2, "said once: \(json)")
            let text = try await home.run(["check", "--backstop", "0"])
            #expect(text.exitCode == 0 && text.stdout.hasPrefix("ok"), "\(index): \(text)")
            let refresh = try await home.run(["refresh"])
            #expect(refresh.exitCode == 0 && !refresh.stderr.contains("check-state"), "silent: \(index): \(refresh)")
            let token = try await home.run(["token"])
            #expect(token.exitCode == 0 && !token.stdout.isEmpty, "the token is not lost: \(token)")
        }
        #expect(try String(contentsOf: target, encoding: .utf8) == "{}", "the link's target is untouched")
    }

    @Test("check.json damaged, a directory or a symlink: exit 5 (a damaged file), no usage text; the link refused with why, the directory said once")
    func unusableConfigIsDamagedFile() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let config = URL(fileURLWithPath: home.environment["XDG_CONFIG_HOME"]!).appendingPathComponent("authdeck/check.json")
        try Data("{not json".utf8).write(to: config)
        let damaged = try await home.run(["check"])
        #expect(damaged.exitCode == 5 && !damaged.stderr.contains("USAGE") && damaged.stderr.contains("not JSON"), "\(damaged)")
        try FileManager.default.removeItem(at: config)
        let real = home.root.appendingPathComponent("real-check.json")
        try Data("{}".utf8).write(to: real)
        try FileManager.default.createSymbolicLink(at: config, withDestinationURL: real)
        let linked = try await home.run(["check"])
        #expect(linked.exitCode == 5 && !linked.stderr.contains("USAGE"), "\(linked)")
        #expect(linked.stderr.contains("symbolic link") && linked.stderr.contains("without following links"), "\(linked)")
        try FileManager.default.removeItem(at: config)
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: false)
        let directory = try await home.run(["check"])
        #expect(directory.exitCode == 5 && !directory.stderr.contains("USAGE") && directory.stderr.contains("is a directory"), "\(directory)")
        #expect(directory.stderr.lowercased().components(separatedBy: "is a directory").count == 2, "said once: \(directory)")
    }

    @Test("doctor knows check.json and check-state.json: both damaged, exit 5; --repair moves check-state.json aside, never check.json, which it says to fix")
    func doctorChecksCheckFiles() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let state = URL(fileURLWithPath: home.environment["XDG_STATE_HOME"]!).appendingPathComponent("authdeck/check-state.json")
        let config = URL(fileURLWithPath: home.environment["XDG_CONFIG_HOME"]!).appendingPathComponent("authdeck/check.json")
        try Data(#"{"backstopSecs": 60}"#.utf8).write(to: config)
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        let diagnosis = try await home.run(["doctor"])
        #expect(diagnosis.exitCode == 5 && !diagnosis.stderr.contains("Everything is fine"), "\(diagnosis)")
        #expect(diagnosis.stdout.contains("damaged  \(config.path): ") && diagnosis.stdout.contains("backstopSecs"), "\(diagnosis.stdout)")
        #expect(diagnosis.stdout.contains("damaged  \(state.path): it is a directory"), "\(diagnosis.stdout)")
        let repair = try await home.run(["doctor", "--repair"])
        #expect(repair.exitCode == 5, "check.json is still to be fixed: \(repair)")
        let stateDirectory = try FileManager.default.contentsOfDirectory(atPath: state.deletingLastPathComponent().path)
        #expect(!FileManager.default.fileExists(atPath: state.path) && stateDirectory.contains { $0.hasPrefix("check-state.json.damaged-") },
                "\(stateDirectory)")
        #expect(try String(contentsOf: config, encoding: .utf8) == #"{"backstopSecs": 60}"#, "the person's configuration is left as it is")
        #expect((repair.stdout + repair.stderr).contains("fix it"), "\(repair)")
        try FileManager.default.removeItem(at: config)
        let fine = try await home.run(["doctor"])
        #expect(fine.exitCode == 0 && fine.stderr.contains("Everything is fine"), "\(fine)")
    }

    @Test("A hook that hangs is ended at 10 s and said; a failing hook is said; neither fails the check")
    func hookLimits() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let started = Date()
        let result = try await home.run(["check", "--backstop", "0", "--hook", "sleep 60", "--hook", "exit 4"], timeout: 60)
        #expect(result.exitCode == 0, "\(result)")
        #expect(result.stderr.contains("the hook 'sleep 60' for refreshed was ended after 10 s"), "\(result)")
        #expect(result.stderr.contains("the hook 'exit 4' for refreshed exited 4"), "\(result)")
        #expect(Date().timeIntervalSince(started) < 30)
    }

    @Test("SIGTERM, SIGINT or SIGHUP to check while a hook runs: the hook's process group is ended too, and check ends by the signal")
    func signalEndsHook() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        for number in [SIGTERM, SIGINT, SIGHUP] {
            let pidFile = home.root.appendingPathComponent("hook-\(number).pid")
            let run = try home.start(["check", "--backstop", "0", "--hook", "echo $$ > '\(pidFile.path)'; exec sleep 44"])
            var hook: pid_t?
            let until = Date().addingTimeInterval(30)
            while hook == nil && Date() < until {
                hook = (try? String(contentsOf: pidFile, encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
                try await Task.sleep(for: .milliseconds(20))
            }
            let pid = try #require(hook, "the hook started")
            defer { kill(pid, SIGKILL) }
            run.signal(number)
            let result = await run.wait(timeout: 20)
            #expect(result.exitCode == 128 + number, "\(number): \(result)")
            var gone = false
            for _ in 0..<50 where !gone {
                gone = kill(pid, 0) != 0 && errno == ESRCH
                if !gone { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(gone, "the hook (pid \(pid)) does not outlive check after signal \(number)")
        }
    }

    @Test("A hook that starts a background child does not keep check's stderr open ($(authdeck check 2>&1) returns at once); its output is shown")
    func hookBackgroundChild() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: authdeckBinary)
        process.arguments = ["check", "--backstop", "0", "--hook", "echo hook-said-this >&2; echo and-this; sleep 20 &"]
        process.environment = home.environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        let started = Date()
        try process.run()
        // What $(…) does: read to the end of the output, which comes when every writer has closed it.
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(Date().timeIntervalSince(started) < 12, "the output ended only with the hook's background child: \(text)")
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("hook-said-this") && text.contains("and-this"), "\(text)")
    }

    @Test("Never asks for the vault passphrase: without a cached key or a passphrase file, exit 4 with what unattended runs need")
    func neverPrompts() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        _ = try await home.run(["lock"])
        let result = try await home.run(["check", "--backstop", "0"], extra: ["AUTHDECK_PASSPHRASE_FILE": ""])
        #expect(result.exitCode == 4, "\(result)")
        #expect(result.stderr.contains("never asks for a passphrase") && result.stderr.contains("AUTHDECK_PASSPHRASE_FILE"), "\(result)")
    }

    @Test("A locked store: --json says so (exit 4, not empty); store_locked told to the hook once, again only after a check read the store")
    func lockedStoreToldOnce() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let log = home.root.appendingPathComponent("events.log")
        let arguments = ["check", "--backstop", "0", "--json", "--hook", "echo \"$AUTHDECK_EVENT [$AUTHDECK_ACCOUNT]\" >> '\(log.path)'"]
        let locked = ["AUTHDECK_PASSPHRASE_FILE": ""]
        _ = try await home.run(["lock"])
        var told: [[String]] = []
        for _ in 0..<2 {
            let result = try await home.run(arguments, extra: locked)
            #expect(result.exitCode == 4, "\(result)")
            #expect(result.stderr.components(separatedBy: "never asks for a passphrase").count == 2, "said once: \(result.stderr)")
            let json = try jsonObject(result.stdout)
            let error = try #require(json["error"] as? [String: Any], "\(result.stdout)")
            #expect(error["disposition"] as? String == "store_locked" && error["exitCode"] as? Int == 4, "\(error)")
            #expect((json["accounts"] as? [Any])?.isEmpty == true)
            told.append(json["told"] as? [String] ?? [])
        }
        #expect(told == [["store_locked"], []])
        #expect(try await home.run(arguments).exitCode == 0, "read with the passphrase file")
        _ = try await home.run(["lock"])
        #expect(try await home.run(arguments, extra: locked).exitCode == 4)
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("store_locked") } == ["store_locked []", "store_locked []"], "told again after the store was read: \(lines)")
    }

    @Test("A second check waiting for the first says so once on stderr, with the first's pid")
    func waitingForAnotherCheckIsSaid() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let started = home.root.appendingPathComponent("hook-started")
        let first = try home.start(["check", "--backstop", "0", "--hook", "touch '\(started.path)'; sleep 3"])
        let until = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: started.path) && Date() < until { try await Task.sleep(for: .milliseconds(20)) }
        let second = try await home.run(["check"])
        #expect(second.exitCode == 0, "\(second)")
        #expect(second.stderr.components(separatedBy: "waiting for another authdeck check (pid \(first.pid))…").count == 2, "\(second)")
        #expect(await first.wait().exitCode == 0)
        let alone = try await home.run(["check"])
        #expect(!alone.stderr.contains("waiting"), "\(alone)")
    }

    @Test("Two checks at once: one refresh (the second, after the first's lock, finds the account just refreshed)")
    func concurrentChecks() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        try await Task.sleep(for: .seconds(3))  // the sign-in is now older than a 2 s backstop
        let runs = try [home.start(["check", "--backstop", "2", "--json"]), home.start(["check", "--backstop", "2", "--json"])]
        var refreshed = 0
        for run in runs {
            let result = await run.wait()
            #expect(result.exitCode == 0, "\(result)")
            refreshed += try Self.accounts(result).filter { $0["refreshed"] as? Bool == true }.count
        }
        #expect(refreshed == 1, "one refresh for two checks")
    }
}

@Suite("Events from every command (check.json's hooks)", .serialized)
struct CommandEventsTests {
    @Test("login, refresh and logout tell signed_in, refreshed and signed_out to check.json's hooks; a token that sends nothing tells nothing and writes no ledger")
    func hooksFromEveryCommand() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try CLIHome(provider: idp)
        defer { home.remove() }
        try await home.addLocalProvider(idp)
        let log = home.root.appendingPathComponent("events.log")
        let config = URL(fileURLWithPath: home.environment["XDG_CONFIG_HOME"]!).appendingPathComponent("authdeck/check.json")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        let hook = "echo \"$AUTHDECK_EVENT $AUTHDECK_ACCOUNT\" >> '\(log.path)'"
        try Data(#"{"hooks": ["\#(hook.replacingOccurrences(of: "\"", with: "\\\""))"]}"#.utf8).write(to: config)
        try await home.login()
        let token = try await home.run(["token"])
        #expect(token.exitCode == 0, "\(token)")
        let refresh = try await home.run(["refresh"])
        #expect(refresh.exitCode == 0 && !refresh.stderr.contains("hook"), "\(refresh)")
        let ledger = URL(fileURLWithPath: home.environment["XDG_STATE_HOME"]!).appendingPathComponent("authdeck/check-state.json")
        #expect(!FileManager.default.fileExists(atPath: ledger.path), "nothing changed state: no ledger written")
        let logout = try await home.run(["logout", "--local-only"])
        #expect(logout.exitCode == 0, "\(logout)")
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.map { $0.split(separator: " ").first.map(String.init) ?? "" } == ["signed_in", "refreshed", "signed_out"], "\(lines)")
        #expect(lines.allSatisfy { $0.contains(" local/") }, "each names the account by its id: \(lines)")
    }

    @Test("A hook that runs authdeck refresh: the refresh works and tells nothing itself (no event re-fired level after level)")
    func hookRunningAuthdeckTellsNothing() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let log = home.root.appendingPathComponent("events.log")
        // At most 5 levels even when re-entered, so that a failure ends. (A hook's environment holds no
        // AUTHDECK_*PASSPHRASE* variable: it is given back here.)
        let passphrase = try #require(home.environment["AUTHDECK_PASSPHRASE_FILE"])
        let hook = "echo \"$AUTHDECK_EVENT $AUTHDECK_HOOK_EVENT\" >> '\(log.path)'; [ $(wc -l < '\(log.path)') -lt 5 ] && "
            + "AUTHDECK_PASSPHRASE_FILE='\(passphrase)' '\(authdeckBinary)' refresh"
        let result = try await home.run(["check", "--backstop", "0", "--hook", hook], timeout: 120)
        #expect(result.exitCode == 0, "\(result)")
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines == ["refreshed refreshed"], "told once, not again by the hook's own refresh: \(lines)")
        #expect(!result.stderr.contains("exited"), "the hook's refresh worked: \(result)")
    }
}
