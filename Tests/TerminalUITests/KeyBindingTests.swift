import AppCore
import Foundation
import Testing
@testable import TerminalUI

@Suite("Key bindings as data: dispatch, footer, help")
struct KeyBindingTests {
    @Test("Keys on the accounts pane map to intents", arguments: [
        (KeyEvent.char("j"), UICommand.moveSelection(by: 1)),
        (.down, .moveSelection(by: 1)),
        (.char("k"), .moveSelection(by: -1)),
        (.up, .moveSelection(by: -1)),
        (.enter, .makeActive("alice")),
        (.char("l"), .openSignIn),
        (.char("o"), .requestSignOut("alice")),
        (.char("r"), .refresh("alice")),
        (.char("u"), .fetchUserinfo("alice")),
        (.char("i"), .introspect("alice")),
        (.char("c"), .copyAccessToken("alice")),
        (.char("v"), .toggleReveal),
        (.tab, .nextTab),
        (.char("3"), .selectTab(.idToken)),
        (.char("6"), .selectTab(.raw)),
        (.char("/"), .startFilter),
        (.char("t"), .nextTheme),
        (.char("?"), .toggleHelp),
        (.char("q"), .quit),
    ])
    func accountsPane(key: KeyEvent, expected: UICommand) {
        #expect(KeyBindings.dispatch(key, model: Fixtures.screen()) == .command(expected))
    }

    @Test("Destructive sign-out goes through the confirm dialog")
    func signOutConfirm() {
        #expect(KeyBindings.table(.accounts).first { $0.keys.contains(.char("o")) }!.isDestructive)
        let confirm = SignOutConfirmDialog(accountID: "alice", accountName: "alice", willRevoke: true, willEndSession: false)
        let m = Fixtures.screen(dialog: .signOutConfirm(confirm))
        #expect(KeyBindings.dispatch(.char("y"), model: m) == .command(.confirmSignOut("alice")))
        #expect(KeyBindings.dispatch(.escape, model: m) == .command(.cancel))
        #expect(KeyBindings.dispatch(.char("q"), model: m) == .unhandled)
        // Enter out of habit after `o` does not sign out: only `y` confirms.
        #expect(KeyBindings.dispatch(.enter, model: m) == .unhandled)
    }

    @Test("Read-only mode removes destructive bindings (k9s ClearDanger)")
    func readOnly() {
        var m = Fixtures.screen()
        m.readOnly = true
        #expect(KeyBindings.dispatch(.char("o"), model: m) == .unhandled)
        #expect(!KeyBindings.footerHints(for: m).contains { $0.label == "sign out" })
    }

    @Test("Disabled bindings report why", arguments: [
        (AccountStatus.needsSignIn, KeyEvent.char("r"), "alice@example.test needs to sign in again"),
        (.storeLocked, .char("c"), "the credential store is locked"),
    ])
    func disabled(status: AccountStatus, key: KeyEvent, reason: String) {
        var m = Fixtures.screen()
        m.accounts[0].status = status
        #expect(KeyBindings.dispatch(key, model: m) == .disabled(reason))
    }

    @Test("No selection: account actions are disabled")
    func noSelection() {
        var m = Fixtures.screen()
        m.selection = nil
        #expect(KeyBindings.dispatch(.enter, model: m) == .disabled("no account selected"))
    }

    @Test("Filter editing takes printable keys")
    func filterEditing() {
        var m = Fixtures.screen()
        m.filter = FilterState(text: "ali", isEditing: true)
        #expect(KeyBindings.dispatch(.char("c"), model: m) == .command(.setFilter("alic")))
        #expect(KeyBindings.dispatch(.char("q"), model: m) == .command(.setFilter("aliq")))
        #expect(KeyBindings.dispatch(.backspace, model: m) == .command(.setFilter("al")))
        #expect(KeyBindings.dispatch(.escape, model: m) == .command(.endFilter(keep: false)))
    }

    @Test("Sign-in dialog: provider choice, fields and text entry")
    func signInDialog() {
        var d = SignInDialog(providers: [ProviderOption(id: "a", name: "A"), ProviderOption(id: "b", name: "B")])
        #expect(KeyBindings.dispatch(.char("j"), model: Fixtures.screen(dialog: .signIn(d))) == .command(.dialogMove(by: 1)), "j/k move on the provider list")
        #expect(KeyBindings.dispatch(.char("k"), model: Fixtures.screen(dialog: .signIn(d))) == .command(.dialogMove(by: -1)))
        #expect(KeyBindings.dispatch(.pageDown, model: Fixtures.screen(dialog: .signIn(d))) == .command(.dialogMove(by: 10)))
        #expect(KeyBindings.dispatch(.down, model: Fixtures.screen(dialog: .signIn(d))) == .command(.dialogMove(by: 1)))
        #expect(KeyBindings.dispatch(.tab, model: Fixtures.screen(dialog: .signIn(d))) == .command(.dialogNextField))
        #expect(KeyBindings.dispatch(.enter, model: Fixtures.screen(dialog: .signIn(d))) == .command(.dialogSubmit))
        d.focusedField = .audience
        d.audience = "https://api"
        #expect(KeyBindings.dispatch(.char("x"), model: Fixtures.screen(dialog: .signIn(d))) == .command(.dialogSetText("https://apix")))
    }

