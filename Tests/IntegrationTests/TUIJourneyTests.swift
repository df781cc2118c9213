// The whole journey through the real `authdeck` binary's terminal UI under tmux, against the real
// local provider (issues 6 and 8): sign in alice with the browser flow (the browser stand-in as
// $BROWSER), a ticking countdown, the verified ID token, bob by the device flow (approved by the
// helper) with the QR code shown, switching the active account, a refresh by itself as the 30 s
// access token nears expiry, a resize, sign-out of alice with revocation (checked at the
// provider's introspection endpoint), and quitting with the terminal restored.
//
// A capture of the screen at each step is written to test-output/tui-journey/NN-step.txt (kept as
// CI artifacts). Tokens never reach argv: the test reads them in-process from the store.
import AppCore
import AppCoreLive
import AuthEngine
import AuthEngineLive
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The checkout's root (from this file's path).
private let journeyRepositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // IntegrationTests
    .deletingLastPathComponent()  // Tests
    .deletingLastPathComponent()


/// Single-quotes `s` for /bin/sh.
private func journeyShellQuoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }

/// What is left of a screen once what ticks by itself is taken out: every run of digits becomes
/// `#` (countdowns, timestamps, the clock), every countdown bar (block elements) becomes `▒`, and
/// runs of spaces become one (a countdown going from "10s" to "9s" shifts its padding).
private func screenWithoutTicking(_ screen: String) -> String {
    screen.split(separator: "\n", omittingEmptySubsequences: false)
        .map { line in
            line.replacingOccurrences(of: "[0-9]+", with: "#", options: .regularExpression)
                .replacingOccurrences(of: "[▏▎▍▌▋▊▉█░]+", with: "▒", options: .regularExpression)
                .replacingOccurrences(of: " +", with: " ", options: .regularExpression)
        }
        .joined(separator: "\n")
}

/// The screen's lines.
private func screenLines(_ screen: String) -> [Substring] { screen.split(separator: "\n", omittingEmptySubsequences: false) }

/// Whether the accounts pane's selected row (marked ▸) shows `name`.
private func isSelectedRow(_ name: String, in screen: String) -> Bool {
    screenLines(screen).contains { $0.contains("▸") && $0.contains(name) }
}

/// Saves numbered screen captures under test-output/tui-journey/.
private final class JourneyCaptures {
    let directory = journeyRepositoryRoot.appendingPathComponent("test-output/tui-journey")
    private var number = 0

    init() throws {
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    @discardableResult
    func save(_ name: String, _ screen: String) -> String {
        number += 1
        let file = directory.appendingPathComponent((number < 10 ? "0" : "") + "\(number)-\(name).txt")
        try? Data(screen.utf8).write(to: file)
        return screen
    }

    /// Saves a helper's log (never secrets) as `name.log`.
    func saveLog(_ name: String, _ text: String) {
        try? Data(text.utf8).write(to: directory.appendingPathComponent("\(name).log"))
    }
}

@Suite("The TUI journey under tmux: the real binary against the real local provider", .serialized)
struct TUIJourneyTests {
    @Test("Sign in (browser, device), tick, verified ID token, switch, refresh by itself, resize, sign out with revocation, quit")
    func journey() async throws {
        try #require(TmuxSession.tmuxPath != nil, "tmux is required (scripts/apt-packages.txt)")
        let binary = ShippedBinary.path
        try #require(ShippedBinary.problem == nil, "\(ShippedBinary.problem ?? "")")

        let idp = try await LocalIdentityProvider.start(accessTokenLifetime: 30, deviceInterval: 1)
        do {
            try await run(binary: binary, idp: idp)
        } catch {
            await idp.stop()
            throw error
        }
        await idp.stop()
    }

