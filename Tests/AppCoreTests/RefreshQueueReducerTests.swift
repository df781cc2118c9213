import AppCore
import AuthEngine
import Foundation
import Synchronization
import StoreTesting
import Testing

/// Holds each account's refresh until the test opens its gate, and records what ran.
private final class RefreshRecorder: Sendable {
    private let gates: [AccountID: Gate]
    private let state = Mutex((started: [AccountID](), inFlight: 0, maxInFlight: 0))
    init(_ ids: [AccountID], gated: Bool = true) { gates = gated ? Dictionary(uniqueKeysWithValues: ids.map { ($0, Gate()) }) : [:] }

    func refresh(_ id: AccountID, returning record: AccountRecord) async -> Result<AccountRecord, AppError> {
        state.withLock {
            $0.started.append(id)
            $0.inFlight += 1
            $0.maxInFlight = max($0.maxInFlight, $0.inFlight)
        }
        if let gate = gates[id] { await gate.wait() } else { await Task.yield() }
        state.withLock { $0.inFlight -= 1 }
        return .success(record)
    }
    func open(_ id: AccountID) { gates[id]?.open() }
    var started: [AccountID] { state.withLock { $0.started } }
    var maxInFlight: Int { state.withLock { $0.maxInFlight } }
}

/// Accounts a…f, expiring 600–620 s after t0 in a shuffled order, so all are due at t0 + 560.
private let expiries: [(String, Double)] = [("a", 610), ("b", 600), ("c", 605), ("d", 620), ("e", 615), ("f", 601)]
private let due = t0.addingTimeInterval(560)
private func queued(_ name: String, force: Bool = false) -> QueuedRefresh {
    QueuedRefresh(id: AccountID(provider: local, subject: name), force: force, attempt: 0,
                  expiresAt: t0.addingTimeInterval(expiries.first { $0.0 == name }!.1))
}

@Suite("Refresh storm: the scheduler's bound")
struct RefreshQueueReducerTests {
    let records = expiries.map { record($0.0, expiresIn: $0.1) }
    var ids: [AccountID] { records.map(\.id) }

    private func session(_ recorder: RefreshRecorder) -> UseCaseClient {
        var session = UseCaseClient.unimplemented(reportIssue)
        let byID = Dictionary(uniqueKeysWithValues: records.map { ($0.id, $0) })
        session.refresh = { id, _, _ in await recorder.refresh(id, returning: byID[id]!) }
        return session
    }

    @Test("Never more than RefreshQueue.maxInFlight (4) refreshes in flight; the rest wait in expiry order, soonest first, shown as queued")
    func boundAndExpiryOrder() async {
        let recorder = RefreshRecorder(ids)
        let store = makeStore(loadedState(records), session: session(recorder))
        store.send(.tick(due)) {
            $0.now = due
            for index in [0, 1, 2, 5] { $0.accounts[index].refresh = .inFlight(attempt: 0) } // a b c f: the four soonest
            for index in [3, 4] { $0.accounts[index].refresh = .queued }
            $0.refreshQueue = [queued("e"), queued("d")]
        }
        #expect(RefreshQueue.maxInFlight == 4)
        #expect(store.state.status(of: store.state.accounts[3]).label(now: due) == "queued")
        #expect(store.state.status(of: store.state.accounts[0]).label(now: due) == "refreshing")
        // One finishes: the next in expiry order (e, 615 s) takes its slot.
        recorder.open(ids[1])
        await store.receive(.refreshFinished(ids[1], .success(records[1]))) {
            $0.accounts[1].refresh = .idle
            $0.accounts[4].refresh = .inFlight(attempt: 0)
            $0.refreshQueue = [queued("d")]
            $0.flash = Flash(level: .info, text: "Refreshed B", expiresAt: due.addingTimeInterval(6))
        }
        recorder.open(ids[5])
        await store.receive(.refreshFinished(ids[5], .success(records[5]))) {
            $0.accounts[5].refresh = .idle
            $0.accounts[3].refresh = .inFlight(attempt: 0)
            $0.refreshQueue = []
            $0.flash = Flash(level: .info, text: "Refreshed F", expiresAt: due.addingTimeInterval(6))
        }
        for (index, name) in [(2, "C"), (0, "A"), (4, "E"), (3, "D")] {
            recorder.open(ids[index])
            await store.receive(.refreshFinished(ids[index], .success(records[index]))) {
                $0.accounts[index].refresh = .idle
                $0.flash = Flash(level: .info, text: "Refreshed \(name)", expiresAt: due.addingTimeInterval(6))
            }
        }
        await store.finish()
        #expect(recorder.maxInFlight == 4)
        #expect(Set(recorder.started.prefix(4)) == Set([ids[0], ids[1], ids[2], ids[5]]))
        #expect(Array(recorder.started.suffix(2)) == [ids[4], ids[3]])
    }

