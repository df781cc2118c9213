// With real clients: Debian's git, through `authdeck setup-git`, against `git
// http-backend` behind a server that accepts Basic auth only when the password is an access
// token the local provider's introspection calls active (Tests/GitServer/git-server.py).
import Foundation
import Testing
import TestSupport

/// The git server fixture: a bare repository `repo.git` with one commit, on 127.0.0.1.
final class GitServerFixture: Sendable {
    let process: FixtureProcess
    let port: Int
    let root: URL

    static func start(idp: LocalIdentityProvider, home: CLIHome) async throws -> GitServerFixture {
        let root = try makeDirectory(home.root.appendingPathComponent("git-server"))
        let secretFile = root.appendingPathComponent("client-secret")
        let secret = try #require(idp.confidentialClient.clientSecret?.exposedValue)
        _ = FileManager.default.createFile(atPath: secretFile.path, contents: Data(secret.utf8), attributes: [.posixPermissions: 0o600])
        let seed = try makeDirectory(home.root.appendingPathComponent("seed"))
        try await runGit(["init", "-q", "-b", "main"], in: seed, home: home)
        try "hello\n".write(to: seed.appendingPathComponent("README"), atomically: true, encoding: .utf8)
        try await runGit(["add", "README"], in: seed, home: home)
        try await runGit(["-c", "user.name=Seed", "-c", "user.email=seed@example.test", "commit", "-q", "-m", "seed"], in: seed, home: home)
        try await runGit(["clone", "-q", "--bare", seed.path, root.appendingPathComponent("repo.git").path], in: home.root, home: home)
        let process = try FixtureProcess.spawn(
            executable: "/usr/bin/python3",
            arguments: [packageRoot.appendingPathComponent("Tests/GitServer/git-server.py").path, "--root", root.path,
                        "--introspect", idp.endpoints.introspection.absoluteString, "--client-id", idp.confidentialClient.clientID,
                        "--client-secret-file", secretFile.path],
            environment: ["PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1", "no_proxy": "127.0.0.1", "http_proxy": nil, "https_proxy": nil])
        let line = try await process.readFirstLine(timeout: .seconds(20))
        guard line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)) else {
            await process.terminate()
            throw FixtureProcessError.invalidReadyLine(reason: line)
        }
        return GitServerFixture(process: process, port: port, root: root)
    }

    init(process: FixtureProcess, port: Int, root: URL) {
        self.process = process
        self.port = port
        self.root = root
    }

    var host: String { "127.0.0.1:\(port)" }
    var url: String { "http://\(host)/repo.git" }
    func stop() async { _ = await process.terminate() }
    func count(_ text: String) -> Int { process.stderrText().components(separatedBy: text).count - 1 }
}

@Suite("git credential helper: setup-git, clone, push, fetch, expiry, revocation (Debian's git, git http-backend)", .serialized)
struct GitCredentialHelperTests {
    /// git as a user runs it: no prompt, the home's global config (setup-git writes it).
    static func git(_ arguments: [String], in directory: URL, home: CLIHome) async throws -> RunResult {
        let environment = home.environment.merging(["GIT_TERMINAL_PROMPT": "0", "GIT_CONFIG_NOSYSTEM": "1", "GIT_ASKPASS": "", "SSH_ASKPASS": ""],
                                                   uniquingKeysWith: { $1 })
        return try await RunningCommand(["-C", directory.path] + arguments, environment: environment, executable: "/usr/bin/git").wait(timeout: 120)
    }

    /// `authdeck git-credential OPERATION` with `request` on stdin.
    static func helper(_ operation: String, _ request: String, home: CLIHome) async throws -> RunResult {
        try await home.run(["git-credential", operation], stdin: Data(request.utf8))
    }

    /// The SHA-256 (hex) of `token` (sha256sum, the token on stdin): how the provider's fixture control names it.
    static func checksum(_ token: String) async throws -> String {
        let result = try await RunningCommand([], environment: ["PATH": "/usr/bin:/bin"], stdin: Data(token.utf8), executable: "/usr/bin/sha256sum").wait()
        return String(result.stdout.prefix { $0 != " " })
    }

    /// Revokes `token` at the provider (RFC 7009), the token passed on stdin.
    static func revoke(_ token: String, idp: LocalIdentityProvider) async throws {
        let script = """
        import sys, urllib.parse, urllib.request
        body = urllib.parse.urlencode({"token": sys.stdin.read().strip(), "token_type_hint": "access_token", "client_id": sys.argv[2]}).encode()
        urllib.request.urlopen(urllib.request.Request(sys.argv[1], data=body), timeout=30).read()
        """
        let result = try await RunningCommand(["-c", script, idp.endpoints.revocation.absoluteString, idp.nativeClient.clientID],
                                              environment: ["PATH": "/usr/bin:/bin", "no_proxy": "127.0.0.1"], stdin: Data(token.utf8),
                                              executable: "/usr/bin/python3").wait()
        try #require(result.exitCode == 0, "revocation: \(result.stderr)")
    }

