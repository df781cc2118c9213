@testable import AccountsScreen
import AppCore
import AuthEngine
import Foundation
import TerminalUI
import Testing

/// The frame a state shows (the screen model, then TerminalUI's renderer, monochrome) against
/// `Snapshots/<name>.txt`: its text, then its role map. `RECORD_SNAPSHOTS=1 swift test --filter
/// GoldenFrameTests` rewrites the files (and fails, so that a recording never passes unseen).
enum Golden {
    static func frame(_ state: AccountsScreen.State, _ width: Int, _ height: Int) -> Frame {
        Renderer.render(AccountsScreen.model(state), size: Size(width: width, height: height), theme: BuiltInThemes.monochrome)
    }

    static func url(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots/\(name).txt")
    }

    static func text(_ frame: Frame) -> String { frame.plainText + "\n── roles ──\n" + frame.roleMap + "\n" }

    /// What differs from the golden (its first differing line), nil when nothing does.
    static func difference(_ frame: Frame, from name: String) -> String? {
        guard let expected = try? String(contentsOf: url(name), encoding: .utf8) else {
            return "no golden \(url(name).path): record it with RECORD_SNAPSHOTS=1"
        }
        let actual = text(frame)
        guard expected != actual else { return nil }
        let e = expected.split(separator: "\n", omittingEmptySubsequences: false), a = actual.split(separator: "\n", omittingEmptySubsequences: false)
        let line = zip(e, a).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(e.count, a.count)
        let expectedLine = line < e.count ? String(e[line]) : "<end>", actualLine = line < a.count ? String(a[line]) : "<end>"
        return "frame \(name) differs at line \(line + 1):\nexpected: \(expectedLine)\nactual:   \(actualLine)\n\n\(frame.plainText)"
    }

    static func check(_ frame: Frame, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" {
            try text(frame).write(to: url(name), atomically: true, encoding: .utf8)
            Issue.record("recorded frame \(name); run again without RECORD_SNAPSHOTS", sourceLocation: sourceLocation)
            return
        }
        if let difference = difference(frame, from: name) { Issue.record(Comment(rawValue: difference), sourceLocation: sourceLocation) }
    }

    /// Three accounts as the files would have them: Alice valid and active, her refresh token
    /// ending in two days ("ending soon"), Bob expiring soon, Carol's grant gone; Alice selected.
    static var threeAccounts: AccountsScreen.State {
        var alice = record("alice")
        alice.refreshTokenExpiresAt = t0.addingTimeInterval(2 * 24 * 3600)
        let bob = record("bob", expiresIn: 3600, issuedAt: t0.addingTimeInterval(-3480))
        var carol = record("carol", expiresIn: -60, refresh: false)
        carol.alias = "work"
        return screenState([alice, bob, carol], active: alice.id)
    }
}

@Suite("Golden frames from the screen's state (80×24, 120×40)")
struct GoldenFrameTests {
    @Test("Three accounts at 80×24: the list, the selected account's overview, the footer")
    func accounts80x24() throws {
        try Golden.check(Golden.frame(Golden.threeAccounts, 80, 24), "accounts-80x24")
    }

    @Test("Alice's overview at 120×40: her refresh token ending soon, the date to sign in again by next to the countdowns")
    func endingSoon120x40() throws {
        try Golden.check(Golden.frame(Golden.threeAccounts, 120, 40), "accounts-ending-soon-120x40")
    }

    @Test("Three accounts at 120×40: Bob's Scopes tab, the detail pane focused")
    func accounts120x40() throws {
        var state = Golden.threeAccounts
        state.view.selection = record("bob").id
        state.view.tab = .scopes
        state.view.focus = .detail
        try Golden.check(Golden.frame(state, 120, 40), "accounts-scopes-120x40")
    }

    @Test("The sign-out question at 80×24 (y signs out)")
    func signOutQuestion() throws {
        var state = Golden.threeAccounts
        state.confirmSignOut = record("alice").id
        try Golden.check(Golden.frame(state, 80, 24), "sign-out-question-80x24")
    }

    @Test("The sign-in form with the presets entry at 120×40, and the preset form at 80×24")
    func signInAndPresetForms() throws {
        var state = Golden.threeAccounts
        state.app.presets = PresetCatalog.builtIn.entries.map(\.preset)
        state.signInForm = SignInDialog(providers: [ProviderOption(id: local, name: "Local IdP", detail: "http://127.0.0.1:8000/o")],
                                        addFromPreset: true)
        try Golden.check(Golden.frame(state, 120, 40), "sign-in-form-120x40")
        state.app.presetForm = PresetForm(presets: state.app.presets)
        try Golden.check(Golden.frame(state, 80, 24), "preset-form-80x24")
    }

    @Test("E's Edit provider form at 80×24: prefilled from the account's provider, the secret as bullets, a refusal in the form")
    func providerEditForm() throws {
        var state = Golden.threeAccounts
        var provider = localProvider
        provider.scopes = ["openid", "profile", "offline_access"]
        provider.gitHosts = [CredentialHost(host: "git.example")]
        state.app.providers = [provider]
        var form = ProviderEditForm(provider: provider)
        form.apply(.previousField)
        form.apply(.setSecret(ClientSecret("s3cret")))
        form.error = "Redirect port 80 cannot be told apart from no port (http://127.0.0.1/callback); register another port"
        state.app.providerEditForm = form
        try Golden.check(Golden.frame(state, 80, 24), "provider-edit-form-80x24")
    }

    @Test("The device flow at 80×24 while slow_down is in effect, without a QR code (none made yet)")
    func deviceFlow() throws {
        var state = Golden.threeAccounts
        let device = DeviceCodeDisplay(userCode: "WDJB-MJHT", verificationURI: URL(string: "http://127.0.0.1:8000/o/device")!,
                                       verificationURIComplete: nil, expiresAt: t0.addingTimeInterval(600), interval: .seconds(10))
        state.app.signIn = SignInFlow(request: SignInRequest(providerID: local, flow: .device),
                                      phase: .progress(.deviceSlowDown(interval: .seconds(10))), device: device, pollStatus: "slow_down")
        try Golden.check(Golden.frame(state, 80, 24), "device-flow-80x24")
    }

    @Test("AUTHDECK_NOTES: blank lines dropped, at most 6 lines of at most 200 characters")
    func notes() {
        let long = String(repeating: "x", count: 250)
        #expect(AccountsScreen.notes(nil) == [])
        #expect(AccountsScreen.notes("a\n\nb\n\(long)\n3\n4\n5\n6\n7") == ["a", "b", String(long.prefix(200)), "3", "4", "5"])
    }

    @Test("A changed state gives a changed frame, and the comparison says where")
    func changedFrameFails() throws {
        var state = Golden.threeAccounts
        state.view.selection = record("bob").id
        let difference = try #require(Golden.difference(Golden.frame(state, 80, 24), from: "accounts-80x24"))
        #expect(difference.contains("differs at line"))
        #expect(Golden.difference(Golden.frame(Golden.threeAccounts, 80, 24), from: "accounts-80x24") == nil)
    }
}

