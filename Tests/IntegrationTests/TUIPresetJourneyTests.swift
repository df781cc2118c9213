// Through the real `authdeck` binary under tmux: with no provider configured, the sign-in
// dialog's "Add a provider from a preset…" adds one from a user preset file (pointing at the
// bundled local provider, the domain its host and port) through ProviderAdmin's discovery probe,
// selects it, and signs alice in with the browser flow; then E edits its scopes in place.
// Captures go to test-output/tui-preset/.
import Foundation
import Testing
import TestSupport

private let presetJourneyRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

@Suite("The TUI adds a provider from a preset under tmux", .serialized)
struct TUIPresetJourneyTests {
    @Test("Sign-in dialog: Add a provider from a preset… (a user preset for the local provider): a refused probe keeps the fields, then added, selected, signed in")
    func addFromPresetThenSignIn() async throws {
        try #require(TmuxSession.tmuxPath != nil, "tmux is required (scripts/apt-packages.txt)")
        let binary = ShippedBinary.path
        try #require(ShippedBinary.problem == nil, "\(ShippedBinary.problem ?? "")")
        let idp = try await LocalIdentityProvider.start()
        do {
            try await run(binary: binary, idp: idp)
        } catch {
            await idp.stop()
            throw error
        }
        await idp.stop()
    }

