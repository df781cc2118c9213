import AppCore
import AuthEngine
import Foundation
import Secrets
import StoreTesting
import Synchronization
import Testing

@Suite("The accounts screen's paste field (a browser on another machine)")
struct PasteRedirectStoryTests {
    @Test("No browser opened here: the field opens, keys edit it (kept redacted), Enter hands the line to the running sign-in once")
    func pasteField() async {
        let alice = record("alice")
        let url = URL(string: "http://127.0.0.1:8000/o/authorize/?client_id=x")!
        let redirect = URL(string: "http://127.0.0.1:49152/callback")!
        let handed = Mutex<[String]>([])
        let gate = Gate()
        var session = UseCaseClient.unimplemented(reportIssue)
        session.pasteRedirect = { line in
            handed.withLock { $0.append(line) }
            gate.open()
        }
        session.signIn = { _, progress in
            progress(.waitingForBrowser(url: url, browserOpened: false))
            progress(.waitingForPaste(redirectURI: redirect, fixedPort: false))
            await gate.wait()
            progress(.pastedRedirectAccepted)
            return .success(SignInOutcome(record: alice, becameActive: true))
        }
        let store = makeStore(loadedState([]), session: session)
        let request = SignInRequest(providerID: local)
        store.send(.signIn(request)) { $0.signIn = SignInFlow(request: request) }
        await store.receive(.signInProgress(.waitingForBrowser(url: url, browserOpened: false))) {
            $0.signIn?.phase = .progress(.waitingForBrowser(url: url, browserOpened: false))
        }
        await store.receive(.signInProgress(.waitingForPaste(redirectURI: redirect, fixedPort: false))) { $0.signIn?.readsPaste = true }
        store.send(.signInPasteSubmit)  // nothing typed: nothing handed over
        store.send(.signInPasteKey("c")) { $0.signIn?.pasted = AuthorizationCode("c") }
        store.send(.signInPasteKey("x")) { $0.signIn?.pasted = AuthorizationCode("cx") }
        store.send(.signInPasteKey(nil)) { $0.signIn?.pasted = AuthorizationCode("c") }
        #expect(!"\(store.state)".contains("pasted: Optional(\"c\")"), "the typed text is redacted in the state's description")
        store.send(.signInPasteSubmit) { $0.signIn?.pasted = nil }
        await store.receive(.signInProgress(.pastedRedirectAccepted)) { $0.signIn?.readsPaste = false }
        await store.receive(.signInFinished(.success(SignInOutcome(record: alice, becameActive: true)))) {
            $0.signIn = nil
            $0.accounts = [AccountState(record: alice)]
            $0.activeAccountID = alice.id
            $0.flash = Flash(level: .info, text: "Signed in as Alice", expiresAt: t0.addingTimeInterval(6))
        }
        await store.finish()
        #expect(handed.withLock { $0 } == ["c"])
    }

    @Test("A refused line is flashed; the field stays open for the next")
    func refusedLine() async {
        var session = UseCaseClient.unimplemented(reportIssue)
        let gate = Gate()
        session.signIn = { _, progress in
            progress(.waitingForPaste(redirectURI: URL(string: "http://127.0.0.1:1/callback")!, fixedPort: true))
            progress(.pastedLineRefused("That address is not this sign-in's redirect."))
            await gate.wait()
            return .failure(.cancelled)
        }
        let store = makeStore(loadedState([]), session: session)
        let request = SignInRequest(providerID: local)
        store.send(.signIn(request)) { $0.signIn = SignInFlow(request: request) }
        await store.receive(.signInProgress(.waitingForPaste(redirectURI: URL(string: "http://127.0.0.1:1/callback")!, fixedPort: true))) {
            $0.signIn?.readsPaste = true
        }
        await store.receive(.signInProgress(.pastedLineRefused("That address is not this sign-in's redirect."))) {
            $0.flash = Flash(level: .warn, text: "That address is not this sign-in's redirect.", expiresAt: t0.addingTimeInterval(6))
        }
        store.send(.cancelSignIn) {
            $0.signIn = nil
            $0.flash = Flash(level: .info, text: "Sign-in cancelled", expiresAt: t0.addingTimeInterval(6))
        }
        gate.open()
        await store.finish()
    }
}
