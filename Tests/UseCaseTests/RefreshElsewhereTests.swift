import AppCore
import CredentialStore
import Foundation
import Testing

/// A refresh that another process is legitimately waiting for (it
/// holds the account's lock) is "refreshing (another process)"; only with the lock free is the
/// outcome of the marked refresh unknown. Stub environment (the in-memory store's locks).
@Suite("A refresh held by another process is not an unknown outcome (LoadAccounts.overview, stub environment)")
struct RefreshElsewhereTests {
    private func marked(_ world: StubWorld) async throws -> AccountRecord {
        _ = try await signedIn(world)
        var record = try #require(world.accounts.first)
        record.refreshSentAt = t0
        world.files.withLock { $0.accounts = [record] }
        return record
    }

    private func status(_ world: StubWorld, _ snapshot: LoadedSnapshot) throws -> AccountStatus {
        var account = AccountState(record: try #require(snapshot.accounts.first))
        account.refreshingElsewhere = snapshot.refreshingElsewhere.contains(account.id)
        return account.status(now: world.now, policy: .standard, storeLocked: false)
    }

    @Test("RFC 6749 §6 marker set and the account lock held elsewhere: 'refreshing (another process)', no attention needed; the lock is released at once")
    func heldLockIsRefreshingElsewhere() async throws {
        let world = StubWorld()
        let record = try await marked(world)
        let key = AccountKey(provider: "op", account: "alice")
        let held = try #require(try world.secrets.tryLockAccount(key))
        let snapshot = try LoadAccounts(world.environment()).overview()
        #expect(snapshot.refreshingElsewhere == [record.id])
        let status = try status(world, snapshot)
        #expect(status == .refreshingElsewhere)
        #expect(status.label(now: world.now) == "refreshing (another process)")
        #expect(!status.needsAttention)
        held.release()
        let again = try #require(try world.secrets.tryLockAccount(key), "overview never keeps the lock")
        again.release()
    }

    @Test("RFC 6749 §6 marker set and the account lock free: 'refresh outcome unknown'; overview leaves the lock free")
    func freeLockIsOutcomeUnknown() async throws {
        let world = StubWorld()
        _ = try await marked(world)
        let snapshot = try LoadAccounts(world.environment()).overview()
        #expect(snapshot.refreshingElsewhere.isEmpty)
        #expect(try status(world, snapshot) == .refreshOutcomeUnknown)
        let lock = try #require(try world.secrets.tryLockAccount(AccountKey(provider: "op", account: "alice")), "released after the try")
        lock.release()
    }

    @Test("No marker: the lock is not tried, and a held lock alone says nothing (a sign-out or a token read holds it too)")
    func heldLockWithoutMarkerIsNotRefreshing() async throws {
        let world = StubWorld()
        _ = try await signedIn(world)
        let held = try #require(try world.secrets.tryLockAccount(AccountKey(provider: "op", account: "alice")))
        defer { held.release() }
        let snapshot = try LoadAccounts(world.environment()).overview()
        #expect(snapshot.refreshingElsewhere.isEmpty)
        #expect(try status(world, snapshot) == .valid)
    }
}
