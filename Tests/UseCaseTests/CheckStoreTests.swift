import AppCore
import AuthEngine
import CredentialStore
import Foundation
import Testing

/// A store whose every read says it is locked (a vault without its passphrase, in `check`'s
/// non-interactive run).
struct LockedSecretStore: SecretStore {
    var kind: SecretStoreKind { .vault }
    static let error = SecretStoreError.passphraseUnavailable(cause: .init("no passphrase (non-interactive)"))
    func load(_ key: AccountKey) throws(SecretStoreError) -> AccountSecrets { throw Self.error }
    func save(_ secrets: AccountSecrets, for key: AccountKey) throws(SecretStoreError) { throw Self.error }
    func delete(_ key: AccountKey) throws(SecretStoreError) { throw Self.error }
    func listAccounts() throws(SecretStoreError) -> [AccountKey] { throw Self.error }
    func tryLockAccount(_ key: AccountKey) throws(SecretStoreError) -> (any AccountLockHandle)? { throw Self.error }
}

@Suite("check and a locked store (use case, stub environment)")
struct CheckStoreTests {
    @Test("Check with a locked store is storeLocked on every run, whatever the backstop (no account due is no 'ok')")
    func lockedStoreEveryRun() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world).record
        var env = world.environment()
        env.credentials.store = { () throws(AppError) in LockedSecretStore() }
        world.advance(60)  // signed in a minute ago: far from the default backstop
        #expect(!CheckAccounts.isDue(alice, now: world.now, backstop: CheckAccounts.Settings().backstop))
        for _ in 0..<2 {
            let error = await #expect(throws: AppError.self) { try await CheckAccounts(env).run([alice], settings: CheckAccounts.Settings()) }
            #expect(error?.disposition == .storeLocked, "\(String(describing: error))")
        }
        #expect(world.provider.count("/token") == 1, "nothing sent: only the sign-in's exchange")
    }

    @Test("An unlocked store with nothing due: ok, and nothing sent")
    func unlockedNothingDue() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world).record
        world.advance(60)
        let outcomes = try await CheckAccounts(world.environment()).run([alice], settings: CheckAccounts.Settings())
        #expect(outcomes.map(\.verdict) == [.ok] && outcomes.first?.refreshed == false)
        #expect(world.provider.count("/token") == 1)
    }
}
