@testable import AccountsScreen
import AppCore
import Foundation
import Testing

/// The accounts screen's header says which account the directory it was started in
/// resolves to, and why, when a place chose it (a rule, git config).
@Suite("Accounts screen header: the directory's choice")
struct PlaceHeaderTests {
    @Test("A rule names its account and the rule; git config its file; the active account adds nothing; a rule to a removed account says so and names none")
    func header() {
        let alice = record("alice"), bob = record("bob")
        var state = screenState([alice, bob], active: alice.id)
        #expect(ScreenMapping.model(state).header.activeAccountSource == nil)
        state.app.place = AccountPlace(directory: "/w/x", rule: DirectoryBinding(directory: "/w", account: bob.id))
        var header = ScreenMapping.model(state).header
        #expect(header.activeAccountName == "Bob" && header.activeAccountSource == "rule /w")
        state.app.place = AccountPlace(directory: "/r", gitConfig: GitConfigAccount(value: "local/bob", file: "/r/.git/config", scope: "local"))
        #expect(ScreenMapping.model(state).header.activeAccountSource == "git config (/r/.git/config)")
        state.app.place = AccountPlace(directory: "/w", rule: DirectoryBinding(directory: "/w", account: "local/gone"))
        header = ScreenMapping.model(state).header
        #expect(header.activeAccountName == nil && header.activeAccountSource == "rule /w names local/gone, not signed in")
    }
}
