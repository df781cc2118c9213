import AppCore
import AuthEngine
import Foundation
import Synchronization
import Testing

/// A reader of `accounts.json` and `active.json` (no lock, in that order, as `token`
/// and the launcher read them) sees the state before a sign-in or after it, never one between:
/// several accounts and none active ("No active account among 2", exit 2).
@Suite("accounts.json and active.json as a reader sees them during a sign-in (use case, stub environment)")
struct ConsistentFilesTests {
    @Test("After the active account signed out, a login's writes never show a reader several accounts and none active")
    func readerBetweenTheWrites() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world, as: "alice").record
        let bob = try await signedIn(world, as: "bob").record
        #expect(world.active == alice.id)
        _ = await SignOut(world.environment()).run(alice.id, options: SignOutOptions(localOnly: true)) { _ in }
        #expect(world.accounts.map(\.id) == [bob.id] && world.active == nil)

        // After every write of either file, a reader reads both, as `token` does.
        let seen = Mutex<[Result<AccountID, AccountResolutionError>]>([])
        var env = world.environment()
        let base = env.files
        @Sendable func read() {
            let accounts = (try? base.accounts()) ?? []
            let active = (try? base.activeAccount()) ?? nil
            let choice = Result { () throws(AccountResolutionError) -> AccountID in
                try AccountResolution.choose(nil, accounts: accounts, active: active, environmentAccount: nil, place: .nowhere).record.id
            }
            seen.withLock { $0.append(choice) }
        }
        env.files.saveAccount = { record throws(AppError) in
            try base.saveAccount(record)
            read()
        }
        env.files.saveActiveAccount = { id throws(AppError) in
            try base.saveActiveAccount(id)
            read()
        }
        let carol = try await signedIn(world, as: "carol", env: env).record
        #expect(world.active == carol.id)
        let results = seen.withLock { $0 }
        #expect(results.count == 2)
        for result in results {
            switch result {
            case .success(let id): #expect(id == bob.id || id == carol.id, "\(id)")
            case .failure(let error): Issue.record("a reader between the writes: \(error)")
            }
        }
        #expect((try? results.last?.get()) == carol.id)
    }
}
