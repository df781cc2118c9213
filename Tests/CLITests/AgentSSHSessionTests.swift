// `authdeck ssh`'s own ending and the remote command's wrapping, against the real sshd of
// AgentSSHTests (one server per test, sessions of a second or less each).
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

extension AgentSSHTests {
    /// A home signed in as alice with a runtime directory of a short path (a socket's address holds 107 bytes; the home's is
    /// long), removed with the home, and an sshd for the current user.
    static func sessionFixture() async throws -> (home: CLIHome, sshd: SSHServer, options: [String]) {
        let idp = try await CLIProvider.shared.provider()
        var home = try CLIHome(provider: idp)
        home.environment["AUTHDECK_STORE"] = "plaintext"
        let short = "/tmp/adr-\(UUID().uuidString.prefix(8))"
        try #require(mkdir(short, 0o700) == 0)
        home.environment["XDG_RUNTIME_DIR"] = short
        try #require(try await home.run(["provider", "add", "local", "--issuer", idp.issuer.absoluteString, "--client-id", idp.nativeClient.clientID]).exitCode == 0)
        try await home.login()
        let sshd = try await SSHServer.start()
        return (home, sshd, Array(sshd.sshArguments(remoteCommand: "", tty: true).dropFirst().dropLast(2)))
    }

    /// The first line of `file` once the remote wrote it (10 s at most), else "".
    static func firstLine(_ file: URL) async throws -> String {
        for _ in 0..<200 {
            let text = (try? String(contentsOf: file, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            if !text.isEmpty { return text }
            try await Task.sleep(for: .milliseconds(50))
        }
        return ""
    }

    @Test("SIGTERM, SIGHUP or SIGINT to authdeck ssh end ssh and the agent: the local socket and its directory (one authdeck level under $XDG_RUNTIME_DIR) and the remote's socket are gone")
    func signalsEndSessionAndAgent() async throws {
        let (home, sshd, options) = try await Self.sessionFixture()
        defer { home.remove() }
        defer { _ = try? FileManager.default.removeItem(atPath: home.environment["XDG_RUNTIME_DIR"] ?? "") }
        defer { Task { await sshd.stop() } }
        let agents = URL(fileURLWithPath: home.environment["XDG_RUNTIME_DIR"] ?? "").appendingPathComponent("authdeck")
        for signal in [SIGTERM, SIGHUP, SIGINT] {
            let ready = home.root.appendingPathComponent("ready-\(signal)")
            let remoteCommand = "echo \"$AUTHDECK_AGENT_SOCK\" > \(SSHServer.shellQuote(ready.path)); cat > /dev/null"
            let session = try home.start(["ssh", "--"] + options + ["\(sshd.user)@127.0.0.1", remoteCommand])
            let remoteSocket = try await Self.firstLine(ready)
            guard !remoteSocket.isEmpty, let client = Self.child(of: session.pid, named: "ssh") else {
                Issue.record("signal \(signal): the remote command did not start: \(await session.wait(timeout: 1)) \(sshd.logText())")
                return
            }
            let local = (try? FileManager.default.contentsOfDirectory(atPath: agents.path)) ?? []
            #expect(local.count == 1 && local[0].hasPrefix("agent-")
                    && FileManager.default.fileExists(atPath: agents.appendingPathComponent(local[0]).appendingPathComponent("agent.sock").path),
                    "the agent's directory is $XDG_RUNTIME_DIR/authdeck/agent-…: \(local)")
            kill(session.pid, signal)
            let ended = await session.wait(timeout: 10)
            #expect(ended.exitCode != 0, "signal \(signal): \(ended)")
            #expect(kill(client, 0) != 0, "signal \(signal): ssh (pid \(client)) ended with the session")
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: agents.path)) ?? []).isEmpty, "signal \(signal): the local socket is gone")
            for _ in 0..<100 where FileManager.default.fileExists(atPath: remoteSocket) { try await Task.sleep(for: .milliseconds(50)) }
            #expect(!FileManager.default.fileExists(atPath: remoteSocket), "signal \(signal): the remote's socket is gone")
            if kill(client, 0) == 0 { kill(client, SIGKILL) }
        }
    }

    @Test("The remote command is the user's own line: 'CMD &', a trailing '# comment' and 'exit N' run as written, and each removes the remote's socket")
    func remoteCommandShapes() async throws {
        let (home, sshd, options) = try await Self.sessionFixture()
        defer { home.remove() }
        defer { _ = try? FileManager.default.removeItem(atPath: home.environment["XDG_RUNTIME_DIR"] ?? "") }
        defer { Task { await sshd.stop() } }
        let plain = options.filter { $0 != "-tt" && $0 != "-t" }
        for (index, (tail, status)) in [("exit 3", Int32(3)), ("true &", 0), ("true # a comment", 0)].enumerated() {
            let ready = home.root.appendingPathComponent("shape-\(index)")
            let remoteCommand = "echo \"$AUTHDECK_AGENT_SOCK\" > \(SSHServer.shellQuote(ready.path)); \(tail)"
            let ended = try await home.start(["ssh", "--"] + plain + ["\(sshd.user)@127.0.0.1", remoteCommand]).wait(timeout: 20)
            #expect(ended.exitCode == status, "'\(tail)': \(ended)")
            let socket = try await Self.firstLine(ready)
            #expect(!socket.isEmpty && !FileManager.default.fileExists(atPath: socket), "'\(tail)' left the remote's socket \(socket)")
        }
    }
}
