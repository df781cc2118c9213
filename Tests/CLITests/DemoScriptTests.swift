// scripts/demo as a newcomer meets it: the hints (users and passwords, the device-approval
// command, the CLI wrapper) stay on the accounts screen without `?` and in a 0600 README in the
// demo directory, the provider's name is only its name, it says how to finish the browser step
// with the bundled stand-in when there is no browser, and the commands it prints work as printed.
// The demo runs the release binary scripts/test built as README builds it (AUTHDECK_DEMO_BINARY:
// a `swift build` inside `swift test` would wait on the build directory's lock).
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

private let demoScript = packageRoot.appendingPathComponent("scripts/demo").path

/// The demo's environment: a private HOME and TMPDIR, no browser, no display.
private func demoEnvironment(_ home: URL) -> [String: String] {
    [
        "HOME": home.path, "TMPDIR": home.path, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        "LANG": "C.UTF-8", "AUTHDECK_DEMO_BINARY": authdeckBinary, "no_proxy": "127.0.0.1,localhost,::1",
    ]
}

@Suite("scripts/demo", .serialized)
struct DemoScriptTests {
    @Test("Off a terminal: users printed, the stand-in browser named, and the printed CLI path signs in and shows status")
    func printedHintsWork() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-demo-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: home) }
        let demo = try RunningCommand([], environment: demoEnvironment(home), executable: demoScript)
        var stopped = false
        defer { if !stopped { kill(-demo.pid, SIGKILL) } }
        let cli = try #require(await demo.waitForStderr(#"try: (\S+/bin/authdeck) status"#, timeout: 120), "demo output: \(demo.stderrText)")
        let text = demo.stderrText
        let users = try #require(text.split(separator: "\n").first { $0.contains("Demo users:") }, "\(text)")
        #expect(users.contains("alice / ") && users.contains("bob / "))
        #expect(text.contains("No browser found: the browser flow uses the bundled stand-in"), "\(text)")
        let approve = try #require(text.split(separator: "\n").first { $0.contains("/bin/approve-device CODE") }, "\(text)")
        let approvePath = String(approve.trimmingCharacters(in: .whitespaces).split(separator: " ")[0])
        #expect(FileManager.default.isExecutableFile(atPath: approvePath), "\(approvePath) as printed")
        #expect(!text.contains("'authdeck login"), "no hint naming a bare authdeck that is not on PATH: \(text)")

        // The hints in full, in the demo directory, 0600 (they hold the throw-away passwords).
        let readme = try #require(await demo.waitForStderr(#"hints: (\S+/README);"#, timeout: 5), "\(text)")
        let attributes = try FileManager.default.attributesOfItem(atPath: readme)
        #expect((attributes[.posixPermissions] as? Int) == 0o600, "\(attributes)")
        let hints = try String(contentsOfFile: readme, encoding: .utf8)
        #expect(hints.contains("\n  alice / ") && hints.contains("\n  bob / "), "\(hints)")
        #expect(hints.contains("  \(approvePath) CODE bob     (as bob)") && hints.contains("  \(cli) status"), "\(hints)")
        #expect(text.contains("These hints stay under the accounts screen, and in full in \(readme)."), "\(text)")

        // The printed wrapper is the demo's authdeck: its provider, its store, its stand-in browser.
        let env = ["PATH": "/usr/bin:/bin", "HOME": home.path, "LANG": "C.UTF-8"]
        let status = try await RunningCommand(["status", "--json"], environment: env, executable: cli).wait()
        #expect(status.exitCode == 0, "\(status)")
        let show = try await RunningCommand(["provider", "show", "local"], environment: env, executable: cli).wait()
        #expect(show.stdout.contains("display name: Local demo\n"), "a name, no passwords in it: \(show.stdout)")
        let login = try await RunningCommand(["login", "local"], environment: env, executable: cli).wait(timeout: 90)
        #expect(login.exitCode == 0, "login through the stand-in browser as printed: \(login)")
        // The device flow, approved with the printed command as bob.
        let device = try RunningCommand(["login", "local", "--device"], environment: env, executable: cli)
        let code = try #require(await device.waitForStderr(#"enter the code: (\S+)"#, timeout: 30), "\(device.stderrText)")
        let approved = try await RunningCommand([code, "bob"], environment: env, executable: approvePath).wait(timeout: 60)
        #expect(approved.exitCode == 0, "\(approved)")
        let deviceLogin = await device.wait(timeout: 60)
        #expect(deviceLogin.exitCode == 0, "\(deviceLogin)")
        let after = try await RunningCommand(["status"], environment: env, executable: cli).wait()
        #expect(after.stdout.contains("local/alice") && after.stdout.contains("local/bob"), "\(after)")

        // Ctrl-C (SIGINT to the group, as a terminal sends it) stops the provider and removes everything.
        let demoDirectory = URL(fileURLWithPath: cli).deletingLastPathComponent().deletingLastPathComponent().path
        kill(-demo.pid, SIGINT)
        let ended = await demo.wait(timeout: 30)
        stopped = true
        #expect(ended.exitCode != -1, "the demo ended on SIGINT")
        #expect(!FileManager.default.fileExists(atPath: demoDirectory), "\(demoDirectory) removed")
    }

    @Test("On a terminal: the users, the approval command and the README stay under the panes without ?, and the users are printed again after q")
    func usersVisibleInTheTUI() async throws {
        try #require(TestSupport.TmuxSession.tmuxPath != nil, "tmux is required (scripts/apt-packages.txt)")
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-demo-tui-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: home) }
        let command = "env TERM=tmux-256color '\(demoScript)'; echo DEMO-EXIT-STATUS=$?; exec sleep 600"
        let t = try TestSupport.TmuxSession(width: 160, height: 40, command: command, environment: demoEnvironment(home))
        defer { t.kill() }
        let screen = try await t.waitFor("accounts screen", timeout: 120) { $0.contains("No accounts. Press l to sign in.") }
        let rows = screen.split(separator: "\n")
        #expect(rows.contains { $0.hasPrefix(" Users: alice / alice-") && $0.contains(" · bob / bob-") }, "\(screen)")
        #expect(rows.contains { $0.hasPrefix(" Device code: /") && $0.contains("/bin/approve-device CODE [bob]") }, "\(screen)")
        #expect(rows.contains { $0.hasPrefix(" All hints: /") }, "\(screen)")
        try t.sendKeys("l")
        let dialog = try await t.waitFor("sign-in dialog", timeout: 10) { $0.contains("Tab next field") }
        #expect(dialog.contains("Local demo") && !dialog.contains("Local demo ("), "the provider's name only: \(dialog)")
        #expect(dialog.contains(" Users: alice / "), "the notes stay under the dialog: \(dialog)")
        try t.sendKeys("Escape")
        try t.sendKeys("q")
        let after = try await t.waitFor("exit", timeout: 30, history: 100) { $0.contains("DEMO-EXIT-STATUS=") }
        let lines = after.split(separator: "\n")
        let exitLine = try #require(lines.lastIndex { $0.contains("DEMO-EXIT-STATUS=") })
        #expect(lines[..<exitLine].suffix(4).contains { $0.contains("Demo users:  alice / ") && $0.contains("bob / ") }, "\(after)")
        #expect(after.contains("DEMO-EXIT-STATUS=0"), "\(after)")
    }

    @Test("README's Install, the demo, scripts/install and scripts/package and scripts/test agree on one release build (scripts/build: the two products, nothing else), so a new user following README compiles it once")
    func oneReleaseBuild() throws {
        func text(_ path: String) throws -> String { try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8) }
        let build = try text("scripts/build")
        let commands = build.split(separator: "\n").filter { $0.hasPrefix("swift build") }
        #expect(commands == ["swift build -c release --product authdeck-full \"$@\"", "swift build -c release --product authdeck \"$@\""])
        // A command line of README's shell blocks that builds the release: only scripts/build.
        let readme = try text("README.md")
        let blocks = readme.components(separatedBy: "```sh").dropFirst().map { $0.components(separatedBy: "```")[0] }
        for line in blocks.joined(separator: "\n").split(separator: "\n") where line.contains("swift build") {
            Issue.record("README builds apart from scripts/build: \(line)")
        }
        #expect(blocks.joined().contains("scripts/build "), "README's Install builds with scripts/build")
        for script in ["scripts/demo", "scripts/test", "scripts/install", "scripts/package"] {
            let source = try text(script)
            #expect(!source.split(separator: "\n").contains { !$0.hasPrefix("#") && $0.contains("swift build -c release") }, "\(script) builds on its own")
        }
        #expect(try text("scripts/demo").contains("scripts/build"))
    }
}