    @Test("A forced refresh (r) jumps the queue of scheduled ones but still waits for a free slot; single flight stays")
    func manualJumpsTheQueue() async {
        let recorder = RefreshRecorder(ids)
        let store = makeStore(loadedState(records), session: session(recorder))
        store.send(.tick(due)) {
            $0.now = due
            for index in [0, 1, 2, 5] { $0.accounts[index].refresh = .inFlight(attempt: 0) }
            for index in [3, 4] { $0.accounts[index].refresh = .queued }
            $0.refreshQueue = [queued("e"), queued("d")]
        }
        // d expires last but the user asked for it: first in the queue, not started (4 in flight).
        store.send(.refresh(ids[3], force: true)) { $0.refreshQueue = [queued("d", force: true), queued("e")] }
        // Asked again, or asked for one in flight: nothing changes.
        store.send(.refresh(ids[3], force: true))
        store.send(.refresh(ids[0], force: true))
        recorder.open(ids[2])
        await store.receive(.refreshFinished(ids[2], .success(records[2]))) {
            $0.accounts[2].refresh = .idle
            $0.accounts[3].refresh = .inFlight(attempt: 0)
            $0.refreshQueue = [queued("e")]
            $0.flash = Flash(level: .info, text: "Refreshed C", expiresAt: due.addingTimeInterval(6))
        }
        recorder.open(ids[3])
        await store.receive(.refreshFinished(ids[3], .success(records[3]))) {
            $0.accounts[3].refresh = .idle
            $0.accounts[4].refresh = .inFlight(attempt: 0)
            $0.refreshQueue = []
            $0.flash = Flash(level: .info, text: "Refreshed D", expiresAt: due.addingTimeInterval(6))
        }
        for (index, name) in [(0, "A"), (1, "B"), (5, "F"), (4, "E")] {
            recorder.open(ids[index])
            await store.receive(.refreshFinished(ids[index], .success(records[index]))) {
                $0.accounts[index].refresh = .idle
                $0.flash = Flash(level: .info, text: "Refreshed \(name)", expiresAt: due.addingTimeInterval(6))
            }
        }
        await store.finish()
        #expect(recorder.started.count == 6) // one request per account
        #expect(recorder.maxInFlight == 4)
    }

    @Test("Signing out of a queued account drops it from the queue: its refresh token is never sent")
    func signOutDropsQueued() async {
        let recorder = RefreshRecorder(ids)
        var session = session(recorder)
        session.signOut = { _, _, _ in SignOutOutcome(removed: true, clearedActive: false) }
        let store = makeStore(loadedState(records), session: session)
        store.send(.tick(due)) {
            $0.now = due
            for index in [0, 1, 2, 5] { $0.accounts[index].refresh = .inFlight(attempt: 0) }
            for index in [3, 4] { $0.accounts[index].refresh = .queued }
            $0.refreshQueue = [queued("e"), queued("d")]
        }
        store.send(.signOut(ids[4], SignOutOptions())) {
            $0.signOut = SignOutFlow(accountID: self.ids[4], displayName: "E")
            $0.accounts[4].refresh = .idle
            $0.refreshQueue = [queued("d")]
        }
        await store.receive(.signOutFinished(ids[4], SignOutOutcome(removed: true, clearedActive: false))) {
            $0.signOut?.finished = true
            $0.accounts.remove(at: 4)
            $0.flash = Flash(level: .info, text: "Signed out of E", expiresAt: due.addingTimeInterval(6))
        }
        // Remaining: a b c d f (e removed; f is now at index 4).
        recorder.open(ids[0])
        await store.receive(.refreshFinished(ids[0], .success(records[0]))) {
            $0.accounts[0].refresh = .idle
            $0.accounts[3].refresh = .inFlight(attempt: 0)
            $0.refreshQueue = []
            $0.flash = Flash(level: .info, text: "Refreshed A", expiresAt: due.addingTimeInterval(6))
        }
        for (id, index, name) in [(ids[1], 1, "B"), (ids[2], 2, "C"), (ids[5], 4, "F"), (ids[3], 3, "D")] {
            recorder.open(id)
            await store.receive(.refreshFinished(id, .success(records.first { $0.id == id }!))) {
                $0.accounts[index].refresh = .idle
                $0.flash = Flash(level: .info, text: "Refreshed \(name)", expiresAt: due.addingTimeInterval(6))
            }
        }
        await store.finish()
        #expect(!recorder.started.contains(ids[4]))
    }

