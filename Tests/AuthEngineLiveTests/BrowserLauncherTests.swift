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
            try writeExecutable(script, text)
        }

        /// The recorded argv (waits up to 5 s for it).
        func recordedArguments() async throws -> [String] {
            let path = directory.path("argv")
            let deadline = Date().addingTimeInterval(5)
            while !FileManager.default.fileExists(atPath: path) {
                guard Date() < deadline else { throw FixtureError("the fake browser did not run") }
                try await Task.sleep(for: .milliseconds(20))
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
    func percentS() async throws {
        let browser = try FakeBrowser()
        defer { browser.directory.remove() }
        let launcher = BrowserLauncher(environment: Self.environment(browser: "\(browser.script) --new-window %s --x"))
        #expect(await launcher.open(Self.url))
        #expect(try await browser.recordedArguments() == ["--new-window", Self.url.absoluteString, "--x"])
    }

    @Test("$BROWSER without %s: the URL is appended as one argument")
    func appended() async throws {
        let browser = try FakeBrowser()
        defer { browser.directory.remove() }
        let launcher = BrowserLauncher(environment: Self.environment(browser: "\(browser.script)   --private"))
        #expect(await launcher.open(Self.url))
        #expect(try await browser.recordedArguments() == ["--private", Self.url.absoluteString])
    }

    @Test("$BROWSER list: a missing first command falls through to the next")
    func colonListMissingFirst() async throws {
        let browser = try FakeBrowser()
        defer { browser.directory.remove() }
        let launcher = BrowserLauncher(environment: Self.environment(browser: "/nonexistent/browser %s:no-such-browser-command:\(browser.script)"))
        #expect(await launcher.open(Self.url))
        #expect(try await browser.recordedArguments() == [Self.url.absoluteString])
    }

    @Test("$BROWSER list: a command that starts and exits non-zero ends the list (it may have opened the page: the URL is opened once)")
    func colonListFailingFirst() async throws {
        let failing = try FakeBrowser(name: "failing", exitStatus: 3)
        defer { failing.directory.remove() }
        let browser = try FakeBrowser()
        defer { browser.directory.remove() }
        let launcher = BrowserLauncher(environment: Self.environment(browser: "\(failing.script):\(browser.script)"))
        #expect(await launcher.open(Self.url) == false, "the caller prints the URL")
        #expect(failing.ran)
        #expect(!browser.ran, "no second program opens the same URL")
    }

    @Test("No launcher found ($BROWSER missing, no xdg-open on PATH): returns false")
    func nothingFound() async {
        let launcher = BrowserLauncher(environment: ["BROWSER": "/nonexistent/browser", "PATH": "/nonexistent-dir"])
        #expect(await launcher.open(Self.url) == false)
    }

    @Test("Detached: returns without waiting for the browser, which runs in its own process group")
    func detached() async throws {
        let browser = try FakeBrowser(sleep: 10)
        defer { browser.directory.remove() }
        let started = Date()
        let launcher = BrowserLauncher(environment: Self.environment(browser: browser.script))
        #expect(await launcher.open(Self.url))
        #expect(Date().timeIntervalSince(started) < 8) // the fake browser runs 10 s
        _ = try await browser.recordedArguments()
        let ids = try browser.file("pid").split(whereSeparator: \.isWhitespace).map(String.init)
        #expect(ids.count == 2)
        #expect(ids.first == ids.last) // process group id == its own pid
        #expect(ids.first != "\(getpgrp())")
        if let pid = Int32(ids[0]) { kill(-pid, SIGKILL) } // its process group: the shell and its sleep
    }

    @Test("The browser's environment has no AUTHDECK secret variables")
    func environmentFiltered() async throws {
        let browser = try FakeBrowser()
        defer { browser.directory.remove() }
        var environment = Self.environment(browser: browser.script)
        environment["AUTHDECK_CLIENT_SECRET"] = "s3cr3t-value"
        environment["AUTHDECK_VAULT_PASSPHRASE"] = "p4ss-value"
        environment["AUTHDECK_REFRESH_TOKEN"] = "r3fr3sh-value"
        environment["AUTHDECK_CONFIG_DIR"] = "/tmp/config"
        environment["AUTHDECK_TEST_COOKIE_JAR"] = "/tmp/jar"
        #expect(await BrowserLauncher(environment: environment).open(Self.url))
        _ = try await browser.recordedArguments()
        let childEnvironment = try browser.file("env")
        #expect(!childEnvironment.contains("s3cr3t-value"))
        #expect(!childEnvironment.contains("p4ss-value"))
        #expect(!childEnvironment.contains("r3fr3sh-value"))
        #expect(childEnvironment.contains("AUTHDECK_CONFIG_DIR=/tmp/config"))
        #expect(childEnvironment.contains("AUTHDECK_TEST_COOKIE_JAR=/tmp/jar"))
        #expect(childEnvironment.contains("LANG=C.UTF-8"))
    }

    @Test("The browser inherits no descriptors of ours beyond stdin/stdout/stderr")
    func noInheritedDescriptors() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let marker = directory.path("held-open-marker")
        try Data().write(to: URL(fileURLWithPath: marker))
        let held = open(marker, O_RDONLY) // deliberately without O_CLOEXEC, like a lock file
        #expect(held > 2)
        defer { close(held) }
        let script = directory.path("fd-lister")
        try writeExecutable(script, "#!/bin/sh\nfor f in /proc/$$/fd/*; do readlink \"$f\"; done > '\(directory.path("fds.tmp"))'\nmv '\(directory.path("fds.tmp"))' '\(directory.path("fds"))'\n")
        #expect(await BrowserLauncher(environment: Self.environment(browser: script)).open(Self.url))
        let listing = directory.path("fds")
        let deadline = Date().addingTimeInterval(5)
        while !FileManager.default.fileExists(atPath: listing), Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let targets = try String(contentsOfFile: listing, encoding: .utf8)
        #expect(targets.contains("/dev/null"))
        #expect(!targets.contains("held-open-marker"))
    }

    @Test("Output goes to the log path given by the caller")
    func logPath() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let script = directory.path("noisy")
        try writeExecutable(script, "#!/bin/sh\necho \"opening $1\"\necho oops >&2\n")
        let log = directory.path("browser.log")
        #expect(await BrowserLauncher(environment: Self.environment(browser: script), logPath: log).open(Self.url))
        let deadline = Date().addingTimeInterval(5)
        var text = ""
        while !text.contains("oops"), Date() < deadline {
            text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(text == "opening \(Self.url.absoluteString)\noops\n")
    }

    @Test("Candidate list: $BROWSER entries, then xdg-open only with a display (without one it starts a text browser in this terminal)")
    func commandList() {
        #expect(BrowserLauncher.commands(browser: "firefox:chromium --app=%s::", url: "U", graphical: true)
            == [["firefox", "U"], ["chromium", "--app=U"], ["xdg-open", "U"]])
        #expect(BrowserLauncher.commands(browser: nil, url: "U", graphical: true) == [["xdg-open", "U"]])
        #expect(BrowserLauncher.commands(browser: nil, url: "U", graphical: false) == [])
        #expect(BrowserLauncher.commands(browser: "firefox", url: "U", graphical: false) == [["firefox", "U"]])
    }
}

/// Writes an executable script through a close-on-exec descriptor: a plain write could be
/// inherited by a child another test is spawning, and `exec` of a file open for writing fails
/// with ETXTBSY.
func writeExecutable(_ path: String, _ text: String) throws {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
    guard descriptor >= 0 else { throw FixtureError("cannot create \(path)") }
    defer { close(descriptor) }
    let bytes = Array(text.utf8)
    guard write(descriptor, bytes, bytes.count) == bytes.count else { throw FixtureError("cannot write \(path)") }
}
