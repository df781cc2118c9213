import Foundation
import Testing
@testable import AuthEngine

@Suite("End-session callback verdict (RP-Initiated Logout 1.0 §3)")
struct EndSessionCallbackTests {
    let pending = PendingEndSession(url: URL(string: "https://op.test/logout")!, state: "logout-state-1",
                                    postLogoutRedirectURI: "http://127.0.0.1:5555/logout-callback")

    @Test("RP-Initiated Logout 1.0 §3: the redirect with the sent state finishes with the signed-out page")
    func matchingStateFinishes() {
        let decision = decideEndSessionCallback(
            RedirectCallback(method: "GET", path: "/logout-callback", parameters: [("state", "logout-state-1")]), pending: pending)
        #expect(decision.verdict == .finish(page: .success(title: "Signed out", message: "You can close this tab and return to the terminal.")))
        #expect((try? decision.outcome?.get()) != nil)
    }

    @Test("LOG-03: a redirect without the sent state is not for this logout — ignored (404), the listener keeps waiting", arguments: [
        [(String, String)](), [("state", "forged")], [("state", "")], [("foo", "bar")],
    ])
    func foreignStateIgnored(_ parameters: [(String, String)]) {
        let decision = decideEndSessionCallback(RedirectCallback(method: "GET", path: "/logout-callback", parameters: parameters), pending: pending)
        #expect(decision.verdict == .ignore)
        #expect(decision.outcome == nil)
    }

    @Test("LOG-03: the sent state repeated with another value finishes as not confirmed")
    func repeatedStateFails() {
        let decision = decideEndSessionCallback(
            RedirectCallback(method: "GET", path: "/logout-callback", parameters: [("state", "logout-state-1"), ("state", "x")]), pending: pending)
        guard case .finish(page: .failure) = decision.verdict, case .failure(.protocolViolation(.endSessionStateMismatch)) = decision.outcome else {
            Issue.record("expected the not-confirmed page, got \(decision.verdict)")
            return
        }
    }
}