    @Test("An account gone from the files (signed out in another process) leaves the queue on reload")
    func reloadDropsRemoved() async {
        let recorder = RefreshRecorder(ids)
        var session = session(recorder)
        let remaining = records.filter { $0.id != ids[3] }
        session.load = { .success(LoadedSnapshot(providers: [], accounts: remaining, activeAccountID: nil, credentialStore: StoreInfo(backend: .memory))) }
        let store = makeStore(loadedState(records), session: session)
        store.send(.tick(due)) {
            $0.now = due
            for index in [0, 1, 2, 5] { $0.accounts[index].refresh = .inFlight(attempt: 0) }
            for index in [3, 4] { $0.accounts[index].refresh = .queued }
            $0.refreshQueue = [queued("e"), queued("d")]
        }
        store.send(.reload)
        await store.receive(.loaded(.success(LoadedSnapshot(providers: [], accounts: remaining, activeAccountID: nil, credentialStore: StoreInfo(backend: .memory))))) {
            $0.accounts.remove(at: 3)
            $0.refreshQueue = [queued("e")]
        }
        for (id, name) in [(ids[0], "A"), (ids[1], "B"), (ids[2], "C"), (ids[5], "F"), (ids[4], "E")] {
            recorder.open(id)
            await store.receive(.refreshFinished(id, .success(records.first { $0.id == id }!))) {
                let index = $0.accounts.firstIndex { $0.id == id }!
                $0.accounts[index].refresh = .idle
                if id == self.ids[0] {
                    $0.accounts[3].refresh = .inFlight(attempt: 0) // e takes a's slot
                    $0.refreshQueue = []
                }
                $0.flash = Flash(level: .info, text: "Refreshed \(name)", expiresAt: due.addingTimeInterval(6))
            }
        }
        await store.finish()
        #expect(!recorder.started.contains(ids[3]))
    }

    @Test("Refresh storm through the runtime Store: 40 accounts due in the same second, all refreshed, never more than 4 in flight")
    func stormThroughTheStore() async {
        let storm = (0..<40).map { record(String(format: "user%02d", $0), expiresIn: 600 + Double($0 % 7)) }
        let recorder = RefreshRecorder(storm.map(\.id), gated: false)
        var session = UseCaseClient.unimplemented(reportIssue)
        session.refresh = { id, _, _ in
            let refreshed = { var r = storm.first { $0.id == id }!; r.lastRefreshAt = due; return r }()
            return await recorder.refresh(id, returning: refreshed)
        }
        let store = Store(initialState: loadedState(storm), reduce: AppReducer(dependencies: AppDependencies(useCases: session)).reduce)
        store.send(.tick(due))
        let afterTick = store.state
        #expect(afterTick.accounts.count { if case .inFlight = $0.refresh { true } else { false } } <= RefreshQueue.maxInFlight)
        // Wait for the last result (a safety deadline, not a timed assertion).
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, store.state.accounts.contains(where: { $0.record.lastRefreshAt == nil }) {
            try? await Task.sleep(for: .milliseconds(5))
        }
        #expect(store.state.accounts.allSatisfy { $0.record.lastRefreshAt == due && $0.refresh == .idle })
        #expect(store.state.refreshQueue.isEmpty)
        #expect(recorder.started.count == 40)
        #expect(recorder.maxInFlight <= RefreshQueue.maxInFlight)
        #expect(recorder.maxInFlight >= 1)
    }
}
