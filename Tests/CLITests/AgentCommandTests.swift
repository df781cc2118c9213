// `authdeck agent` and a remote caller, the shipped binary on both ends of a local
// socket: the remote home has no account and no store; its `token` is the agent's; the log; the
// agent killed → the remote's named error within 1 s.
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

@Suite("authdeck agent", .serialized)
struct AgentCommandTests {
    @Test("A remote home with no account gets the agent's access token (token, --exec-credential); a rule there names a forwarded account; the log records it; the agent gone → named error in 1 s")
    func remoteTokenThroughTheSocket() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let remote = try CLIHome()
        defer { remote.remove() }
        let directory = home.root.appendingPathComponent("agent")
        let socket = directory.appendingPathComponent("agent.sock").path
        let agent = try home.start(["agent", "--socket", socket])
        defer { agent.signal(SIGKILL) }
        #expect(await agent.waitForStderr("serving 1 account") != nil)
        let local = try await home.run(["token"]).stdout
        let forwarded = ["AUTHDECK_AGENT_SOCK": socket]
        let token = try await remote.run(["token"], extra: forwarded)
        #expect(token.exitCode == 0 && token.stdout == local && !local.isEmpty, "\(token)")
        let credential = try await remote.run(["token", "--exec-credential"], extra: forwarded)
        #expect(credential.stdout.contains("\"kind\": \"ExecCredential\"") || credential.stdout.contains("\"kind\":\"ExecCredential\""), "\(credential)")
        let idToken = try await remote.run(["token", "--id-token"], extra: forwarded)
        #expect(idToken.exitCode == 1 && idToken.stderr.contains("does not hand out ID tokens"), "\(idToken)")
        var info = stat()
        #expect(lstat(socket, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(!FileManager.default.fileExists(atPath: remote.root.appendingPathComponent("data/authdeck").path), "nothing written on the remote")
        // A rule on the remote names a forwarded account (the agent's list, not the remote's empty store); the launcher
        // hands 'token' where rules exist to the full program, which sends the place (this test's own directory).
        let here = FileManager.default.currentDirectoryPath
        let bind = try await remote.run(["bind", "alice", "--dir", here], extra: forwarded)
        #expect(bind.exitCode == 0 && bind.stderr.contains("now use local/alice, forwarded by the agent"), "\(bind)")
        let unserved = try await remote.run(["bind", "nobody"], extra: forwarded)
        #expect(unserved.exitCode == 2 && unserved.stderr.contains("The agent serves no account 'nobody'"), "\(unserved)")
        let which = try await remote.run(["which", "--dir", here], extra: forwarded)
        #expect(which.stdout.contains("local/alice  (rule \(here), forwarded"), "\(which)")
        let bound = try await remote.run(["token"], extra: forwarded)
        #expect(bound.exitCode == 0 && bound.stdout == local, "\(bound)")
        let written = try FileManager.default.subpathsOfDirectory(atPath: remote.root.path).filter { !$0.hasPrefix("passphrase") }
        #expect(written.sorted() == ["config", "config/authdeck", "config/authdeck/bindings.json", "config/authdeck/bindings.json.lock"],
                "only the rule asked for (and its file's lock, as a local bind): \(written)")
        let log = try await home.run(["agent", "--log"])
        #expect(log.stdout.contains("local/alice  allowed  token") && log.stdout.contains("refused  token"), "\(log)")
        agent.signal(SIGKILL)
        _ = await agent.wait()
        let started = Date()
        let gone = try await remote.run(["token"], extra: forwarded)
        #expect(Date().timeIntervalSince(started) < 1.0 + 0.5, "the process's own start-up included")
        #expect(gone.exitCode == 1 && gone.stderr.contains("The authdeck agent at $AUTHDECK_AGENT_SOCK is not reachable"), "\(gone)")
        #expect(gone.stdout.isEmpty)
    }
}