    @Test("Mouse: a click on a row selects that account; on a tab selects the tab")
    func mouse() {
        let size = Size(width: 100, height: 30)
        // Rows start inside the box at y = 2; two rows per account: bob is at y 4–5.
        #expect(KeyBindings.dispatch(.mouse(x: 5, y: 4), model: Fixtures.screen(), size: size) == .command(.select("bob")))
        #expect(KeyBindings.dispatch(.mouse(x: 5, y: 7), model: Fixtures.screen(), size: size) == .command(.select("carol")))
        // Tab bar at 100×30: " 1 Overview  2 Scopes  3 ID …" starts at x = 41 on row 2.
        #expect(KeyBindings.dispatch(.mouse(x: 56, y: 2), model: Fixtures.screen(), size: size) == .command(.selectTab(.scopes)))
        #expect(KeyBindings.dispatch(.mouse(x: 43, y: 2), model: Fixtures.screen(), size: size) == .command(.selectTab(.overview)))
        #expect(KeyBindings.dispatch(.mouse(x: 56, y: 5), model: Fixtures.screen(), size: size) == .unhandled)
    }

    @Test("Footer hints and help come from the same tables")
    func footerAndHelpConsistency() {
        let m = Fixtures.screen()
        let hints = KeyBindings.footerHints(for: m)
        let footerBindings = KeyBindings.contexts(for: m).flatMap { KeyBindings.table($0) }.filter(\.showInFooter)
        #expect(hints.map(\.label) == footerBindings.map(\.shortDescription))
        let help = KeyBindings.helpSections(for: m).flatMap(\.bindings).map(\.description)
        for b in KeyBindings.contexts(for: m).flatMap({ KeyBindings.table($0) }) {
            #expect(help.contains(b.description), "help misses \(b.description)")
        }
        let f = Renderer.render(m, size: Size(width: 160, height: 30), theme: BuiltInThemes.monochrome)
        let footer = f.plainText.split(separator: "\n", omittingEmptySubsequences: false).last!
        for h in hints { #expect(footer.contains(h.key + " " + h.label)) }
    }

    @Test("Every key in a table is bound once per context")
    func noDuplicateKeys() {
        for ctx in KeyContext.allCases {
            let keys = KeyBindings.table(ctx).flatMap(\.keys)
            #expect(keys.count == Set(keys).count, "duplicate key in \(ctx)")
        }
    }
}

@Suite("Detail scrolling")
struct DetailScrollTests {
    @Test("The scroll limit is the content height minus the visible body")
    func scrollLimit() {
        var m = Fixtures.screen(tab: .idToken)
        let size = Size(width: 100, height: 30)
        let limit = Renderer.detailScrollLimit(m, size: size)
        // ID token tab: 25 content lines (signature, header, 17 claim rows, titles, blanks);
        // 23 rows of body at 100×30.
        #expect(limit == 2)
        m.detail!.tab = .overview
        #expect(Renderer.detailScrollLimit(m, size: size) == 0)
    }
}

@Suite("Sign-in dialog editing")
struct SignInDialogTests {
    @Test("Provider choice, field focus, flow toggle and text fields build the request")
    func editing() {
        var d = SignInDialog(providers: [ProviderOption(id: "local", name: "Local IdP"),
                                         ProviderOption(id: "apple", name: "Apple", supportsDevice: false)])
        var handled: Bool
        handled = d.apply(.dialogMove(by: 5))
        #expect(handled)
        #expect(d.selectedProvider == 1)
        handled = d.apply(.dialogMove(by: -1))
        #expect(handled)
        handled = d.apply(.dialogNextField)
        #expect(handled)
        #expect(d.focusedField == .flow)
        handled = d.apply(.dialogToggleFlow)
        #expect(handled)
        #expect(d.flow == .device)
        handled = d.apply(.dialogNextField)
        #expect(handled)
        handled = d.apply(.dialogSetText("offline_access, read:api"))
        #expect(handled)
        handled = d.apply(.dialogNextField)
        #expect(handled)
        handled = d.apply(.dialogSetText(" https://api.example "))
        #expect(handled)
        handled = d.apply(.dialogNextField)
        #expect(handled)
        handled = d.apply(.dialogSetText("https://a https://b"))
        #expect(handled)
        handled = d.apply(.quit)
        #expect(!handled)
        #expect(d.request == SignInRequest(providerID: "local", flow: .device, extraScopes: ["offline_access", "read:api"],
                                           audience: "https://api.example", resources: ["https://a", "https://b"]))
        // A provider without device flow falls back to the browser.
        handled = d.apply(.dialogMove(by: 1))
        #expect(handled)
        #expect(d.flow == .browser)
    }

    @Test("Flow keys act only on the flow field")
    func flowKeysOnlyOnFlowField() {
        var d = SignInDialog(providers: [ProviderOption(id: "a", name: "A")])
        d.focusedField = .provider
        #expect(KeyBindings.dispatch(.right, model: Fixtures.screen(dialog: .signIn(d))) == .unhandled)
        d.focusedField = .flow
        #expect(KeyBindings.dispatch(.right, model: Fixtures.screen(dialog: .signIn(d))) == .command(.dialogToggleFlow))
    }
}
