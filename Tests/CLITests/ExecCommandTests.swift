// `authdeck exec`: the shipped binary as the parent of a real child, against the real local
// provider: the environment the child gets, exit statuses, signals passed on, and the token file
// renewed across several token lifetimes while the child calls the provider's userinfo endpoint.
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

@Suite("authdeck exec", .serialized)
struct ExecCommandTests {
    /// The `NAME=value` lines of an `env` dump.
    static func variables(_ path: URL) throws -> [String: String] {
        var result: [String: String] = [:]
        for line in try String(contentsOf: path, encoding: .utf8).split(separator: "\n") {
            guard let eq = line.firstIndex(of: "=") else { continue }
            result[String(line[..<eq])] = String(line[line.index(after: eq)...])
        }
        return result
    }

    @Test("the child gets the token in AUTHDECK_TOKEN, its expiry in AUTHDECK_TOKEN_EXPIRATION and AUTHDECK_EXEC, nothing else new; its exit code is authdeck's")
    func environmentAndExitCode() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let dump = home.root.appendingPathComponent("env.txt")
        let result = try await home.run(["exec", "--", "sh", "-c", "env > \"$DUMP\"; exit 7"], extra: ["DUMP": dump.path])
        #expect(result.exitCode == 7, "\(result)")
        let token = try await home.run(["token"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let child = try Self.variables(dump)
        #expect(child["AUTHDECK_TOKEN"] == token)
        #expect(child["AUTHDECK_EXEC"] == "local/alice")
        #expect(child["AUTHDECK_TOKEN_FILE"] == nil)
        // The token's expiry beside it, RFC 3339 UTC, as status --json says it.
        let status = try await home.run(["status", "--json"]).stdout
        let expiration = try #require(child["AUTHDECK_TOKEN_EXPIRATION"], "\(child.keys.sorted())")
        #expect(expiration.hasSuffix("Z") && status.contains("\"expiresAt\": \"\(expiration)\""), "\(expiration)")
        // Only those three are added to what authdeck was given (sh adds PWD, SHLVL and _); the
        // passphrase's file (and any descriptor) is authdeck's, not the child's.
        let given = Set(home.environment.keys).union(["DUMP", "PWD", "SHLVL", "_", "OLDPWD"])
        #expect(Set(child.keys).subtracting(given) == ["AUTHDECK_TOKEN", "AUTHDECK_TOKEN_EXPIRATION", "AUTHDECK_EXEC"])
        #expect(home.environment["AUTHDECK_PASSPHRASE_FILE"] != nil && child["AUTHDECK_PASSPHRASE_FILE"] == nil)
        let idToken = try await home.run(["token", "--id-token"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!idToken.isEmpty && !child.values.contains { $0.contains(idToken) }, "no ID token in the child's environment")
    }

    @Test("--env names the variable; a stale one inherited from the shell is replaced; nested exec is noted")
    func namedVariableAndNesting() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let dump = home.root.appendingPathComponent("env.txt")
        let result = try await home.run(["exec", "--env", "GITHUB_TOKEN", "--", "sh", "-c", "env > \"$DUMP\""],
                                        extra: ["DUMP": dump.path, "GITHUB_TOKEN": "stale", "AUTHDECK_EXEC": "other/bob"])
        #expect(result.exitCode == 0, "\(result)")
        #expect(result.stderr.contains("inside another one (for other/bob)"), "\(result)")
        let child = try Self.variables(dump)
        let token = try await home.run(["token"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(child["GITHUB_TOKEN"] == token)
        #expect(child["AUTHDECK_TOKEN"] == nil)
        #expect(child["AUTHDECK_EXEC"] == "local/alice")
    }

    @Test("a child ended by a signal is 128+N; a missing program is 127; '--help' after '--' is the child's")
    func statuses() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let killed = try await home.run(["exec", "--", "sh", "-c", "kill -TERM $$"])
        #expect(killed.exitCode == 128 + SIGTERM, "\(killed)")
        let missing = try await home.run(["exec", "--", "authdeck-no-such-program"])
        #expect(missing.exitCode == 127, "\(missing)")
        #expect(missing.stderr.contains("authdeck-no-such-program: command not found"), "\(missing)")
        let childHelp = try await home.run(["exec", "--", "sh", "-c", "echo \"[$1]\"", "sh", "--help"])
        #expect(childHelp.exitCode == 0 && childHelp.stdout == "[--help]\n", "\(childHelp)")
        let noCommand = try await home.run(["exec"])
        #expect(noCommand.exitCode == 2 && noCommand.stderr.contains("missing <command> after '--'"), "\(noCommand)")
        let badName = try await home.run(["exec", "--env", "1X", "--", "true"])
        #expect(badName.exitCode == 2 && badName.stderr.contains("not a variable name"), "\(badName)")
    }

    @Test("SIGTERM, SIGHUP and SIGUSR1 sent to authdeck reach the child, whose exit status is returned")
    func signalsArePassedOn() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        for (signal, name) in [(SIGTERM, "TERM"), (SIGHUP, "HUP"), (SIGUSR1, "USR1")] {
            let ready = home.root.appendingPathComponent("ready-\(name)")
            let got = home.root.appendingPathComponent("got-\(name)")
            let script = "trap 'echo \(name) > \"$GOT\"; exit 5' \(name); : > \"$READY\"; while :; do sleep 0.05; done"
            let running = try home.start(["exec", "--", "sh", "-c", script], extra: ["READY": ready.path, "GOT": got.path])
            let deadline = Date().addingTimeInterval(30)
            while !FileManager.default.fileExists(atPath: ready.path), Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
            running.signal(signal)
            let result = await running.wait(timeout: 30)
            #expect(result.exitCode == 5, "SIG\(name): \(result)")
            #expect((try? String(contentsOf: got, encoding: .utf8)) == "\(name)\n", "SIG\(name) reached the child")
        }
    }

    @Test("The terminal's hangup reaches the child when authdeck leads the session (tmux new-session 'exec authdeck exec …')")
    func hangupAsSessionLeader() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let ready = home.root.appendingPathComponent("ready"), got = home.root.appendingPathComponent("got")
        let socket = "authdeck-exec-hup-\(getpid())"
        let child = "trap 'echo HUP > \(got.path); exit 0' HUP; : > \(ready.path); while :; do sleep 0.05; done"
        let line = "exec '\(authdeckBinary)' exec -- sh -c \"\(child)\""
        let started = try await RunningCommand(["-L", socket, "-f", "/dev/null", "new-session", "-d", "-x", "80", "-y", "24", line],
                                                environment: home.environment, executable: "/usr/bin/tmux").wait()
        try #require(started.exitCode == 0, "tmux: \(started)")
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: ready.path), Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        _ = try await RunningCommand(["-L", socket, "kill-server"], environment: home.environment, executable: "/usr/bin/tmux").wait()
        let end = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: got.path), Date() < end { try await Task.sleep(for: .milliseconds(50)) }
        #expect((try? String(contentsOf: got, encoding: .utf8)) == "HUP\n", "the child got the hangup")
    }

    @Test("--token-file: a 0600 file under XDG_RUNTIME_DIR/authdeck in AUTHDECK_TOKEN_FILE, no token in the environment, removed after")
    func tokenFile() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let dump = home.root.appendingPathComponent("env.txt")
        let copy = home.root.appendingPathComponent("copy.txt")
        let script = "env > \"$DUMP\"; stat -c %a \"$AUTHDECK_TOKEN_FILE\" > \"$COPY.mode\"; cat \"$AUTHDECK_TOKEN_FILE\" > \"$COPY\""
        let result = try await home.run(["exec", "--token-file", "--", "sh", "-c", script], extra: ["DUMP": dump.path, "COPY": copy.path])
        #expect(result.exitCode == 0, "\(result)")
        let child = try Self.variables(dump)
        let path = try #require(child["AUTHDECK_TOKEN_FILE"])
        #expect(path.hasPrefix(home.root.appendingPathComponent("run/authdeck/exec-").path) && path.hasSuffix(".token"), "\(path)")
        #expect(child["AUTHDECK_TOKEN"] == nil)
        let token = try await home.run(["token"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try String(contentsOf: copy, encoding: .utf8) == token)
        #expect(try String(contentsOf: URL(fileURLWithPath: copy.path + ".mode"), encoding: .utf8) == "600\n")
        #expect(!FileManager.default.fileExists(atPath: path), "the token file is removed when the child ends")
        let noRuntime = try await home.run(["exec", "--token-file", "--", "true"], extra: ["XDG_RUNTIME_DIR": ""])
        #expect(noRuntime.exitCode == 2 && noRuntime.stderr.contains("needs XDG_RUNTIME_DIR"), "\(noRuntime)")
    }

    @Test("--token-file is renewed before each expiry: a child calling userinfo every second over 3 token lifetimes gets 200 every time")
    func renewedAcrossLifetimes() async throws {
        // 5 s access tokens, renewed 2 s before expiry: a renewal about every 3 s, four in 14 s.
        let idp = try await LocalIdentityProvider.start(accessTokenLifetime: 5)
        defer { Task { await idp.stop() } }
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let log = home.root.appendingPathComponent("calls.txt")
        let caller = """
        import os, sys, time, urllib.request, urllib.error
        path, url, log = os.environ["AUTHDECK_TOKEN_FILE"], sys.argv[1], sys.argv[2]
        seen = set()
        with open(log, "w") as out:
            for _ in range(14):
                for attempt in range(2):
                    token = open(path).read()
                    seen.add(token)
                    request = urllib.request.Request(url, headers={"Authorization": "Bearer " + token})
                    try:
                        status = urllib.request.urlopen(request, timeout=10).status
                    except urllib.error.HTTPError as error:
                        status = error.code
                    # The provider revokes the old access token when it refreshes: a call that
                    # read the file just before the rewrite tries once more with the new token.
                    if status != 401 or open(path).read() == token:
                        break
                    out.write("retried\\n")
                out.write("%d\\n" % status)
                out.flush()
                time.sleep(1)
            out.write("tokens %d\\n" % len(seen))
        """
        let result = try await home.run(["exec", "--token-file", "--min-valid", "2", "--", "python3", "-c", caller,
                                         idp.endpoints.userinfo.absoluteString, log.path], timeout: 90)
        #expect(result.exitCode == 0, "\(result)")
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        let statuses = lines.filter { !$0.hasPrefix("tokens") && $0 != "retried" }
        #expect(lines.filter { $0 == "retried" }.count <= 2, "a call raced a rewrite at most twice: \(lines)")
        #expect(statuses.count == 14 && statuses.allSatisfy { $0 == "200" }, "every call 200: \(statuses)")
        let tokens = try #require(lines.last.flatMap { Int($0.split(separator: " ").last ?? "") })
        #expect(tokens >= 3, "renewed before each expiry (\(tokens) tokens seen; without renewal one, and the calls after 5 s fail)")
    }

    @Test("--kill-on-expiry without a file: the child is ended (SIGTERM) when the token it holds expires, with a named message")
    func killOnExpiry() async throws {
        let idp = try await LocalIdentityProvider.start(accessTokenLifetime: 3600, signInAccessTokenLifetime: 4)
        defer { Task { await idp.stop() } }
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let result = try await home.run(["exec", "--min-valid", "0", "--kill-on-expiry", "--", "sleep", "60"], timeout: 40)
        #expect(result.exitCode == 128 + SIGTERM, "\(result)")
        #expect(result.stderr.contains("its token expired at") && result.stderr.contains("--kill-on-expiry was given"), "\(result)")
    }
}
