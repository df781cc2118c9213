@testable import AccountsScreen
import AppCore
import AuthEngine
import Foundation
import StoreTesting
import TerminalUI
import Testing

@Suite("The selection: once, in the screen's state, one rule when the selected account disappears")
struct SelectionTests {
    @Test("The rule: kept while visible; else the row now at its place, else the last; with none, the active account, else the first", arguments: [
        // (selected, before, after, active, expected)
        ("b", ["a", "b", "c"], ["c", "b", "a"], nil, "b"),
        ("b", ["a", "b", "c"], ["a", "c"], nil, "c"),
        ("c", ["a", "b", "c"], ["a", "b"], nil, "b"),
        ("a", ["a"], [], nil, nil),
        (nil, [], ["a", "b", "c"], "b", "b"),
        (nil, [], ["a", "b", "c"], "z", "a"),
        ("z", ["a"], ["a", "b"], "b", "b"),
    ] as [(AccountID?, [AccountID], [AccountID], AccountID?, AccountID?)])
    func rule(selected: AccountID?, before: [AccountID], after: [AccountID], active: AccountID?, expected: AccountID?) {
        #expect(Selection.after(selected, visibleBefore: before, visibleAfter: after, active: active) == expected)
    }

    @Test("Signing out the selected account here selects the one that followed it (the same rule as a reload)")
    func signOutHere() async {
        let alice = record("alice"), bob = record("bob"), carol = record("carol")
        var useCases = UseCaseClient.unimplemented(reportIssue)
        useCases.signOut = { _, _, _ in SignOutOutcome(removed: true, clearedActive: false) }
        var state = screenState([alice, bob, carol])
        state.view.selection = bob.id
        let store = makeStore(state, environment(useCases))
        store.send(.app(.signOut(bob.id, SignOutOptions()))) { $0.app.signOut = SignOutFlow(accountID: bob.id, displayName: "Bob") }
        await store.receive(.app(.signOutFinished(bob.id, SignOutOutcome(removed: true, clearedActive: false)))) {
            $0.app.signOut?.finished = true
            $0.app.accounts = [AccountState(record: alice), AccountState(record: carol)]
            $0.app.flash = flash(.info, "Signed out of Bob")
            $0.view.selection = carol.id
        }
        await store.finish()
    }

    @Test("An account signed out elsewhere (gone at a reload) gives way to the one that followed it; the last to the one before")
    func goneAtReload() {
        let alice = record("alice"), bob = record("bob"), carol = record("carol")
        var state = screenState([alice, bob, carol])
        state.view.selection = bob.id
        let store = makeStore(state)
        let snapshot = { (records: [AccountRecord]) in
            LoadedSnapshot(providers: [localProvider], accounts: records, activeAccountID: nil, credentialStore: StoreInfo(backend: .vault))
        }
        store.send(.app(.loaded(.success(snapshot([alice, carol]))))) {
            $0.app.accounts = [AccountState(record: alice), AccountState(record: carol)]
            $0.view.selection = carol.id
        }
        store.send(.app(.loaded(.success(snapshot([alice]))))) {
            $0.app.accounts = [AccountState(record: alice)]
            $0.view.selection = alice.id
        }
        store.send(.app(.loaded(.success(snapshot([]))))) {
            $0.app.accounts = []
            $0.view.selection = nil
        }
    }

    @Test("The first load selects the active account; a selection moved away from the top keeps its details scrolled to the top and masked")
    func firstLoadSelectsActive() {
        var state = screenState([])
        state.view.selection = nil
        let alice = record("alice"), bob = record("bob")
        let store = makeStore(state)
        store.send(.app(.loaded(.success(LoadedSnapshot(providers: [localProvider], accounts: [bob, alice], activeAccountID: bob.id,
                                                        credentialStore: StoreInfo(backend: .vault)))))) {
            $0.app.accounts = [AccountState(record: alice), AccountState(record: bob)]
            $0.app.activeAccountID = bob.id
            $0.view.selection = bob.id
        }
        store.send(.command(.scrollDetail(by: 3))) { $0.view.scroll = 3 }
        store.send(.command(command(.char("k"), store.state))) {
            $0.view.selection = alice.id
            $0.view.scroll = 0
        }
        // At the top already: nothing moves.
        store.send(.command(command(.char("k"), store.state)))
        store.send(.command(command(.end, store.state))) { $0.view.selection = bob.id }
    }

    @Test("The filter moves the selection over the visible rows only; hiding the selected row selects the one at its place")
    func filterMovesOverVisibleRows() {
        let alice = record("alice"), bob = record("bob"), carol = record("carol"), dan = record("dan")
        let store = makeStore(screenState([alice, bob, carol, dan]))
        store.send(.command(command(.char("/"), store.state))) { $0.view.filter.isEditing = true }
        store.send(.command(command(.char("a"), store.state))) { $0.view.filter.text = "a" }
        // "a": Alice, Carol, Dan (and the provider "Local IdP" has an "a" too: every row).
        store.send(.command(command(.char("r"), store.state))) {
            $0.view.filter.text = "ar"
            $0.view.selection = carol.id
        }
        store.send(.command(command(.enter, store.state))) { $0.view.filter.isEditing = false }
        // j at the only visible row stays there.
        store.send(.command(command(.char("j"), store.state)))
        store.send(.command(command(.escape, store.state))) { $0.view.filter.text = "" }
        store.send(.command(command(.char("j"), store.state))) { $0.view.selection = dan.id }
    }
}
