@testable import AccountsScreen
import AppCore
import Foundation
import StoreTesting
import Synchronization
import Testing

/// The environment's sleep, released one second at a time by the test.
final class Ticker: Sendable {
    private let permits = Mutex<(count: Int, finished: Bool)>((0, false))
    func sleep() async throws {
        while true {
            let go = permits.withLock { p -> Bool? in
                if p.finished { return nil }
                if p.count > 0 { p.count -= 1; return true }
                return false
            }
            guard let go else { throw CancellationError() }
            if go { return }
            try await Task.sleep(for: .milliseconds(2))
        }
    }
    func release() { permits.withLock { $0.count += 1 } }
    func finish() { permits.withLock { $0.finished = true } }
}

@Suite("The screen's clock (the environment's sleep and now)")
struct ClockTests {
    @Test("Start loads and starts the clock: a tick each second while something counts down, every 5 s a tick and a re-read of the files")
    func ticksAndReloads() async {
        let alice = record("alice")
        let snapshot = LoadedSnapshot(providers: [localProvider], accounts: [alice], activeAccountID: nil,
                                      credentialStore: StoreInfo(backend: .vault))
        let ticker = Ticker()
        let now = Mutex(t0)
        var useCases = UseCaseClient.unimplemented(reportIssue)
        useCases.load = { .success(snapshot) }
        var state = screenState([])
        state.view.selection = nil
        state.app.load = .notLoaded
        let store = makeStore(state, environment(useCases, sleep: { _ in try await ticker.sleep() }, now: { now.withLock { $0 } }))
        store.send(.start) {
            $0.app.load = .loading
            $0.nextReloadAt = t0.addingTimeInterval(5)
        }
        await store.receive(.app(.loaded(.success(snapshot)))) {
            $0.app.load = .loaded
            $0.app.accounts = [AccountState(record: alice)]
            $0.view.selection = alice.id
        }
        for second in 1...5 {
            let at = t0.addingTimeInterval(Double(second))
            now.withLock { $0 = at }
            ticker.release()
            await store.receive(.clockTicked(at)) { if second == 5 { $0.nextReloadAt = at.addingTimeInterval(5) } }
            await store.receive(.app(.tick(at))) { $0.app.now = at }
        }
        await store.receive(.app(.reload))
        await store.receive(.app(.loaded(.success(snapshot))))
        ticker.finish()
        await store.finish()
    }

    @Test("With nothing counting down, the clock only re-reads the files every 5 s")
    func quietScreen() async {
        var state = screenState([])
        state.app.load = .notLoaded
        state.nextReloadAt = t0.addingTimeInterval(5)
        let store = makeStore(state)
        store.send(.clockTicked(t0.addingTimeInterval(1)))
        store.send(.clockTicked(t0.addingTimeInterval(5))) { $0.nextReloadAt = t0.addingTimeInterval(10) }
        await store.receive(.app(.tick(t0.addingTimeInterval(5)))) { $0.app.now = t0.addingTimeInterval(5) }
        await store.receive(.app(.reload))
        await store.finish()
    }
}