    /// The text inside the dialog whose top border starts with `title`, its rows joined with
    /// spaces (the words a wrapped message says, without the panes around the dialog).
    static func dialogText(_ screen: String, title: String) -> String {
        let rows = screen.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0) }
        guard let top = rows.firstIndex(where: { String($0).contains(title) }) else { return "" }
        let titleChars = Array(title)
        let row = rows[top]
        guard let left = (0...max(0, row.count - titleChars.count)).first(where: { Array(row[$0..<min(row.count, $0 + titleChars.count)]) == titleChars }),
              let right = row[left...].firstIndex(of: "┐") else { return "" }
        var words: [String] = []
        for r in rows[(top + 1)...] {
            guard r.count > right, r[left] == "│" else { break }
            words.append(String(r[(left + 1)..<right]).trimmingCharacters(in: .whitespaces))
        }
        return words.filter { !$0.isEmpty }.joined(separator: " ")
    }

    func run(binary: String, idp: LocalIdentityProvider) async throws {
        let captures = presetJourneyRoot.appendingPathComponent("test-output/tui-preset")
        try? FileManager.default.removeItem(at: captures)
        try FileManager.default.createDirectory(at: captures, withIntermediateDirectories: true)
        let home = try TemporaryHome(provider: idp, user: "alice", extra: ["LANG": "C.UTF-8", "TERM": "tmux-256color"])
        defer { home.remove() }

        // The user's preset: the local provider's issuer with its host and port as {domain}.
        let hostPort = "\(idp.issuer.host!):\(idp.issuer.port!)"
        let template = idp.issuer.absoluteString.replacingOccurrences(of: hostPort, with: "{domain}")
        let presets = URL(fileURLWithPath: home.environment["XDG_CONFIG_HOME"]!).appendingPathComponent("authdeck/presets")
        try FileManager.default.createDirectory(at: presets, withIntermediateDirectories: true)
        let preset: [String: Any] = [
            "name": "localdemo", "displayName": "Local demo preset", "identity": "idToken", "revocation": "rfc7009", "logout": "endSession",
            "domain": ["meaning": "the local provider's host and port", "example": "127.0.0.1:8000", "required": true],
            "provider": ["displayName": "Local demo preset", "issuer": template, "scopes": ["openid", "profile", "email", "offline_access"]],
            "sources": ["provider.issuer": "https://openid.net/specs/openid-connect-discovery-1_0.html"],
        ]
        try JSONSerialization.data(withJSONObject: preset).write(to: presets.appendingPathComponent("localdemo.json"))

        let tmux = try TmuxSession(width: 100, height: 34, command: "TERM=tmux-256color \(binary); exec sleep 600", environment: home.environment)
        defer { tmux.kill() }
        var number = 0
        @discardableResult
        func step(_ name: String, timeout: Double = 30, _ predicate: (String) -> Bool) async throws -> String {
            number += 1
            do {
                let screen = try await tmux.waitFor(name, timeout: timeout, predicate)
                try? Data(screen.utf8).write(to: captures.appendingPathComponent("0\(number)-\(name).txt"))
                return screen
            } catch TmuxSessionError.timeout(let what, let last) {
                try? Data(last.utf8).write(to: captures.appendingPathComponent("0\(number)-\(name)-FAILED.txt"))
                throw TmuxSessionError.timeout(what, lastScreen: last)
            }
        }

        try await step("start-empty") { $0.contains("Accounts (0)") }
        try tmux.sendKeys("l")
        try await step("sign-in-dialog") { $0.contains("┌ Sign in") && $0.contains("▸ Add a provider from a preset…") }
        try tmux.sendKeys("Enter")
        try await step("preset-form") { $0.contains("┌ Add a provider from a preset") && $0.contains("▸ auth0") }
        for _ in 0..<12 { try tmux.sendKeys("Down") }
        try await step("preset-chosen") { $0.contains("▸ localdemo") && $0.contains("the local provider's host and port, e.g.") }
        // First a port nothing listens on: the probe's refusal shows in the form, the fields stay.
        try tmux.sendKeys("Tab", "Tab")
        try tmux.sendKeys("-l", "127.0.0.1:1")
        try tmux.sendKeys("Tab")
        try tmux.sendKeys("-l", idp.nativeClient.clientID)
        try await step("preset-filled-wrong-port") { $0.contains("127.0.0.1:1 ") && $0.contains(idp.nativeClient.clientID) }
        try tmux.sendKeys("Enter")
        // In the form's words: its Domain field, never the command line's --issuer or --no-probe.
        let refused = try await step("probe-refused") { $0.contains("Esc goes back") && $0.contains(idp.nativeClient.clientID) && $0.contains("127.0.0.1:1 ") }
        let message = Self.dialogText(refused, title: "┌ Add a provider from a preset")
        #expect(message.contains("Couldn't connect to server. Nothing accepted a connection at 127.0.0.1:1: check the Domain field, and your proxy (HTTPS_PROXY, NO_PROXY). Nothing was added; Enter tries again, Esc goes back."),
                "\(message)")
        #expect(!message.contains("--no-probe") && !message.contains("--issuer"), "\(message)")
        try tmux.sendKeys("BTab", "BSpace")
        try tmux.sendKeys("-l", String(idp.issuer.port!))
        try await step("preset-filled") { $0.contains(hostPort + "▏") && $0.contains(idp.nativeClient.clientID) }
        try tmux.sendKeys("Enter")
        // ProviderAdmin probed discovery and saved it: the sign-in dialog selects it.
        try await step("provider-added") { $0.contains("┌ Sign in") && $0.contains("▸ Local demo preset") }
        try tmux.sendKeys("Enter")
        try await step("alice-signed-in", timeout: 60) { screen in
            screen.contains("Alice Example") && screen.contains("Local demo preset") && !screen.contains("Waiting for the sign-in")
        }
        // E on alice: the Edit provider form over the provider just added; a scope typed, saved after
        // ProviderAdmin.change's probe (as provider set), alice kept.
        try tmux.sendKeys("E")
        try await step("edit-provider-form") { $0.contains("┌ Edit provider") && $0.contains("openid profile email offline_access▏") }
        try tmux.sendKeys("-l", " phone")
        try tmux.sendKeys("Enter")
        try await step("provider-changed") { $0.contains("Changed provider 'localdemo': scopes") && !$0.contains("┌ Edit provider") }
        let providers = URL(fileURLWithPath: home.environment["XDG_CONFIG_HOME"]!).appendingPathComponent("authdeck/providers.json")
        #expect(try String(contentsOf: providers, encoding: .utf8).contains("\"phone\""), "the scope saved")
        try tmux.sendKeys("q")
    }
}
