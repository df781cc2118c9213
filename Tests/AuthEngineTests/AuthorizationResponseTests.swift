import Foundation
import Testing
@testable import AuthEngine

@Suite("Authorization response (RFC 6749 §4.1.2, RFC 9207, RFC 8252 §8.10)")
struct AuthorizationResponseTests {
    let pending = OP.pending()

    @Test("ARES-01: code + state + matching iss is accepted; iss is form-decoded")
    func accepts() throws {
        let callback = OP.callback([("code", "c0de/+%x"), ("state", "state-1"), ("iss", "https://op.test")])
        let validated = try validateAuthorizationResponse(callback: callback, pending: pending, metadata: OP.metadata(issSupported: true))
        #expect(validated.code.exposedValue == "c0de/+%x")
        #expect(validated.issuer == "https://op.test")
        #expect(validated.pending == pending)
    }

    @Test("ARES-14: unknown parameters are ignored and a 4 KB code is kept byte-exact")
    func unknownParametersAndLongCode() throws {
        let code = String(repeating: "a%2B/=", count: 700)
        let callback = OP.callback([("session_state", "xyz"), ("code", code), ("foo", "bar"), ("state", "state-1")])
        let validated = try validateAuthorizationResponse(callback: callback, pending: pending, metadata: OP.metadata())
        #expect(validated.code.exposedValue == code)
    }

