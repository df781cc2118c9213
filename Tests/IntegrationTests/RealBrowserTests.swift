// One sign-in through a real browser: authdeck (the live environment, as the TUI and CLI use it) starts
// `$BROWSER` = Tests/IdentityProvider/chromium-browser, which drives headless Debian Chromium
// with Selenium through the local provider's real login and consent pages and is redirected to
// authdeck's loopback listener. The test checks the account, the page the browser showed (its
// title and text, from the script's result file) and keeps a screenshot of it in test-output/.
// Chromium, chromium-driver and selenium are required: when missing the test fails, it never skips.
import AppCore
import AppCoreLive
import AuthEngine
import Foundation
import Synchronization
import Testing
import TestSupport

/// What `chromium-browser` saw on the listener's page (`<screenshot>.json`).
struct RealBrowserResult: Decodable {
    let title: String
    let heading: String
    let text: String
    let url: String
    let signedIn: Bool
    let exitCode: Int
    let error: String?
}

/// Progress events, collected from the `@Sendable` progress callback.
final class RealBrowserProgressLog: Sendable {
    private let events = Mutex<[SignInProgress]>([])
    func append(_ event: SignInProgress) { events.withLock { $0.append(event) } }
    var all: [SignInProgress] { events.withLock { $0 } }
}

@Suite("Sign-in through a real browser (headless Chromium)")
struct RealBrowserTests {
    /// The repository root, from this file's path (Tests/IntegrationTests/RealBrowserTests.swift).
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Whether the provider's venv can import selenium (an old venv from before the pin cannot).
    static func venvHasSelenium() throws -> Bool {
        let python = Process()
        python.executableURL = URL(fileURLWithPath: LocalIdentityProvider.pythonPath)
        python.arguments = ["-c", "import selenium"]
        python.standardInput = FileHandle.nullDevice
        python.standardOutput = FileHandle.nullDevice
        python.standardError = FileHandle.nullDevice
        try python.run()
        python.waitUntilExit()
        return python.terminationStatus == 0
    }

    @Test("RFC 8252 §7.3 / §8.12: the system browser (not an embedded one) signs in through the provider's pages and lands on the loopback listener's success page")
    func systemBrowserSignIn() async throws {
        // Fail, do not skip, when the real browser is not installed.
        let chromium = "/usr/bin/chromium"
        let chromedriver = "/usr/bin/chromedriver"
        for program in [chromium, chromedriver] where !FileManager.default.isExecutableFile(atPath: program) {
            Issue.record("\(program) is missing: install the Debian packages chromium and chromium-driver (scripts/bootstrap)")
            return
        }
        let script = LocalIdentityProvider.directory.appendingPathComponent("chromium-browser")
        try #require(FileManager.default.isExecutableFile(atPath: script.path), "\(script.path) is missing or not executable")
        try #require(try Self.venvHasSelenium(), "selenium is not in \(LocalIdentityProvider.pythonPath)'s venv: run scripts/bootstrap")

        let output = Self.repositoryRoot.appendingPathComponent("test-output")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let screenshot = output.appendingPathComponent("real-browser-success.png")
        let resultFile = output.appendingPathComponent("real-browser-success.json")
        let browserLog = output.appendingPathComponent("real-browser.log")
        for stale in [screenshot, resultFile, browserLog] { try? FileManager.default.removeItem(at: stale) }

        let idp = try await LocalIdentityProvider.shared.provider()
        let home = try TemporaryHome(provider: idp, user: "alice", extra: [
            "BROWSER": script.path,
            "AUTHDECK_TEST_USER": "alice",
            "AUTHDECK_TEST_CONSENT": "allow",
            "AUTHDECK_TEST_SCREENSHOT": screenshot.path,
            "AUTHDECK_TEST_BROWSER_LOG": browserLog.path,
            "AUTHDECK_TEST_BROWSER_TIMEOUT": "60",
        ])
        defer { home.remove() }
        let env = AppEnvironment.live(processEnvironment: home.environment, vaultLimits: .minimum, browserTimeout: .seconds(90))
        try env.files.saveProvider(ProviderConfig(id: "local", displayName: "Local demo", issuer: idp.issuer, clientID: idp.nativeClient.clientID))

        let progress = RealBrowserProgressLog()
        let outcome = await UseCaseClient(environment: env).signIn(SignInRequest(providerID: "local"), { progress.append($0) }).map(\.record)
        let log = (try? String(contentsOf: browserLog, encoding: .utf8)) ?? "(no browser log)"

        // authdeck started the browser itself ($BROWSER), it did not fall back to showing the URL.
        let opened = progress.all.contains { if case .waitingForBrowser(_, true) = $0 { true } else { false } }
        #expect(opened, "authdeck did not manage to start \(script.lastPathComponent); browser log:\n\(log)")

        let account: AccountRecord
        switch outcome {
        case .success(let record): account = record
        case .failure(let error):
            Issue.record("sign-in failed: \(error.title); browser log:\n\(log)")
            return
        }
        #expect(account.displayName == "Alice Example")
        #expect(account.username == "alice")
        guard case .verified(let algorithm, _)? = account.idToken?.signature else {
            Issue.record("ID token not verified: \(String(describing: account.idToken?.signature))")
            return
        }
        #expect(algorithm == "RS256")

        // The browser finishes reading the page and writes the screenshot after the listener answered.
        #expect(await waitUntil(30) { FileManager.default.fileExists(atPath: resultFile.path) }, "no result file; browser log:\n\(log)")
        let result = try JSONDecoder().decode(RealBrowserResult.self, from: Data(contentsOf: resultFile))
        #expect(result.error == nil, "chromium-browser failed: \(result.error ?? "")")
        #expect(result.exitCode == 0)
        #expect(result.signedIn)
        // The page decideRedirectCallback chose for a valid callback, as the browser rendered it.
        #expect(result.heading == "Signed in")
        #expect(result.title.hasPrefix("Signed in"))
        #expect(result.text.contains("You can close this tab and return to the terminal."))
        let landed = try #require(URL(string: result.url))
        #expect(landed.host == "127.0.0.1" || landed.host == "::1" || landed.host == "[::1]")
        #expect(landed.port != idp.port, "the browser must end on authdeck's listener, not on the provider")
        #expect(landed.path == "/callback")

        let png = try Data(contentsOf: screenshot)
        #expect(png.count > 1000)
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "the screenshot is not a PNG")
    }
}
