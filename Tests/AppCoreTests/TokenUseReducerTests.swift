import AppCore
import AuthEngine
import Foundation
import Synchronization
import Testing

/// No hidden refreshes: a copy (`c`) or userinfo (`u`) whose access token is about to expire waits
/// for a manual refresh through the one queue, then runs with the fresh token; the refresh's
/// result reaches the state at once (not with the next reload).
@Suite("Token uses wait for the queue's refresh (no refresh outside the queue)")
struct TokenUseReducerTests {
    @Test("Copy with 5 s left: a manual refresh through the queue first (shown as refreshing), then the copy of the refreshed token")
    func copyWaitsForTheQueue() async {
        let alice = record("alice", expiresIn: 5)
        let refreshed = record("alice", expiresIn: 3600)
        let calls = Mutex<[String]>([])
        var useCases = UseCaseClient.unimplemented(reportIssue)
        useCases.refresh = { _, manual, _ in
            calls.withLock { $0.append("refresh manual=\(manual)") }
            return .success(refreshed)
        }
        useCases.accessToken = { _, _ in
            calls.withLock { $0.append("accessToken") }
            return .success(AccessToken("at-new"))
        }
        let store = makeStore(loadedState([alice]), session: useCases)
        store.send(.copyAccessTokenKeyPressed(alice.id)) {
            $0.accounts[0].afterRefresh = [.copy]
            $0.accounts[0].refresh = .inFlight(attempt: 0)
        }
        await store.receive(.refreshFinished(alice.id, .success(refreshed))) {
            $0.accounts[0].record = refreshed
            $0.accounts[0].refresh = .idle
            $0.accounts[0].afterRefresh = []
            $0.flash = Flash(level: .info, text: "Refreshed Alice", expiresAt: t0.addingTimeInterval(6))
        }
        let note = "Access token sent to the terminal's clipboard (OSC 52; a terminal may ignore it)"
        await store.receive(.accessTokenForCopyResponse(alice.id, .success(AccessToken("at-new")))) {
            $0.clipboard = ClipboardRequest(value: AccessToken("at-new"), note: note)
        }
        #expect(calls.withLock { $0 } == ["refresh manual=true", "accessToken"], "the refresh ran in the queue, before the token was read")
        await store.finish()
    }

    @Test("Userinfo with a token valid for an hour runs at once, with no refresh")
    func freshTokenNoRefresh() async {
        let alice = record("alice", expiresIn: 3600)
        var useCases = UseCaseClient.unimplemented(reportIssue)
        useCases.userinfo = { _ in .success(.object(["sub": .string("alice")])) }
        let store = makeStore(loadedState([alice]), session: useCases)
        store.send(.fetchUserinfo(alice.id)) { $0.accounts[0].userinfo = .loading }
        await store.receive(.userinfoLoaded(alice.id, .success(.object(["sub": .string("alice")])))) {
            $0.accounts[0].userinfo = .loaded(.object(["sub": .string("alice")]))
        }
        await store.finish()
    }

    @Test("A refresh that fails drops what waited for it: no userinfo with the expired token, the refresh's failure is flashed")
    func failedRefreshDropsTheUse() async {
        let alice = record("alice", expiresIn: 5)
        let gone = AppError(title: "invalid_grant", disposition: .needsSignIn)
        var useCases = UseCaseClient.unimplemented(reportIssue)
        useCases.refresh = { _, _, _ in .failure(gone) }
        let store = makeStore(loadedState([alice]), session: useCases)
        store.send(.fetchUserinfo(alice.id)) {
            $0.accounts[0].afterRefresh = [.userinfo]
            $0.accounts[0].refresh = .inFlight(attempt: 0)
        }
        await store.receive(.refreshFinished(alice.id, .failure(gone))) {
            $0.accounts[0].afterRefresh = []
            $0.accounts[0].lastError = gone
            $0.accounts[0].refresh = .needsSignIn
            $0.flash = Flash(level: .warn, text: "Alice needs to sign in again: invalid_grant", expiresAt: t0.addingTimeInterval(6))
        }
        await store.finish()
    }
}
