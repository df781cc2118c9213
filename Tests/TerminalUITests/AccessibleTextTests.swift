import AppCore
import Foundation
import Testing
import TerminalUI

/// ``AccessibleText``: the accessible mode's lines from the screen model, and typed lines read
/// back as keys through the same bindings.
@Suite("The accessible mode's words")
struct AccessibleTextTests {
    static let signIn = SignInDialog(providers: [ProviderOption(id: "local", name: "Local demo", detail: "http://127.0.0.1:8000/o"),
                                                 ProviderOption(id: "gh", name: "GitHub", detail: "preset")], addFromPreset: true)

    /// No line holds an escape, a control character or a cursor glyph: a screen reader reads every one as it is.
    static func plain(_ lines: [String]) -> Bool {
        lines.allSatisfy { line in !line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) } }
    }

    @Test("A secret typed is not echoed: the preset form's client secret and a pasted redirect say so; other fields and the screen do not")
    func secretsNotEchoed() {
        let form = { (focus: PresetForm.Field) in
            PresetFormDialog(choices: [.init(name: "auth0", displayName: "Auth0")], selected: 0,
                             fields: [.init(kind: .clientSecret, label: "Client secret", value: "")], focused: focus)
        }
        #expect(AccessibleText.typesSecret(Fixtures.screen(dialog: .presetForm(form(.clientSecret)))))
        #expect(!AccessibleText.typesSecret(Fixtures.screen(dialog: .presetForm(form(.clientID)))))
        let waiting = BrowserWaitingDialog(providerName: "Local demo", url: "http://127.0.0.1/authorize")
        #expect(!AccessibleText.typesSecret(Fixtures.screen(dialog: .browserWaiting(waiting))))
        var pasting = waiting
        pasting.paste = .init(typedCount: 0)
        #expect(AccessibleText.typesSecret(Fixtures.screen(dialog: .browserWaiting(pasting))))
        #expect(!AccessibleText.typesSecret(Fixtures.screen()))
    }

    @Test("The screen in order: the accounts numbered with their state and time left in words, then the selected account's tab, field by field")
    func screenInOrder() {
        let lines = AccessibleText.screen(Fixtures.screen())
        #expect(lines.prefix(4) == [
            "Accounts, 3:",
            "1. alice@example.test at Local IdP: valid, access token valid for 4 minutes, active, selected",
            "2. Bob Builder at Auth0: expiring soon, access token valid for 42 seconds",
            "3. carol at GitHub: refresh failed, retrying in 8s, access token expired",
        ])
        #expect(lines[4] == "Details of alice@example.test at Local IdP, Overview tab (keys 1 to 6 choose a tab):")
        #expect(lines.contains("Provider: Local IdP") && lines.contains("Subject: 248289761001"), "\(lines)")
        #expect(!lines.joined().contains("█") && Self.plain(lines), "no bars, no control characters: \(lines)")
    }

    @Test("The Overview's time line is said in words after the tab's title, never drawn; the last refresh's changes are read as lines")
    func timelineInWords() {
        var model = Fixtures.screen()
        model.detail?.overview.timeline = GrantTimeline(accessToken: .init(start: pinnedNow.addingTimeInterval(-60), end: pinnedNow.addingTimeInterval(240)),
                                                        plannedRefresh: pinnedNow.addingTimeInterval(180), refreshes: [pinnedNow.addingTimeInterval(-60)])
        model.detail?.overview.lastRefreshChanges = ["refresh token rotated: yes (a new one replaced it)"]
        let lines = AccessibleText.screen(model)
        #expect(lines[5].hasPrefix("Time line: access token 1m gone, ends in 4m") && lines[5].contains("next refresh planned in 3m"), "\(lines)")
        #expect(!lines.joined().contains(where: { "░█│↻◇".contains($0) }), "no picture read aloud: \(lines)")
        #expect(lines.contains("refresh token rotated: yes (a new one replaced it)"), "\(lines)")
    }

    @Test("The sign-in dialog: numbered choices, a number typed chooses one (the same keys as the screen), a plain question")
    func numberedSignIn() {
        let lines = AccessibleText.dialog(.signIn(Self.signIn), now: pinnedNow)
        #expect(lines[0].hasPrefix("Sign in. Which provider?"))
        #expect(lines[1...3] == ["1. Local demo http://127.0.0.1:8000/o (chosen)", "2. GitHub preset", "3. Add a provider from a preset"])
        let model = Fixtures.screen(dialog: .signIn(Self.signIn))
        #expect(AccessibleText.request("2", model: model) == .keys([.down]))
        #expect(AccessibleText.request("3", model: model) == .keys([.down, .down]))
        #expect(AccessibleText.request("9", model: model) == .keys([.char("9")]), "not a choice: the key itself (unhandled, said so)")
        var second = Self.signIn
        second.selectedProvider = 1
        #expect(AccessibleText.request("1", model: Fixtures.screen(dialog: .signIn(second))) == .keys([.up]))
        #expect(KeyBindings.dispatch(.down, model: model) == .command(.dialogMove(by: 1)))
    }

    @Test("Typed lines: a key, a key's name, Enter for an empty line, read/keys/time, and text (then Enter) in a text field")
    func typedLines() {
        let screen = Fixtures.screen()
        #expect(AccessibleText.request("r", model: screen) == .keys([.char("r")]))
        #expect(AccessibleText.request(" Down ", model: screen) == .keys([.down]))
        #expect(AccessibleText.request("", model: screen) == .keys([.enter]))
        #expect(AccessibleText.request("escape", model: screen) == .keys([.escape]))
        #expect(AccessibleText.request("read", model: screen) == .read)
        #expect(AccessibleText.request("keys", model: screen) == .listKeys)
        #expect(AccessibleText.request("time", model: screen) == .time)
        var filtering = screen
        filtering.filter.isEditing = true
        #expect(AccessibleText.request("bob", model: filtering) == .keys([.char("b"), .char("o"), .char("b"), .enter]))
        #expect(AccessibleText.request("escape", model: filtering) == .keys([.escape]))
    }

    @Test("Every key that works is listed in words, with what it does")
    func keysInWords() {
        let lines = AccessibleText.keys(Fixtures.screen())
        #expect(lines.contains("  j or k or down or up: Select the next / previous account"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("  l: Sign in") }, "\(lines)")
        #expect(!lines.joined().contains("↑") && Self.plain(lines))
    }

    @Test("Changes of the screen said once: the selection, a tab, a dialog opened then only its changed lines, closed")
    func screenChanges() {
        let before = Fixtures.screen()
        var moved = before
        moved.selection = "bob"
        #expect(AccessibleText.changed(from: before, to: moved) == ["Selected: 2. Bob Builder at Auth0: expiring soon, access token valid for 42 seconds, selected"])
        #expect(AccessibleText.changed(from: moved, to: moved).isEmpty)
        let tab = Fixtures.screen(tab: .scopes)
        #expect(AccessibleText.changed(from: before, to: tab).first?.hasSuffix("Scopes tab (keys 1 to 6 choose a tab):") == true)
        let opened = Fixtures.screen(dialog: .signIn(Self.signIn))
        #expect(AccessibleText.changed(from: before, to: opened) == AccessibleText.dialog(.signIn(Self.signIn), now: pinnedNow))
        var next = Self.signIn
        next.selectedProvider = 1
        #expect(AccessibleText.changed(from: opened, to: Fixtures.screen(dialog: .signIn(next))) == ["2. GitHub preset (chosen)"])
        #expect(AccessibleText.changed(from: opened, to: before) == ["Dialog closed."])
    }
}