extension AgentCommandTests {
    @Test("AUTHDECK_AGENT_SOCK naming an agent that is gone, in a home with its own signed-in account: token and status --json answer nothing from this home's files (the launcher hands them over; the agent's error)")
    func forwardedNeverAnswersFromLocalFiles() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        #expect(try await home.run(["status", "--json"]).stdout.contains("alice"), "the kept status answer exists")
        let forwarded = ["AUTHDECK_AGENT_SOCK": home.root.appendingPathComponent("gone/agent.sock").path]
        let token = try await home.run(["token"], extra: forwarded)
        #expect(token.exitCode == 1 && token.stdout.isEmpty && token.stderr.contains("not reachable"), "\(token)")
        let status = try await home.run(["status", "--json"], extra: forwarded)
        #expect(status.exitCode != 0 && !status.stdout.contains("alice") && status.stderr.contains("not reachable"), "\(status)")
    }

    @Test("--confirm on this machine's terminal (tmux): not answered in the bound → denied, exit 7; answered n → denied; y → served, once per program")
    func confirmDeniedAndAllowed() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try await signedInHome(idp)
        defer { home.remove() }
        let remote = try CLIHome()
        defer { remote.remove() }
        let socket = home.root.appendingPathComponent("agent/agent.sock").path
        let command = [ShippedBinary.path, "agent", "--socket", socket, "--confirm", "--confirm-timeout", "1"].map(SSHServer.shellQuote)
        let tmux = try TmuxSession(width: 200, height: 20, command: command.joined(separator: " "), environment: home.environment)
        defer { tmux.kill() }
        try await tmux.waitFor("the agent serving") { $0.contains("serving 1 account") }
        let forwarded = ["AUTHDECK_AGENT_SOCK": socket]
        let silent = try await remote.run(["token"], extra: forwarded)
        #expect(silent.exitCode == 7 && silent.stderr.contains("was not allowed on the agent's machine"), "\(silent)")
        let asked = try remote.start(["token"], extra: forwarded)
        try await tmux.waitFor("the second question") { $0.components(separatedBy: "Allow? [y/N]").count == 3 }
        try tmux.sendKeys("n", "Enter")
        let no = await asked.wait()
        #expect(no.exitCode == 7 && no.stdout.isEmpty, "\(no)")
        let allowed = try remote.start(["token"], extra: forwarded)
        try await tmux.waitFor("the third question") { $0.components(separatedBy: "Allow? [y/N]").count == 4 }
        try tmux.sendKeys("y", "Enter")
        #expect(await allowed.wait().exitCode == 0)
        #expect(try await remote.run(["token"], extra: forwarded).exitCode == 0, "asked once per account, host and program")
        let log = try await home.run(["agent", "--log"])
        #expect(log.stdout.components(separatedBy: "  denied  ").count == 3 && log.stdout.components(separatedBy: "  allowed  ").count == 3, "\(log)")
    }
}