    @Test("ARES-02, RFC 6749 §10.12: a different or missing state is rejected", arguments: [Optional("state-2"), nil])
    func stateMismatch(_ state: String?) {
        var parameters = [("code", "c")]
        if let state { parameters.append(("state", state)) }
        #expect(authError { try validateAuthorizationResponse(callback: OP.callback(parameters), pending: pending, metadata: OP.metadata()) }
            == .protocolViolation(.stateMismatch(expected: "state-1", actual: state)))
    }

    @Test("ARES-04, RFC 9207 §2.4: a wrong iss is rejected when advertised")
    func issMismatch() {
        let callback = OP.callback([("code", "c"), ("state", "state-1"), ("iss", "https://attacker.test")])
        #expect(authError { try validateAuthorizationResponse(callback: callback, pending: pending, metadata: OP.metadata(issSupported: true)) }
            == .protocolViolation(.authorizationResponseIssuerMismatch(expected: "https://op.test", actual: "https://attacker.test")))
    }

    @Test("ARES-05, RFC 9207 §2.4: a missing iss is rejected when advertised")
    func issMissing() {
        let callback = OP.callback([("code", "c"), ("state", "state-1")])
        #expect(authError { try validateAuthorizationResponse(callback: callback, pending: pending, metadata: OP.metadata(issSupported: true)) }
            == .protocolViolation(.missingAuthorizationResponseIssuer(expected: "https://op.test")))
    }

    @Test("ARES-06(a,b): without advertised support, iss absent or correct is accepted", arguments: [Optional<String>.none, "https://op.test"])
    func issNotAdvertisedAccepted(_ iss: String?) throws {
        var parameters = [("code", "c"), ("state", "state-1")]
        if let iss { parameters.append(("iss", iss)) }
        _ = try validateAuthorizationResponse(callback: OP.callback(parameters), pending: pending, metadata: OP.metadata(issSupported: false))
    }

    @Test("ARES-06(c): without advertised support, a wrong iss is still rejected")
    func issNotAdvertisedWrong() {
        let callback = OP.callback([("code", "c"), ("state", "state-1"), ("iss", "https://op.test/")])
        #expect(authError { try validateAuthorizationResponse(callback: callback, pending: pending, metadata: OP.metadata()) }
            == .protocolViolation(.authorizationResponseIssuerMismatch(expected: "https://op.test", actual: "https://op.test/")))
    }

    @Test("ARES-07, RFC 6749 §4.1.2.1: access_denied with the sent state is a denial, with its description")
    func accessDenied() {
        let parameters = [("error", "access_denied"), ("error_description", "User cancelled"), ("state", "state-1")]
        #expect(authError { try validateAuthorizationResponse(callback: OP.callback(parameters), pending: pending, metadata: OP.metadata()) }
            == .authorizationDenied(AuthorizationErrorParameters(code: .accessDenied, errorDescription: "User cancelled", stateMatched: true)))
    }

    @Test("ARES-02 + ARES-07, RFC 6749 §10.12: an error with a wrong or missing state is a state mismatch; the code is kept unverified, the description dropped",
          arguments: [Optional("other"), nil])
    func errorWithForeignState(_ state: String?) {
        var parameters = [("error", "access_denied"), ("error_description", "Your account is locked, call +1 555 0100")]
        if let state { parameters.append(("state", state)) }
        let error = authError { try validateAuthorizationResponse(callback: OP.callback(parameters), pending: pending, metadata: OP.metadata()) }
        #expect(error == .protocolViolation(.stateMismatch(expected: "state-1", actual: state, unverifiedError: .accessDenied)))
        let shown = error.map(PresentableError.init(from:))
        #expect(shown?.detail.contains("locked") == false)
        #expect(shown?.detail.contains("unverified") == true)
        #expect(error?.isSecurityRelevant == true)
    }

    @Test("ARES-04 + ARES-07, RFC 9207 §2.4: an error with a wrong or missing iss keeps the code unverified, never the description")
    func errorWithForeignIssuer() {
        let wrong = [("error", "access_denied"), ("error_description", "Call us"), ("state", "state-1"), ("iss", "https://attacker.test")]
        #expect(authError { try validateAuthorizationResponse(callback: OP.callback(wrong), pending: pending, metadata: OP.metadata()) }
            == .protocolViolation(.authorizationResponseIssuerMismatch(expected: "https://op.test", actual: "https://attacker.test", unverifiedError: .accessDenied)))
        let missing = [("error", "login_required"), ("error_description", "Call us"), ("state", "state-1")]
        #expect(authError { try validateAuthorizationResponse(callback: OP.callback(missing), pending: pending, metadata: OP.metadata(issSupported: true)) }
            == .protocolViolation(.missingAuthorizationResponseIssuer(expected: "https://op.test", unverifiedError: .loginRequired)))
    }

    @Test("ARES-08, OIDC Core §3.1.2.6: login_required and friends are redirect errors", arguments: [
        "login_required", "interaction_required", "consent_required", "account_selection_required",
    ])
    func promptNoneErrors(_ code: String) {
        let error = authError { try validateAuthorizationResponse(callback: OP.callback([("error", code), ("state", "state-1")]), pending: pending, metadata: OP.metadata()) }
        #expect(error == .authorizationDenied(AuthorizationErrorParameters(code: OAuthErrorCode(rawValue: code), stateMatched: true)))
        #expect(error?.invalidatesGrant == false)
    }

    @Test("ARES-10, RFC 6749 §4.1.2/§3.1: missing code, code with error, repeated parameters are malformed", arguments: [
        ([("state", "state-1")], MalformedAuthorizationResponse.missingCode),
        ([("code", ""), ("state", "state-1")], .missingCode),
        ([("code", "c"), ("error", "access_denied"), ("state", "state-1")], .codeAndError),
        ([("code", "a"), ("code", "b"), ("state", "state-1")], .repeatedParameter("code")),
        ([("code", "a"), ("state", "state-1"), ("state", "state-1")], .repeatedParameter("state")),
    ])
    func malformed(_ parameters: [(String, String)], _ reason: MalformedAuthorizationResponse) {
        #expect(authError { try validateAuthorizationResponse(callback: OP.callback(parameters), pending: pending, metadata: OP.metadata()) }
            == .protocolViolation(.malformedAuthorizationResponse(reason)))
    }

    @Test("ARES-11, RFC 8252 §8.10: another path is never redeemed")
    func wrongPath() {
        let callback = OP.callback([("code", "c"), ("state", "state-1")], path: "/callback2")
        #expect(authError { try validateAuthorizationResponse(callback: callback, pending: pending, metadata: OP.metadata()) }
            == .protocolViolation(.redirectPathMismatch(expected: "/callback", actual: "/callback2")))
    }

    @Test("ARES-11, ARES-13: the listener ignores other paths and methods (404, keep waiting)", arguments: [
        ("GET", "/favicon.ico"), ("GET", "/"), ("GET", "/callback2"), ("HEAD", "/callback"), ("PUT", "/callback"),
    ])
    func verdictIgnores(_ method: String, _ path: String) {
        let decision = decideRedirectCallback(OP.callback([("code", "c"), ("state", "state-1")], path: path, method: method),
                                              pending: pending, metadata: OP.metadata())
        #expect(decision.verdict == .ignore)
        #expect(decision.outcome == nil)
    }

    @Test("Listener verdict: a valid callback finishes with a success page and the validated response (GET and form_post POST)",
          arguments: ["GET", "POST"])
    func verdictSuccess(_ method: String) throws {
        let decision = decideRedirectCallback(OP.callback([("code", "c"), ("state", "state-1")], method: method), pending: pending, metadata: OP.metadata())
        guard case .finish(page: .success) = decision.verdict else { Issue.record("expected success page"); return }
        #expect(try decision.outcome?.get().code.exposedValue == "c")
    }

    @Test("Listener verdict: a callback with the sent state finishes with a failure page when denied or malformed", arguments: [
        [("error", "access_denied"), ("state", "state-1")],
        [("state", "state-1")],
        [("code", "c"), ("error", "access_denied"), ("state", "state-1")],
        [("code", "c"), ("state", "state-1"), ("state", "other")],
    ])
    func verdictFailure(_ parameters: [(String, String)]) {
        let decision = decideRedirectCallback(OP.callback(parameters), pending: pending, metadata: OP.metadata())
        guard case .finish(page: .failure) = decision.verdict, case .failure = decision.outcome else {
            Issue.record("expected failure page")
            return
        }
    }

    @Test("ARES-02, RFC 6749 §10.12: a callback with a missing or wrong state ends the sign-in with a state mismatch and a failure page (no 404, no waiting)", arguments: [
        [("code", "x"), ("state", "wrong")],
        [("code", "x")],
        [("error", "access_denied")],
        [("error", "access_denied"), ("state", "wrong")],
        [("code", "x"), ("state", "")],
        [("state", "wrong")],
    ])
    func verdictEndsOnForeignState(_ parameters: [(String, String)]) {
        let decision = decideRedirectCallback(OP.callback(parameters), pending: pending, metadata: OP.metadata())
        guard case .finish(page: .failure(let title, let message)) = decision.verdict, case .failure(let error) = decision.outcome else {
            Issue.record("expected the sign-in to end with a failure page")
            return
        }
        guard case .protocolViolation(.stateMismatch(let expected, _, _)) = error else {
            Issue.record("expected stateMismatch, got \(error)")
            return
        }
        #expect(expected == "state-1")
        #expect(title.contains("state"))
        #expect(!message.contains("access_denied"))
    }

    @Test("ARES-13: a request on the callback path without any response parameter (a bare reload) is ignored and the listener keeps waiting",
          arguments: [[], [("foo", "bar")]])
    func verdictIgnoresBareCallbackPath(_ parameters: [(String, String)]) {
        let decision = decideRedirectCallback(OP.callback(parameters), pending: pending, metadata: OP.metadata())
        #expect(decision.verdict == .ignore)
        #expect(decision.outcome == nil)
    }

    @Test("ARES-04: an iss mismatch on the redirect ends the sign-in with an issuer failure page")
    func verdictEndsOnForeignIssuer() {
        let decision = decideRedirectCallback(OP.callback([("code", "c"), ("state", "state-1"), ("iss", "https://attacker.test")]),
                                              pending: pending, metadata: OP.metadata(issSupported: true))
        guard case .finish(page: .failure(let title, _)) = decision.verdict,
              case .failure(.protocolViolation(.authorizationResponseIssuerMismatch)) = decision.outcome else {
            Issue.record("expected an issuer failure page")
            return
        }
        #expect(title.contains("issuer"))
    }
}
