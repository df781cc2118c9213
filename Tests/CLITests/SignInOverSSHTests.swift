// authdeck in a real SSH session (Tests/TestSupport/SSHServer: Debian's sshd on
// 127.0.0.1) under tmux, no browser there; the browser "elsewhere" (curl, redirects not followed)
// ends on the loopback address without delivering it, and the test pastes that address into the
// session: refused for another port and for a forged state, accepted as a whole address and as
// the code alone, and once only when the listener gets the same redirect at the same time.
import Foundation
import Testing
import TestSupport

@Suite("Sign-in from an SSH session: the redirect pasted back", .serialized)
struct SignInOverSSHTests {
    struct Session {
        let emulator: ProviderEmulator
        let home: CLIHome
        let ssh: SSHServer
        let port: Int
    }

    func start() async throws -> Session {
        let port = try ExactRedirectCLITests.freePort()
        let emulator = try await ProviderEmulator.start("exact", ["--redirect-uri", "http://127.0.0.1:\(port)/callback", "--par"])
        let home = try CLIHome()
        let added = try await home.run(["provider", "add", "exact", "--issuer", emulator.baseURL, "--client-id", emulator.clientID,
                                        "--redirect-port", String(port)])
        try #require(added.exitCode == 0, "\(added)")
        return Session(emulator: emulator, home: home, ssh: try await SSHServer.start(), port: port)
    }

    func stop(_ session: Session) async {
        await session.ssh.stop()
        await session.emulator.stop()
        session.home.remove()
    }

    /// `authdeck login exact` in the SSH session, under tmux; the home's files by absolute paths (the remote environment is sshd's own).
    func login(_ session: Session) throws -> TmuxSession {
        let variables = ["HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR", "AUTHDECK_STORE",
                         "AUTHDECK_PASSPHRASE_FILE", "AUTHDECK_TEST_MINIMUM_KDF_PASSPHRASE_FILE"]
        let assignments = variables.compactMap { name in session.home.environment[name].map { "\(name)=\(SSHServer.shellQuote($0))" } }
        // After it, the shell reads its input: a line left in the terminal would run there.
        let remote = "env LANG=C.UTF-8 NO_COLOR=1 \(assignments.joined(separator: " ")) \(SSHServer.shellQuote(ShippedBinary.path)) login exact;"
            + " echo EXIT=$?; while read -r line; do eval \"$line\"; done"
        var environment = session.home.environment
        environment["TERM"] = "xterm-256color"
        return try TmuxSession(width: 400, height: 50, command: session.ssh.sshCommandLine(remoteCommand: remote, tty: true), environment: environment)
    }

