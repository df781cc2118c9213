import AppCore
import Foundation
import Testing

@Suite("AppCore: damaged files reach the state")
struct StoreDamageReducerTests {
    @Test("A load with damaged files keeps them in the state (the screen says 'file damaged', not 'No accounts'); accounts show 'file damaged' when the secrets' file is damaged")
    func damageInState() async {
        let alice = record("alice")
        let accountsDamage = FileDamage(file: "/s/accounts.json", damage: "truncated: the JSON stops before it is complete")
        let vaultDamage = FileDamage(file: "/d/secrets.vault", damage: "authentication failed (modified ciphertext or header)")
        let info = StoreInfo(backend: .vault, damage: vaultDamage)
        let snapshot = LoadedSnapshot(providers: [], accounts: [alice], activeAccountID: nil, credentialStore: info, damage: [accountsDamage])
        var state = AppState(now: t0)
        let reducer = AppReducer(dependencies: .unimplemented(reportIssue))
        _ = reducer.reduce(&state, .loaded(.success(snapshot)))
        #expect(state.damage == [accountsDamage, vaultDamage])
        #expect(state.status(of: state.accounts[0]) == .fileDamaged)
        #expect(AccountStatus.fileDamaged.label(now: t0) == "file damaged" && AccountStatus.fileDamaged.needsAttention)
    }

    @Test("A damaged active.json's warning is flashed, and blocks nothing")
    func activeWarning() {
        let snapshot = LoadedSnapshot(providers: [], accounts: [record("alice")], activeAccountID: nil, credentialStore: StoreInfo(backend: .vault),
                                      warnings: ["/s/active.json is damaged (truncated)"])
        var state = AppState(now: t0)
        _ = AppReducer(dependencies: .unimplemented(reportIssue)).reduce(&state, .loaded(.success(snapshot)))
        #expect(state.load == .loaded && state.accounts.count == 1)
        #expect(state.flash?.text.contains("active.json") == true)
    }
}