    func run(binary: String, idp: LocalIdentityProvider) async throws {
        let captures = try JourneyCaptures()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-journey-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: scratch) }
        let browserLog = scratch.appendingPathComponent("browser.log")
        let exitFile = scratch.appendingPathComponent("exit-status")
        // The browser stand-in's log (URL paths without query, steps; no secrets) for CI.
        defer { captures.saveLog("browser", (try? String(contentsOf: browserLog, encoding: .utf8)) ?? "") }
        let home = try TemporaryHome(provider: idp, user: "alice", extra: [
            "AUTHDECK_TEST_BROWSER_LOG": browserLog.path, "LANG": "C.UTF-8", "TERM": "tmux-256color",
        ])
        defer { home.remove() }

        // The provider, configured through the CLI.
        let add = try TmuxSession.spawnAndWait(
            [binary, "provider", "add", "local", "--display-name", "Local demo", "--issuer", idp.issuer.absoluteString,
             "--client-id", idp.nativeClient.clientID], environment: home.environment)
        try #require(add.status == 0, "provider add failed: \(add.output)")

        // The shell reaps the TUI, writes its exit status, then idles so the pane stays readable.
        let command = "TERM=tmux-256color \(journeyShellQuoted(binary)); echo $? > \(journeyShellQuoted(exitFile.path)); "
            + "echo TUI-EXITED; exec sleep 600"
        let tmux = try TmuxSession(width: 100, height: 30, command: command, environment: home.environment)
        defer { tmux.kill() }

        /// Polls until `predicate` holds; saves the matching screen, or on failure the last one
        /// (the thrown ``TmuxSessionError/timeout(_:lastScreen:)`` also shows it).
        @discardableResult
        func step(_ name: String, timeout: Double = 30, _ predicate: (String) -> Bool) async throws -> String {
            do {
                return captures.save(name, try await tmux.waitFor(name, timeout: timeout, predicate))
            } catch TmuxSessionError.timeout(let what, let last) {
                captures.save(name + "-FAILED", last)
                throw TmuxSessionError.timeout(what, lastScreen: last)
            }
        }

        // 1. The empty accounts screen.
        try await step("start-empty") { $0.contains("Accounts (0)") && $0.contains("No accounts") && $0.contains("active: none") }