    @Test("setup-git, 8 parallel requests at an expiry (one refresh), clone, push, fetch; a rejected token: one failed fetch, erase, the next works; a revoked grant: nothing, said; uninstall")
    func realGit() async throws {
        let idp = try await LocalIdentityProvider.start(accessTokenLifetime: 300, signInAccessTokenLifetime: 20, logRequests: true, fixtureControl: true)
        defer { Task { await idp.stop() } }
        let home = try CLIHome(provider: idp)
        defer { home.remove() }
        let server = try await GitServerFixture.start(idp: idp, home: home)
        defer { Task { await server.stop() } }
        func tokenRequests() -> Int { idp.process.stderrText().components(separatedBy: "POST /o/token/").count - 1 }

        let added = try await home.run(["provider", "add", "local", "--issuer", idp.issuer.absoluteString, "--client-id", idp.nativeClient.clientID,
                                        "--git-host", server.host])
        try #require(added.exitCode == 0, "\(added)")
        try await home.login()
        let setup = try await home.run(["setup-git"])
        #expect(setup.exitCode == 0 && setup.stderr.contains("git now asks authdeck for the credentials of \(server.url.replacing("/repo.git", with: ""))"), "\(setup)")
        let gitconfig = try String(contentsOf: home.root.appendingPathComponent(".gitconfig"), encoding: .utf8)
        #expect(gitconfig.contains("[credential \"http://\(server.host)\"]\n\thelper = \n\thelper = !'\(URL(fileURLWithPath: authdeckBinary).resolvingSymlinksInPath().path)' git-credential\n"), "\(gitconfig)")
        let twice = try await home.run(["setup-git"])
        #expect(twice.stderr.contains("Already set up"), "\(twice)")
        // A host no provider serves: refused, nothing written (git would ask authdeck and get nothing).
        let unserved = try await home.run(["setup-git", "--host", "https://git.unserved.example"])
        #expect(unserved.exitCode == 1 && unserved.stderr.contains("No provider serves https://git.unserved.example")
                    && unserved.stderr.contains("--git-host HOST"), "\(unserved)")
        #expect(try String(contentsOf: home.root.appendingPathComponent(".gitconfig"), encoding: .utf8) == gitconfig, "nothing written")
        let status = try await home.run(["status"])
        #expect(status.stdout.contains("git credential helper for: http://\(server.host)"), "\(status.stdout)")

