import AppCore
import Foundation
import Testing

@Suite("AppCore: a refresh held by another process reaches the accounts pane")
struct RefreshElsewhereReducerTests {
    @Test("RFC 6749 §6 marker with the lock held elsewhere: the TUI shows 'refreshing (another process)'; with the lock free 'refresh outcome unknown'")
    func loadedSnapshotMarksAccounts() {
        var alice = record("alice")
        alice.refreshSentAt = t0
        var bob = record("bob")
        bob.refreshSentAt = t0
        let snapshot = LoadedSnapshot(providers: [], accounts: [alice, bob], activeAccountID: nil, credentialStore: StoreInfo(backend: .vault),
                                      refreshingElsewhere: [alice.id])
        var state = AppState(now: t0)
        _ = AppReducer(dependencies: .unimplemented(reportIssue)).reduce(&state, .loaded(.success(snapshot)))
        let shown = Dictionary(uniqueKeysWithValues: state.accounts.map { ($0.id, state.status(of: $0)) })
        #expect(shown[alice.id] == .refreshingElsewhere)
        #expect(shown[bob.id] == .refreshOutcomeUnknown)

        // The other process finished: the next load has the lock free and the marker cleared.
        alice.refreshSentAt = nil
        _ = AppReducer(dependencies: .unimplemented(reportIssue)).reduce(&state, .loaded(.success(
            LoadedSnapshot(providers: [], accounts: [alice, bob], activeAccountID: nil, credentialStore: StoreInfo(backend: .vault)))))
        #expect(state.account(alice.id).map { state.status(of: $0) } == .valid)
    }
}
