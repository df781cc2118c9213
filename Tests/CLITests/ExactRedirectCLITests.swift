// Against Tests/ProviderEmulators/exact.py, a provider that compares redirect URIs
// exactly and refuses with bare statuses, through the shipped binary: --redirect-port, the busy
// port, the bare 403 at PAR, and sign-out with id_token_hint that finishes.
import Foundation
import Glibc
import Testing
import TestSupport

@Suite("A provider that matches redirect URIs exactly, through the CLI", .serialized)
struct ExactRedirectCLITests {
    static func freePort() throws -> Int { try FreePort.loopback() }

    /// The emulator with `port`'s two URIs registered, and a home with the provider added (optionally with --redirect-port).
    func setUp(port: Int, redirectPortOption: Bool, par: Bool = true) async throws -> (ProviderEmulator, CLIHome, RunResult) {
        let emulator = try await ProviderEmulator.start("exact", [
            "--redirect-uri", "http://127.0.0.1:\(port)/callback", "--post-logout-redirect-uri", "http://127.0.0.1:\(port)/logout-callback",
        ] + (par ? ["--par"] : []))
        var home = try CLIHome()
        // The browser's argv is recorded: a token must never be in it.
        let log = home.root.appendingPathComponent("browser-argv")
        let wrapper = home.root.appendingPathComponent("browser")
        try "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '\(log.path)'\nexec '\(ProviderEmulator.directory.appendingPathComponent("browser").path)' \"$@\"\n"
            .write(to: wrapper, atomically: true, encoding: .utf8)
        chmod(wrapper.path, 0o755)
        home.environment["BROWSER"] = wrapper.path
        let added = try await home.run(["provider", "add", "exact", "--issuer", emulator.baseURL, "--client-id", emulator.clientID]
            + (redirectPortOption ? ["--redirect-port", String(port)] : []))
        return (emulator, home, added)
    }

    @Test("Without --redirect-port the bare 403 at PAR names the redirect URI sent, --redirect-port and --device, at once; nothing opened")
    func bareForbiddenNamesTheWayOut() async throws {
        let port = try Self.freePort()
        let (emulator, home, added) = try await setUp(port: port, redirectPortOption: false)
        defer { home.remove() }
        defer { Task { await emulator.stop() } }
        try #require(added.exitCode == 0, "\(added)")
        #expect(added.stderr.contains("Redirect URI to register with the client: http://127.0.0.1/callback (any port"), "\(added.stderr)")
        let login = try await home.run(["login", "exact"], timeout: 30)
        #expect(login.exitCode != 0)
        #expect(login.stderr.contains("HTTP 403 and no explanation") && login.stderr.contains("redirect_uri=http://127.0.0.1:"), "\(login.stderr)")
        #expect(login.stderr.contains("--redirect-port PORT") && login.stderr.contains("authdeck login exact --device"), "\(login.stderr)")
        #expect(!FileManager.default.fileExists(atPath: home.root.appendingPathComponent("browser-argv").path), "no browser was opened")
        #expect(try await emulator.state()["par_refused"] as? Int == 1)
    }