        // At an expiry: 8 git processes at once, one refresh request.
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let (_, json) = try await home.statusJSON()
            let accounts = json["accounts"] as? [[String: Any]]
            if let left = (accounts?.first?["accessToken"] as? [String: Any])?["secondsLeft"] as? Int, left <= 8 { break }
            try await Task.sleep(for: .milliseconds(500))
        }
        let before = tokenRequests()
        let results = try await withThrowingTaskGroup(of: RunResult.self) { group in
            for _ in 0..<8 { group.addTask { try await Self.git(["ls-remote", server.url], in: home.root, home: home) } }
            var all: [RunResult] = []
            for try await result in group { all.append(result) }
            return all
        }
        for result in results { #expect(result.exitCode == 0 && result.stdout.contains("refs/heads/main"), "\(result) \(result.stdout)") }
        #expect(tokenRequests() - before == 1, "exactly one refresh request for 8 git processes at an expiry")

        // Clone, commit, push, fetch.
        let clone = home.root.appendingPathComponent("clone")
        let cloned = try await Self.git(["clone", "-q", server.url, clone.path], in: home.root, home: home)
        try #require(cloned.exitCode == 0, "\(cloned)")
        try "change\n".write(to: clone.appendingPathComponent("CHANGE"), atomically: true, encoding: .utf8)
        #expect(try await Self.git(["add", "CHANGE"], in: clone, home: home).exitCode == 0)
        #expect(try await Self.git(["-c", "user.name=A", "-c", "user.email=a@example.test", "commit", "-q", "-m", "change"], in: clone, home: home).exitCode == 0)
        let pushed = try await Self.git(["push", "-q", "origin", "main"], in: clone, home: home)
        #expect(pushed.exitCode == 0, "\(pushed)")
        let fetched = try await Self.git(["fetch", "-q"], in: clone, home: home)
        #expect(fetched.exitCode == 0, "\(fetched)")
        #expect(server.count("auth ok alice") > 0, "git sent the account's login as the username")

        // The token no longer active at the provider (its grant alive): one failed fetch (git
        // calls erase, which refreshes once), then it works.
        let token = try await home.run(["token"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try await idp.expireAccessToken(checksum: try await Self.checksum(token)) == 1)
        let beforeRevoked = tokenRequests()
        let failed = try await Self.git(["fetch", "-q"], in: clone, home: home)
        #expect(failed.exitCode != 0 && failed.stderr.contains("refused the access token"), "\(failed)")
        #expect(tokenRequests() - beforeRevoked == 1, "erase refreshed once")
        let works = try await Self.git(["fetch", "-q"], in: clone, home: home)
        #expect(works.exitCode == 0, "\(works)")
        #expect(tokenRequests() - beforeRevoked == 1, "the next get uses the refreshed token")
        #expect(!(failed.stdout + failed.stderr + works.stdout + works.stderr).contains(token), "no token in git's output")

        // The helper protocol itself.
        let unknown = try await Self.helper("get", "protocol=https\nhost=unknown.example\n\n", home: home)
        #expect(unknown.exitCode == 0 && unknown.stdout.isEmpty && unknown.stderr.isEmpty, "\(unknown)")
        let current = try await home.run(["token"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let bearer = try await Self.helper("get", "capability[]=authtype\nprotocol=http\nhost=\(server.host)\n\n", home: home)
        let lines = bearer.stdout.split(separator: "\n").map(String.init)
        #expect(Set(lines.map { String($0.prefix { $0 != "=" }) }) == ["capability[]", "authtype", "credential", "ephemeral", "password_expiry_utc"], "\(lines.map { $0.prefix(12) })")
        #expect(lines.contains("authtype=Bearer") && lines.contains("credential=\(current)") && lines.contains("ephemeral=1"))
        let basic = try await Self.helper("get", "protocol=http\nhost=\(server.host)\n", home: home)
        #expect(basic.stdout.split(separator: "\n").map { String($0.prefix { $0 != "=" }) } == ["username", "password", "password_expiry_utc"])
        #expect(!basic.stdout.contains("oauth_refresh_token") && !bearer.stdout.contains("oauth_refresh_token"))
        let https = try await Self.helper("get", "protocol=https\nhost=\(server.host)\n", home: home)
        #expect(https.stdout.split(separator: "\n").first == "username=alice", "https is fine for a loopback host too")
        let stored = try await Self.helper("store", "protocol=http\nhost=\(server.host)\nusername=alice\npassword=x\n", home: home)
        #expect(stored.exitCode == 0 && stored.stdout.isEmpty)
        let bad = try await Self.helper("get", "protocol http\n", home: home)
        #expect(bad.exitCode == 2 && bad.stdout.isEmpty && bad.stderr.contains("line 1 of the request has no '='"), "\(bad)")

        // The grant revoked at the provider (RFC 7009 ends the refresh token too): the fetch fails,
        // erase's refresh meets invalid_grant, and from then on the helper answers nothing and says
        // why (sign in again), never a browser.
        try await Self.revoke(current, idp: idp)
        let revoked = try await Self.git(["fetch", "-q"], in: clone, home: home)
        #expect(revoked.exitCode != 0, "\(revoked)")
        let after = try await Self.git(["fetch", "-q"], in: clone, home: home)
        #expect(after.exitCode != 0 && after.stderr.contains("needs to sign in again") && after.stderr.contains("authdeck login local"), "\(after)")
        #expect(try await Self.helper("get", "protocol=http\nhost=\(server.host)\n", home: home).stdout.isEmpty)
        #expect(try await home.run(["status"]).exitCode == 3, "the account is kept, marked needs sign-in")

        // Uninstall removes exactly what setup-git wrote.
        let removed = try await home.run(["setup-git", "--uninstall"])
        #expect(removed.exitCode == 0, "\(removed)")
        let config = try String(contentsOf: home.root.appendingPathComponent(".gitconfig"), encoding: .utf8)
        #expect(!config.contains("helper"), "\(config)")
    }

    @Test("A served host with no account signed in answers nothing and says what to run on stderr")
    func needsSignIn() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try CLIHome(provider: idp)
        defer { home.remove() }
        #expect(try await home.run(["provider", "add", "local", "--issuer", idp.issuer.absoluteString, "--client-id", idp.nativeClient.clientID,
                                    "--git-host", "git.example.test"]).exitCode == 0)
        let none = try await Self.helper("get", "protocol=https\nhost=git.example.test\n", home: home)
        #expect(none.stdout.isEmpty && none.stderr.contains("No account is signed in for git.example.test") && none.stderr.contains("authdeck login local"), "\(none)")
        let plain = try await Self.helper("get", "protocol=http\nhost=git.example.test\n", home: home)
        #expect(plain.stdout.isEmpty, "\(plain)")
    }
}