    /// The authorization URL the session printed, and where the provider's redirect goes (the browser elsewhere, not following it).
    func browseElsewhere(_ tmux: TmuxSession) async throws -> String {
        let screen = try await tmux.waitFor("the paste prompt", timeout: 60) { $0.contains("Redirect address or code:") }
        let line = try #require(screen.split(separator: "\n").first { $0.contains("/authorize?") }, "\(screen)")
        let url = String(line.trimmingCharacters(in: .whitespaces))
        let curl = try TmuxSession.spawnAndWait(["/usr/bin/curl", "-s", "-o", "/dev/null", "-w", "%{redirect_url}", url], environment: [:])
        try #require(curl.status == 0 && curl.output.contains("/callback?code="), "\(curl.output)")
        return curl.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func paste(_ tmux: TmuxSession, _ text: String) throws {
        try tmux.sendKeys("-l", "--", text)  // a code may begin with a dash
        try tmux.sendKeys("Enter")
    }

    func authorizationCodeExchanges(_ emulator: ProviderEmulator) async throws -> Int {
        (try await emulator.state()["token_requests"] as? [String: Int])?["authorization_code"] ?? 0
    }

    @Test("The session says what to do (the URL, the paste, the ssh -L line); another port's address is refused and read again; the address signs in")
    func pastedAddress() async throws {
        let session = try await start()
        let tmux = try login(session)
        defer { tmux.kill() }
        let redirect = try await browseElsewhere(tmux)
        let screen = try tmux.capture(history: 100)
        // The address and port the person's ssh reached (SSH_CONNECTION), not a host name that may not resolve there.
        #expect(screen.contains("ssh -L \(session.port):127.0.0.1:\(session.port) -p \(session.ssh.port) \(session.ssh.user)@127.0.0.1"), "\(screen)")
        #expect(screen.contains("(not shown)"), "\(screen)")
        let otherPort = redirect.replacingOccurrences(of: ":\(session.port)/", with: ":\(session.port + 1)/")
        try paste(tmux, otherPort)
        _ = try await tmux.waitFor("the refusal", timeout: 10, history: 100) { $0.contains("is not this sign-in's redirect") }
        try paste(tmux, redirect)
        let done = try await tmux.waitFor("the sign-in", timeout: 30, history: 100) { $0.contains("EXIT=") }
        #expect(done.contains("Got the redirect you pasted.") && done.contains("Signed in as Alice Exact") && done.contains("EXIT=0"), "\(done)")
        let code = try #require(URLComponents(string: redirect)?.queryItems?.first { $0.name == "code" }?.value)
        #expect(!done.contains(code), "the pasted line is not echoed: \(done)")
        #expect(try await authorizationCodeExchanges(session.emulator) == 1)
        await stop(session)
    }

    @Test("A forged state is refused before any token request, saying what did not match, and another line read; the rest of a pasted block never reaches the shell")
    func forgedStateThenRest() async throws {
        let session = try await start()
        let tmux = try login(session)
        defer { tmux.kill() }
        let redirect = try await browseElsewhere(tmux)
        let forged = redirect.replacingOccurrences(of: "state=", with: "state=forged")
        try paste(tmux, forged)
        _ = try await tmux.waitFor("the refusal", timeout: 10, history: 100) { $0.contains("refused before any token request") }
        #expect(try await authorizationCodeExchanges(session.emulator) == 0, "no token request")
        // A block of lines: the redirect, then a command a shell would run after authdeck exits.
        let marker = session.home.root.appendingPathComponent("injected").path
        try tmux.sendKeys("-l", "--", redirect + "\ntouch \(marker)\n")
        let done = try await tmux.waitFor("the sign-in", timeout: 30, history: 100) { $0.contains("EXIT=") }
        #expect(done.contains("Signed in as Alice Exact") && done.contains("EXIT=0"), "\(done)")
        #expect(!FileManager.default.fileExists(atPath: marker), "the rest of the paste was dropped, not run")
        await stop(session)
    }

    @Test("The code alone signs in; the same redirect pasted and delivered at once is exchanged once")
    func codeAloneAndBothAtOnce() async throws {
        let session = try await start()
        var tmux = try login(session)
        let redirect = try await browseElsewhere(tmux)
        let code = try #require(URLComponents(string: redirect)?.queryItems?.first { $0.name == "code" }?.value)
        try paste(tmux, code)
        let done = try await tmux.waitFor("the sign-in", timeout: 30, history: 100) { $0.contains("EXIT=") }
        #expect(done.contains("Signed in as Alice Exact") && done.contains("EXIT=0"), "\(done)")
        tmux.kill()

        tmux = try login(session)
        defer { tmux.kill() }
        let second = try await browseElsewhere(tmux)
        try paste(tmux, second)
        let delivered = try TmuxSession.spawnAndWait(["/usr/bin/curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "5", second],
                                                     environment: [:])
        let finished = try await tmux.waitFor("the sign-in", timeout: 30, history: 100) { $0.contains("EXIT=") }
        #expect(finished.contains("EXIT=0"), "\(finished) (the listener answered \(delivered.output))")
        #expect(try await authorizationCodeExchanges(session.emulator) == 2, "one exchange per sign-in, whichever path won")
        await stop(session)
    }
}