    @Test("--redirect-port: sign-in on exactly that port; a busy port is named with its holder; sign-out sends id_token_hint out of argv and finishes")
    func registeredPortEndToEnd() async throws {
        let port = try Self.freePort()
        let (emulator, home, added) = try await setUp(port: port, redirectPortOption: true)
        defer { home.remove() }
        defer { Task { await emulator.stop() } }
        try #require(added.exitCode == 0, "\(added)")
        #expect(added.stderr.contains("Register exactly these with the client at the provider: redirect URI http://127.0.0.1:\(port)/callback,"
            + " post-logout redirect URI http://127.0.0.1:\(port)/logout-callback."), "\(added.stderr)")
        let shown = try await home.run(["provider", "show", "exact"])
        #expect(shown.stdout.contains("redirect URIs: http://127.0.0.1:\(port)/callback, http://127.0.0.1:\(port)/logout-callback (exactly this port)"),
                "\(shown)")
        let shownJSON = try await home.run(["provider", "show", "exact", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(shownJSON.stdout.utf8)) as? [String: Any], "\(shownJSON)")
        #expect(object["redirectPort"] as? Int == port)
        #expect(object["redirectURIs"] as? [String] == ["http://127.0.0.1:\(port)/callback", "http://127.0.0.1:\(port)/logout-callback"])

        // The port taken by this test process: an error naming it, and no other port tried.
        let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = INADDR_LOOPBACK.bigEndian
        let held = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(holder, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        try #require(held == 0 && listen(holder, 1) == 0)
        let busy = try await home.run(["login", "exact"], timeout: 30)
        close(holder)
        #expect(busy.exitCode != 0)
        #expect(busy.stderr.contains("Port \(port) on 127.0.0.1 is in use by pid \(getpid())"), "\(busy.stderr)")
        #expect(try await emulator.state()["authorize_count"] as? Int ?? 0 == 0, "nothing reached the provider's authorization endpoint")

        let login = try await home.run(["login", "exact"], timeout: 60)
        try #require(login.exitCode == 0, "\(login)")
        var state = try await emulator.state()
        #expect(state["par_refused"] as? Int == 0 && state["authorize_count"] as? Int == 1, "\(state)")

        let logout = try await home.run(["logout", "exact"], timeout: 90)
        #expect(logout.stderr.contains("does not let a public client revoke"), "revocation named as the provider's rule: \(logout.stderr)")
        #expect(logout.stderr.contains("waiting up to 60 s") && logout.stderr.contains("✓ end provider session: provider session ended"),
                "\(logout.stderr)")
        #expect(logout.exitCode == 0, "\(logout)")
        state = try await emulator.state()
        #expect(state["end_session_with_hint"] as? Int == 1 && state["sessions_ended"] as? Int == 1, "\(state)")
        let argv = try String(contentsOf: home.root.appendingPathComponent("browser-argv"), encoding: .utf8)
        #expect(!argv.contains("id_token_hint") && !argv.contains("eyJ"), "no ID token in the browser's argv: \(argv)")
        #expect(argv.contains("http://127.0.0.1:\(port)/logout-start/"), "\(argv)")
    }

    @Test("login --redirect-port for one sign-in; an invalid port is a usage error naming what to give")
    func loginOption() async throws {
        let port = try Self.freePort()
        let (emulator, home, added) = try await setUp(port: port, redirectPortOption: false)
        defer { home.remove() }
        defer { Task { await emulator.stop() } }
        try #require(added.exitCode == 0)
        let login = try await home.run(["login", "exact", "--redirect-port", String(port)], timeout: 60)
        #expect(login.exitCode == 0, "\(login)")
        for bad in ["0", "65536", "80x", "-1"] {
            let refused = try await home.run(["login", "exact", "--redirect-port", bad])
            #expect(refused.exitCode == 2 && refused.stderr.contains("--redirect-port must be a port from 1 to 65535"), "\(bad): \(refused)")
        }
        // http://127.0.0.1:80/ is http://127.0.0.1/ to a browser: the address pasted back would never match.
        for eighty in ["80", "080"] {
            let refused = try await home.run(["login", "exact", "--redirect-port", eighty])
            #expect(refused.exitCode == 2 && refused.stderr.contains("cannot be told apart from no port"), "\(refused)")
        }
        let device = try await home.run(["login", "exact", "--device", "--redirect-port", String(port)])
        #expect(device.exitCode == 2 && device.stderr.contains("--device has no redirect"), "\(device)")
    }

    @Test("A login in the background (login &) leaves the terminal's echo alone: only the foreground job reads or sets it")
    func backgroundLoginLeavesEcho() async throws {
        let port = try Self.freePort()
        let (emulator, home, added) = try await setUp(port: port, redirectPortOption: true)
        defer { home.remove() }
        defer { Task { await emulator.stop() } }
        try #require(added.exitCode == 0)
        var environment = home.environment
        environment.removeValue(forKey: "BROWSER")
        let modes = home.root.appendingPathComponent("modes").path
        let tmux = try TmuxSession(width: 200, height: 40, command: "/bin/bash --norc --noprofile -i", environment: environment)
        defer { tmux.kill() }
        try tmux.sendKeys("-l", "\(ShippedBinary.path) login exact 2>/dev/null & sleep 2; stty -a > \(modes); kill %1; echo CHECKED-\"\"ECHO\n")
        _ = try await tmux.waitFor("the check", timeout: 20) { $0.contains("CHECKED-ECHO") }
        let text = try String(contentsOfFile: modes, encoding: .utf8)
        #expect(text.contains(" echo ") && !text.contains("-echo "), "the shell's terminal kept its echo: \(text)")
    }
}
