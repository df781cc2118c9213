import AuthEngineLive
import Foundation
import Testing

/// `BrowserLauncher` with `$BROWSER` pointing at a test script that records its argv, pid,
/// process group and environment.
@Suite("BrowserLauncher")
struct BrowserLauncherTests {
    static let url = URL(string: "http://127.0.0.1:5555/authorize?client_id=a&state=x%20y&scope=openid+email")!

    /// A fake browser: writes one argument per line to `argv`, then `pid pgid` and the
    /// environment, then sleeps `sleep` seconds (so that the launcher must not wait for it).
    struct FakeBrowser {
        let directory: TemporaryDirectory
        let script: String

        init(name: String = "fake-browser", sleep: Int = 0, exitStatus: Int = 0) throws {
            directory = try TemporaryDirectory()
            script = directory.path(name)
            let out = directory.url.path
            let text = """
            #!/bin/sh
            printf '%s\\n' "$@" > '\(out)/argv.tmp'
            env > '\(out)/env'
            echo "$$ $(cut -d' ' -f5 /proc/$$/stat)" > '\(out)/pid'
            mv '\(out)/argv.tmp' '\(out)/argv'
            sleep \(sleep)
            exit \(exitStatus)

            """
            try Data(text.utf8).write(to: URL(fileURLWithPath: script))
            chmod(script, 0o755)
        }

        /// The recorded argv (waits up to 5 s for it).
        func recordedArguments() throws -> [String] {
            let path = directory.path("argv")
            let deadline = Date().addingTimeInterval(5)
            while !FileManager.default.fileExists(atPath: path) {
                guard Date() < deadline else { throw FixtureError("the fake browser did not run") }
                usleep(20_000)
            }
            return String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
                .split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        }

        var ran: Bool { FileManager.default.fileExists(atPath: directory.path("pid")) }

        func file(_ name: String) throws -> String {
            String(decoding: try Data(contentsOf: URL(fileURLWithPath: directory.path(name))), as: UTF8.self)
        }
    }

    static func environment(browser: String) -> [String: String] {
        ["BROWSER": browser, "PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "LANG": "C.UTF-8"]
    }

    @Test("$BROWSER with %s: the URL replaces %s, as one argument, no shell")
    func percentS() throws {
        let browser = try FakeBrowser()
        defer { browser.directory.remove() }
        let launcher = BrowserLauncher(environment: Self.environment(browser: "\(browser.script) --new-window %s --x"))
        #expect(launcher.open(Self.url))
        #expect(try browser.recordedArguments() == ["--new-window", Self.url.absoluteString, "--x"])
    }

    @Test("$BROWSER without %s: the URL is appended as one argument")
    func appended() throws {
        let browser = try FakeBrowser()
        defer { browser.directory.remove() }
        let launcher = BrowserLauncher(environment: Self.environment(browser: "\(browser.script)   --private"))
        #expect(launcher.open(Self.url))
        #expect(try browser.recordedArguments() == ["--private", Self.url.absoluteString])
    }

    @Test("$BROWSER list: a missing first command falls through to the next")
    func colonListMissingFirst() throws {
        let browser = try FakeBrowser()
        defer { browser.directory.remove() }
        let launcher = BrowserLauncher(environment: Self.environment(browser: "/nonexistent/browser %s:no-such-browser-command:\(browser.script)"))
        #expect(launcher.open(Self.url))
        #expect(try browser.recordedArguments() == [Self.url.absoluteString])
    }

    @Test("$BROWSER list: a command that fails at once falls through to the next")
    func colonListFailingFirst() throws {
        let failing = try FakeBrowser(name: "failing", exitStatus: 3)
        defer { failing.directory.remove() }
        let browser = try FakeBrowser()
        defer { browser.directory.remove() }
        let launcher = BrowserLauncher(environment: Self.environment(browser: "\(failing.script):\(browser.script)"))
        #expect(launcher.open(Self.url))
        #expect(try browser.recordedArguments() == [Self.url.absoluteString])
        #expect(failing.ran)
    }

    @Test("No launcher found ($BROWSER missing, no xdg-open on PATH): returns false")
    func nothingFound() {
        let launcher = BrowserLauncher(environment: ["BROWSER": "/nonexistent/browser", "PATH": "/nonexistent-dir"])
        #expect(launcher.open(Self.url) == false)
    }

    @Test("Detached: returns without waiting for the browser, which runs in its own process group")
    func detached() throws {
        let browser = try FakeBrowser(sleep: 10)
        defer { browser.directory.remove() }
        let started = Date()
        let launcher = BrowserLauncher(environment: Self.environment(browser: browser.script))
        #expect(launcher.open(Self.url))
        #expect(Date().timeIntervalSince(started) < 3)
        _ = try browser.recordedArguments()
        let ids = try browser.file("pid").split(whereSeparator: \.isWhitespace).map(String.init)
        #expect(ids.count == 2)
        #expect(ids.first == ids.last) // process group id == its own pid
        #expect(ids.first != "\(getpgrp())")
        if let pid = Int32(ids[0]) { kill(pid, SIGKILL) }
    }

    @Test("The browser's environment has no AUTHDECK secret variables")
    func environmentFiltered() throws {
        let browser = try FakeBrowser()
        defer { browser.directory.remove() }
        var environment = Self.environment(browser: browser.script)
        environment["AUTHDECK_CLIENT_SECRET"] = "s3cr3t-value"
        environment["AUTHDECK_VAULT_PASSPHRASE"] = "p4ss-value"
        environment["AUTHDECK_REFRESH_TOKEN"] = "r3fr3sh-value"
        environment["AUTHDECK_CONFIG_DIR"] = "/tmp/config"
        #expect(BrowserLauncher(environment: environment).open(Self.url))
        _ = try browser.recordedArguments()
        let childEnvironment = try browser.file("env")
        #expect(!childEnvironment.contains("s3cr3t-value"))
        #expect(!childEnvironment.contains("p4ss-value"))
        #expect(!childEnvironment.contains("r3fr3sh-value"))
        #expect(childEnvironment.contains("AUTHDECK_CONFIG_DIR=/tmp/config"))
        #expect(childEnvironment.contains("LANG=C.UTF-8"))
    }

    @Test("Output goes to the log path given by the caller")
    func logPath() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let script = directory.path("noisy")
        try Data("#!/bin/sh\necho \"opening $1\"\necho oops >&2\n".utf8).write(to: URL(fileURLWithPath: script))
        chmod(script, 0o755)
        let log = directory.path("browser.log")
        #expect(BrowserLauncher(environment: Self.environment(browser: script), logPath: log).open(Self.url))
        let deadline = Date().addingTimeInterval(5)
        var text = ""
        while !text.contains("oops"), Date() < deadline {
            text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            usleep(20_000)
        }
        #expect(text == "opening \(Self.url.absoluteString)\noops\n")
    }

    @Test("Candidate list: $BROWSER entries then xdg-open")
    func commandList() {
        #expect(BrowserLauncher.commands(browser: "firefox:chromium --app=%s::", url: "U") == [["firefox", "U"], ["chromium", "--app=U"], ["xdg-open", "U"]])
        #expect(BrowserLauncher.commands(browser: nil, url: "U") == [["xdg-open", "U"]])
    }
}