/// `authdeck ssh` against a real sshd (TestSupport.SSHServer) and git http-backend (Tests/GitServer):
/// the remote side is a second Unix user (TestSupport.RemoteAccount, `authdeck-remote`) with its
/// own HOME and runtime directory and no store. Making that user needs root (CI runs as root): not
/// root, the test fails saying so.
@Suite("authdeck ssh (real sshd, real git)", .serialized)
struct AgentSSHTests {
    /// Every string value under `refreshToken`, `idToken` or `clientSecret` in the plaintext store's JSON.
    static func storedSecrets(_ home: CLIHome) throws -> [String] {
        var found: [String] = []
        func walk(_ value: Any, key: String?) {
            if let text = value as? String, let key, ["refreshToken", "idToken", "clientSecret"].contains(key), text.count > 8 { found.append(text) }
            if let object = value as? [String: Any] { for (name, member) in object { walk(member, key: name) } }
            if let array = value as? [Any] { for element in array { walk(element, key: key) } }
        }
        let files = FileManager.default.enumerator(atPath: home.root.path)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".json") {
            guard let data = FileManager.default.contents(atPath: home.root.appendingPathComponent(file).path),
                  let object = try? JSONSerialization.jsonObject(with: data) else { continue }
            walk(object, key: nil)
        }
        return found
    }

    /// Whether any of `secrets` is in a file under `directory`.
    static func filesHold(_ secrets: [String], under directory: URL) -> [String] {
        let files = FileManager.default.enumerator(atPath: directory.path)?.compactMap { $0 as? String } ?? []
        return files.filter { file in
            guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(file).path) else { return false }
            let text = String(decoding: data, as: UTF8.self)
            return secrets.contains { text.contains($0) }
        }
    }

    /// The processes whose environment or argv holds one of `secrets`.
    static func processesHolding(_ secrets: [String]) -> [String] {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.filter { $0.allSatisfy(\.isNumber) } ?? []
        return pids.compactMap { pid in
            for part in ["environ", "cmdline"] {
                guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/\(part)") else { continue }
                let text = String(decoding: data, as: UTF8.self)
                if secrets.contains(where: { text.contains($0) }) { return "\(pid)/\(part)" }
            }
            return nil
        }
    }

    /// The registry fixture (Tests/RegistryServer) accepting only an active token of `idp`.
    static func startRegistry(_ idp: LocalIdentityProvider, _ home: CLIHome) async throws -> (process: FixtureProcess, host: String) {
        let secretFile = home.root.appendingPathComponent("registry-client-secret")
        _ = FileManager.default.createFile(atPath: secretFile.path, contents: Data(try #require(idp.confidentialClient.clientSecret?.exposedValue).utf8),
                                           attributes: [.posixPermissions: 0o600])
        let process = try FixtureProcess.spawn(
            executable: "/usr/bin/python3",
            arguments: [packageRoot.appendingPathComponent("Tests/RegistryServer/registry-server.py").path, "--introspect",
                        idp.endpoints.introspection.absoluteString, "--client-id", idp.confidentialClient.clientID, "--client-secret-file", secretFile.path],
            environment: ["PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1", "http_proxy": nil, "https_proxy": nil])
        let line = try await process.readFirstLine(timeout: .seconds(20))
        let port = try #require(line.hasPrefix("PORT ") ? Int(line.dropFirst(5)) : nil, "\(line)")
        return (process, "127.0.0.1:\(port)")
    }

    @Test("The remote's token, git fetch and skopeo use this machine's account; no refresh or ID token in the remote's files, any environ or argv; the socket gone after")
    func sessionRunsGitAndLeavesNothing() async throws {
        let account = try RemoteAccount.make()
        defer { account.remove() }
        let idp = try await CLIProvider.shared.provider()
        var home = try CLIHome(provider: idp)
        home.environment["AUTHDECK_STORE"] = "plaintext"
        defer { home.remove() }
        let server = try await GitServerFixture.start(idp: idp, home: home)
        defer { Task { await server.stop() } }
        let registry = try await Self.startRegistry(idp, home)
        defer { Task { _ = await registry.process.terminate() } }
        let added = try await home.run(["provider", "add", "local", "--issuer", idp.issuer.absoluteString, "--client-id", idp.nativeClient.clientID,
                                        "--git-host", server.host, "--registry", registry.host, "--registry-username", "oauth2accesstoken"])
        try #require(added.exitCode == 0, "\(added)")
        try await home.login()
        let secrets = try Self.storedSecrets(home)
        try #require(secrets.count >= 2, "the refresh token and the ID token are stored here")
        let sshd = try await SSHServer.start(user: RemoteAccount.name)
        defer { Task { await sshd.stop() } }

        let remote = try CLIHome(root: account.root.appendingPathComponent("home"))
        let binary = try account.install(executable: ShippedBinary.path)
        try """
            [credential "http://\(server.host)"]
            \thelper =
            \thelper = "!\(binary) git-credential"
            """.write(to: remote.root.appendingPathComponent(".gitconfig"), atomically: true, encoding: .utf8)
        let ready = remote.root.appendingPathComponent("ready"), go = remote.root.appendingPathComponent("go")
        let variables = ["HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR"]
            .map { "\($0)=\(SSHServer.shellQuote(remote.environment[$0] ?? ""))" }.joined(separator: " ")
        let clone = remote.root.appendingPathComponent("clone").path
        let bin = URL(fileURLWithPath: binary).deletingLastPathComponent()
        try FileManager.default.createSymbolicLink(atPath: bin.appendingPathComponent("docker-credential-authdeck").path, withDestinationPath: binary)
        let authFile = remote.root.appendingPathComponent("containers-auth.json"), inspected = remote.root.appendingPathComponent("inspected")
        try #"{"credHelpers": {"\#(registry.host)": "authdeck"}}"#.write(to: authFile, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: remote.root.appendingPathComponent("run"), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        account.own()
        let script = [
            "id -u > \(SSHServer.shellQuote(remote.root.appendingPathComponent("uid").path))",
            "\(SSHServer.shellQuote(binary)) token > \(SSHServer.shellQuote(remote.root.appendingPathComponent("token").path)) || exit 11",
            "git clone -q http://\(server.host)/repo.git \(SSHServer.shellQuote(clone)) || exit 12",
            "git -C \(SSHServer.shellQuote(clone)) fetch -q || exit 13",
            "env PATH=\(SSHServer.shellQuote(bin.path)):/usr/bin:/bin skopeo inspect --authfile \(SSHServer.shellQuote(authFile.path)) --tls-verify=false"
                + " docker://\(registry.host)/demo:latest > \(SSHServer.shellQuote(inspected.path)) || exit 14",
            "echo \"$AUTHDECK_AGENT_SOCK\" > \(SSHServer.shellQuote(ready.path))",
            "while [ ! -e \(SSHServer.shellQuote(go.path)) ]; do sleep 0.05; done",
        ].joined(separator: "; ")
        let remoteCommand = "env \(variables) GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0 no_proxy=127.0.0.1 sh -c \(SSHServer.shellQuote(script))"
        let sshOptions = Array(sshd.sshArguments(remoteCommand: "", tty: false).dropFirst().dropLast(2))
        let session = try home.start(["ssh", "--"] + sshOptions + ["\(sshd.user)@127.0.0.1", remoteCommand])
        var socket = ""
        for _ in 0..<400 where socket.isEmpty {
            socket = (try? String(contentsOf: ready, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            if socket.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
        }
        if socket.isEmpty {
            let result = await session.wait(timeout: 1)
            Issue.record("the remote command did not get that far: \(result) \(sshd.logText())")
            return
        }
        var info = stat()
        #expect(lstat(socket, &info) == 0 && info.st_mode & 0o777 == 0o600 && info.st_uid == account.uid, "sshd's forwarded socket: 0600, the remote user's")
        #expect(Self.processesHolding(secrets).isEmpty, "no refresh or ID token in any environment or argv: \(Self.processesHolding(secrets))")
        _ = FileManager.default.createFile(atPath: go.path, contents: nil)
        let ended = await session.wait(timeout: 30)
        #expect(ended.exitCode == 0, "\(ended)")
        let uid = try? String(contentsOf: remote.root.appendingPathComponent("uid"), encoding: .utf8)
        #expect(uid == "\(account.uid)\n" && account.uid != geteuid(), "the remote commands ran as \(RemoteAccount.name): \(uid ?? "")")
        let local = try await home.run(["token"]).stdout
        #expect((try? String(contentsOf: remote.root.appendingPathComponent("token"), encoding: .utf8)) == local && !local.isEmpty)
        #expect(FileManager.default.fileExists(atPath: clone + "/README"), "the remote cloned and fetched with this machine's token")
        let tags = (try? jsonObject(String(contentsOf: inspected, encoding: .utf8)))?["RepoTags"] as? [String]
        #expect(tags == ["latest"] && registry.process.stderrText().contains("auth ok oauth2accesstoken"),
                "the remote's skopeo inspected the image with this machine's token: \(registry.process.stderrText())")
        #expect(Self.filesHold(secrets, under: remote.root).isEmpty, "the remote's files hold no refresh or ID token")
        #expect(!FileManager.default.fileExists(atPath: socket), "the remote's socket is gone")
        #expect(server.count("\"GET /repo.git/info/refs") >= 2 || server.count("info/refs") >= 2, "clone and fetch reached the git server")
    }

    /// The pid of a child of `parent` running `name` (from /proc/*/stat), if any.
    static func child(of parent: pid_t, named name: String) -> pid_t? {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap { pid_t($0) } ?? []
        return pids.first { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return stat.contains("(\(name))") && fields.count > 1 && pid_t(fields[1]) == parent
        }
    }

    @Test("A terminal session cut off (the local ssh killed): the remote's shell, hung up, removes its socket; none is left in /tmp")
    func cutOffSessionLeavesNoSocket() async throws {
        let idp = try await CLIProvider.shared.provider()
        var home = try CLIHome(provider: idp)
        home.environment["AUTHDECK_STORE"] = "plaintext"
        defer { home.remove() }
        try #require(try await home.run(["provider", "add", "local", "--issuer", idp.issuer.absoluteString, "--client-id", idp.nativeClient.clientID]).exitCode == 0)
        try await home.login()
        let sshd = try await SSHServer.start()
        defer { Task { await sshd.stop() } }
        let ready = home.root.appendingPathComponent("ready")
        let remoteCommand = "echo \"$AUTHDECK_AGENT_SOCK\" > \(SSHServer.shellQuote(ready.path)); cat > /dev/null"
        let sshOptions = Array(sshd.sshArguments(remoteCommand: "", tty: true).dropFirst().dropLast(2))
        let session = try home.start(["ssh", "--"] + sshOptions + ["\(sshd.user)@127.0.0.1", remoteCommand])
        var socket = ""
        for _ in 0..<200 where socket.isEmpty {
            socket = (try? String(contentsOf: ready, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            if socket.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
        }
        guard !socket.isEmpty, let client = Self.child(of: session.pid, named: "ssh") else {
            Issue.record("the remote command did not start: \(await session.wait(timeout: 1)) \(sshd.logText())")
            return
        }
        #expect(FileManager.default.fileExists(atPath: socket))
        kill(client, SIGKILL)
        _ = await session.wait(timeout: 10)
        for _ in 0..<100 where FileManager.default.fileExists(atPath: socket) { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!FileManager.default.fileExists(atPath: socket), "a cut-off session's socket is removed on the remote: \(socket)")
    }
}

/// A container with only the agent's socket (and the programs) bound: Debian's bubblewrap.
@Suite("authdeck agent in a bubblewrap container", .serialized)
struct AgentContainerTests {
    @Test("bwrap with the socket bound at /agent: git clone through the agent, exec hands the agent's token to its child")
    func containerRunsGitAndExec() async throws {
        let idp = try await CLIProvider.shared.provider()
        let home = try CLIHome(provider: idp)
        defer { home.remove() }
        let server = try await GitServerFixture.start(idp: idp, home: home)
        defer { Task { await server.stop() } }
        let added = try await home.run(["provider", "add", "local", "--issuer", idp.issuer.absoluteString, "--client-id", idp.nativeClient.clientID,
                                        "--git-host", server.host])
        try #require(added.exitCode == 0, "\(added)")
        try await home.login()
        let directory = home.root.appendingPathComponent("ctr")
        let agent = try home.start(["agent", "--socket", directory.appendingPathComponent("agent.sock").path])
        defer { agent.signal(SIGTERM) }
        #expect(await agent.waitForStderr("serving 1 account") != nil)
        let programs = URL(fileURLWithPath: ShippedBinary.path).deletingLastPathComponent().path
        let script = "/prog/authdeck exec -- sh -c 'test -n \"$AUTHDECK_TOKEN\" && printf %s \"$AUTHDECK_TOKEN\" > /tmp/t && echo exec-ok';"
            + " git -c credential.helper= -c 'credential.helper=!/prog/authdeck git-credential'"
            + " clone -q http://\(server.host)/repo.git /tmp/clone && test -f /tmp/clone/README && echo git-ok;"
            + " ls -A /home /root 2>/dev/null | wc -l"
        var arguments = ["--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
                         "--symlink", "usr/lib64", "/lib64", "--ro-bind", "/etc", "/etc", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
                         // A debug build's Swift runtime (the release binary links it statically).
                         "--ro-bind", programs, "/prog", "--ro-bind-try", "/opt/swift", "/opt/swift",
                         "--bind", directory.path, "/agent", "--unshare-pid", "--die-with-parent",
                         "--clearenv", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/tmp", "--setenv", "no_proxy", "127.0.0.1",
                         "--setenv", "AUTHDECK_AGENT_SOCK", "/agent/agent.sock", "--setenv", "GIT_TERMINAL_PROMPT", "0"]
        arguments += ["/bin/sh", "-c", script]
        let result = try await RunningCommand(arguments, environment: ["PATH": "/usr/bin:/bin"], executable: "/usr/bin/bwrap").wait(timeout: 60)
        #expect(result.stdout.contains("exec-ok") && result.stdout.contains("git-ok"), "\(result)")
        #expect(result.stdout.hasSuffix("0\n"), "the container sees no home: \(result)")
        let log = try await home.run(["agent", "--log"])
        #expect(log.stdout.contains("allowed  exec sh") && log.stdout.contains("allowed  git-credential get"), "\(log)")
    }
}