        // 2. Alice by the browser flow: `l`, Enter (browser is the default flow).
        try tmux.sendKeys("l")
        try await step("sign-in-dialog") { $0.contains("┌ Sign in") && $0.contains("Local demo") && $0.contains("(•) browser") }
        try tmux.sendKeys("Enter")
        let alice = try await step("alice-signed-in", timeout: 60) { screen in
            isSelectedRow("Alice Example", in: screen) && screen.contains("active: Alice Example") && !screen.contains("Waiting for the sign-in")
        }
        // The row: selection ▸, active ★, name, provider; under it the status and the countdown.
        let aliceLines = screenLines(alice)
        let rowIndex = try #require(aliceLines.firstIndex { $0.contains("Alice Example") && $0.contains("Local demo") })
        #expect(aliceLines[rowIndex].contains("▸★ Alice Example"), "no active marker: \(aliceLines[rowIndex])")
        let statusLine = String(aliceLines[rowIndex + 1])
        #expect(statusLine.contains("● valid") || statusLine.contains("expiring") || statusLine.contains("refreshing"),
                "no status: \(statusLine)")
        #expect(statusLine.range(of: #"in [0-9]+s"#, options: .regularExpression) != nil, "no countdown: \(statusLine)")

        // 3. The countdown ticks by itself: two captures 1.2 s apart differ, in what ticks only.
        //    A refresh (every ~15 s here) or the end of the flash line may land between them, so
        //    up to five tries.
        var ticked = false
        var pair = ("", "")
        for _ in 0..<5 {
            let a = try tmux.capture()
            try await Task.sleep(for: .milliseconds(1200))
            let b = try tmux.capture()
            pair = (a, b)
            if a != b && screenWithoutTicking(a) == screenWithoutTicking(b) {
                ticked = true
                break
            }
        }
        captures.save("tick-a", pair.0)
        captures.save("tick-b", pair.1)
        #expect(ticked, "two captures 1.2 s apart should differ only in countdowns:\n\(pair.0)\n---\n\(pair.1)")

        // 4. The ID token tab: verified signature and alice's claims.
        try tmux.sendKeys("3")
        let idToken = try await step("id-token-verified") { $0.contains("preferred_username") }
        #expect(idToken.contains("✓ signature verified (RS256, kid "))
        #expect(screenLines(idToken).contains { $0.range(of: #"preferred_username +alice "#, options: .regularExpression) != nil })
        #expect(screenLines(idToken).contains { $0.range(of: #"email +alice@example\.test "#, options: .regularExpression) != nil })
        #expect(screenLines(idToken).contains { $0.range(of: #"sub +1 "#, options: .regularExpression) != nil })

        // 5. Bob by the device flow: `l`, Tab to the Flow field, Space toggles to device, Enter.
        try tmux.sendKeys("l")
        try await step("sign-in-dialog-2") { $0.contains("┌ Sign in") && $0.contains("(•) browser") }
        try tmux.sendKeys("Tab")
        try tmux.sendKeys("Space")
        try await step("device-flow-chosen") { $0.contains("(•) device code") }
        try tmux.sendKeys("Enter")
        let device = try await step("device-dialog", timeout: 60) { screen in
            screen.contains("Copy your one-time code") && screen.contains("▀") && screen.contains("▄")
        }
        // The QR code's finder patterns: "█▀▀▀▀▀█" twice on its top row.
        #expect(screenLines(device).contains { $0.components(separatedBy: "█▀▀▀▀▀█").count - 1 == 2 }, "no QR finder patterns")
        let code = try #require(Self.userCode(in: device), "no user code in:\n\(device)")
        // The same code on a second capture: not read from a half-drawn screen.
        #expect(Self.userCode(in: try tmux.capture()) == code)
        // The helper's log (URL paths and steps, no secrets) is kept next to the captures. One
        // retry: a failure of the helper itself is recorded but does not end the journey.
        var approval = try await idp.approveDevice(userCode: code, user: "bob")
        captures.saveLog("approve-device", approval.stderr)
        if approval.exitCode != 0 {
            Issue.record("approve-device failed (exit \(approval.exitCode)) for code \(code):\n\(approval.stderr)")
            approval = try await idp.approveDevice(userCode: code, user: "bob")
            captures.saveLog("approve-device-retry", approval.stderr)
        }
        #expect(approval.exitCode == 0, "approve-device: \(approval.stderr)")
        try await step("bob-signed-in", timeout: 60) { screen in
            screen.contains("Accounts (2)") && screenLines(screen).contains { $0.contains("│") && $0.contains("Bob Example") }
                && !screen.contains("one-time code")
        }

        // 6. Make bob active: select his row, Enter.
        try await moveSelection(to: "Bob Example", tmux)
        try tmux.sendKeys("Enter")
        let active = try await step("bob-active") { $0.contains("active: Bob Example") }
        #expect(screenLines(active).contains { $0.contains("▸★ Bob Example") })
        #expect(screenLines(active).contains { $0.contains("   Alice Example") }, "alice should no longer be marked active")

        // 7. A refresh by itself: with 30 s access tokens the app refreshes 15 s before expiry.
        try tmux.sendKeys("1")
        let refreshed = try await step("refreshed-by-itself", timeout: 45) { screen in
            guard let last = screenLines(screen).first(where: { $0.contains("Last refresh") }) else { return false }
            return isSelectedRow("Bob Example", in: screen) && !last.contains("never")
        }
        #expect(refreshed.contains("Subject         2"))
        #expect(refreshed.contains("Issuer is plain HTTP on loopback"))

        // 8. Resize mid-way: at 80×24 the accounts still show; then back.
        try tmux.resize(width: 80, height: 24)
        let narrow = try await step("resized-80x24") { screen in
            let l = screenLines(screen)
            return l.count <= 25 && screen.contains("Alice Example") && screen.contains("Bob Example")
        }
        for line in screenLines(narrow) { #expect(line.count <= 80) }
        try tmux.resize(width: 100, height: 30)
        try await step("resized-back") { screenLines($0).contains { $0.count > 80 } && $0.contains("Alice Example") }

        // 9. Sign out alice. Her refresh token is read from the store first (in-process).
        try await moveSelection(to: "Alice Example", tmux)
        try tmux.sendKeys("o")
        try await step("sign-out-confirm") { $0.contains("Sign out Alice Example?") }
        let http = CurlHTTPClient.live()
        let metadata = try await fetchMetadata(issuer: idp.issuer.absoluteString, http: http)
        let client = ClientConfiguration(clientID: idp.nativeClient.clientID)
        // The app rotates her refresh token every ~15 s: read it (and check it is active) just
        // before confirming; a rotation landing in between gets one more read.
        let aliceID = AccountID(provider: ProviderID("local"), subject: "1")  // alice's `sub` is "1"
        var refresh = ""
        var activeBefore = false
        for _ in 0..<3 {
            let stored = try StoredTokens(.live(processEnvironment: home.environment)).run(aliceID)
            refresh = try #require(stored.first { $0.label == "refresh token" }?.value.exposedValue, "alice has no refresh token")
            activeBefore = try await introspectToken(
                metadata: metadata, client: client, token: .refreshToken(RefreshToken(refresh)), http: http, now: Date()).active
            if activeBefore { break }
        }
        #expect(activeBefore, "the refresh token read from the store should be active before sign-out")
        try tmux.sendKeys("y")
        let results = try await step("sign-out-results", timeout: 60) { $0.contains("Done. Enter closes.") }
        #expect(results.contains("✓ revoke refresh token: revoked"), "no revocation result")
        #expect(results.contains("✓ delete local secrets: deleted"), "no deletion result")
        #expect(!results.contains("✗"), "a sign-out step failed")
        try tmux.sendKeys("Escape")
        try await step("alice-gone") { screen in
            // The flash line may still say "Signed out of Alice Example"; the panes must not.
            screen.contains("Accounts (1)") && !screen.contains("Signing out")
                && !screenLines(screen).contains { $0.contains("│") && $0.contains("Alice Example") }
        }

        // RP-Initiated Logout went through the browser stand-in back to authdeck's listener.
        let browserText = (try? String(contentsOf: browserLog, encoding: .utf8)) ?? ""
        #expect(browserText.contains("<h1>Signed in</h1>") && browserText.contains("<h1>Signed out</h1>"),
                "the browser stand-in did not see the success pages")

        // 10. RFC 7662: the provider no longer considers her refresh token active.
        let introspection = try await introspectToken(
            metadata: metadata, client: client, token: .refreshToken(RefreshToken(refresh)), http: http, now: Date())
        #expect(introspection.active == false)

        // 11. Quit: exit status 0 and the terminal restored (normal screen, the shell's output).
        try tmux.sendKeys("q")
        let shell = try await step("quit") { $0.contains("TUI-EXITED") }
        #expect(try tmux.display("#{alternate_on}") == "0")
        #expect(!shell.contains("┌ Accounts"), "the TUI's screen is still shown")
        let status = try String(contentsOf: exitFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(status == "0")
    }

    /// Moves the selection (Up/Down) until the selected row shows `name`.
    func moveSelection(to name: String, _ tmux: TmuxSession) async throws {
        for key in ["Up", "Down"] {
            for _ in 0..<4 {
                if isSelectedRow(name, in: try tmux.capture()) { return }
                try tmux.sendKeys(key)
                try await Task.sleep(for: .milliseconds(300))
            }
        }
        try await tmux.waitFor("\(name) selected", timeout: 5) { isSelectedRow(name, in: $0) }
    }

    /// The user code from the device dialog's box ("║ W D J B - M J H T ║"), without spaces.
    static func userCode(in screen: String) -> String? {
        for line in screenLines(screen) {
            guard let start = line.firstIndex(of: "║") else { continue }
            let rest = line[line.index(after: start)...]
            guard let end = rest.firstIndex(of: "║") else { continue }
            let code = rest[..<end].filter { !$0.isWhitespace }
            if !code.isEmpty { return String(code) }
        }
        return nil
    }
}
