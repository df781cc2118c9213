import FoundationEssentials

/// An authorization response that passed every check (RFC 6749 §4.1.2, RFC 9207). Only
/// ``validateAuthorizationResponse(callback:pending:metadata:)`` creates one, and the code
/// exchange accepts nothing else (docs/ARCHITECTURE.md, "Refusals").
public struct ValidatedAuthorizationResponse: Sendable, Equatable {
    /// `code`, byte-exact as received (ARES-14).
    public let code: AuthorizationCode
    /// The `iss` parameter, when sent (RFC 9207).
    public let issuer: String?
    /// The pending request this response answers.
    public let pending: PendingAuthorization

    init(code: AuthorizationCode, issuer: String?, pending: PendingAuthorization) {
        self.code = code
        self.issuer = issuer
        self.pending = pending
    }
}

/// Validates the parameters that reached the redirect URI, in this order:
/// 1. the path must equal the pending `redirect_uri`'s (RFC 8252 §8.10);
/// 2. no parameter may repeat (RFC 6749 §3.1, ARES-10c);
/// 3. `state` must equal the sent one (RFC 6749 §10.12) — checked before `error`, so that an
///    error response that does not belong to this sign-in (forged, or from a stale tab) is a
///    state mismatch, with its `error` code kept only as unverified and its `error_description`
///    and `error_uri` dropped: they are never shown as the provider's words;
/// 4. `iss` (RFC 9207 §2.4, which covers error responses too): required when advertised,
///    compared whenever present; a mismatch keeps an `error` code as unverified, as in 3;
/// 5. `code` with `error` is malformed (ARES-10b);
/// 6. `error` → ``AuthError/authorizationDenied(_:)`` (verified: `state` and `iss` matched);
/// 7. `code` is required (ARES-10a).
/// Every comparison is code unit for code unit (``StringProtocol/exactlyEquals(_:)``).
/// Unknown parameters are ignored (ARES-14).
/// - Throws: `.protocolViolation(.redirectPathMismatch / .malformedAuthorizationResponse / .stateMismatch /
///   .authorizationResponseIssuerMismatch / .missingAuthorizationResponseIssuer)`, `.authorizationDenied`.
public func validateAuthorizationResponse(callback: RedirectCallback, pending: PendingAuthorization,
                                          metadata: AuthorizationServerMetadata) throws(AuthError) -> ValidatedAuthorizationResponse {
    let expectedPath = redirectPath(of: pending.redirectURI)
    let actualPath = callback.path.isEmpty ? "/" : callback.path
    guard expectedPath.exactlyEquals(actualPath) else {
        throw .protocolViolation(.redirectPathMismatch(expected: expectedPath, actual: actualPath))
    }

    var seen: [String] = []
    for parameter in callback.parameters {
        guard !seen.containsExactly(parameter.name) else {
            throw .protocolViolation(.malformedAuthorizationResponse(.repeatedParameter(parameter.name)))
        }
        seen.append(parameter.name)
    }
    func value(_ name: String) -> String? { callback.parameters.first { $0.name.exactlyEquals(name) }?.value }
    let code = value("code").flatMap { $0.isEmpty ? nil : $0 }
    let error = value("error").map(OAuthErrorCode.init(rawValue:))
    let state = value("state")
    guard state.exactlyEquals(pending.state) else {
        throw .protocolViolation(.stateMismatch(expected: pending.state, actual: state, unverifiedError: error))
    }
    let issuer = value("iss")
    if let issuer {
        guard issuer.exactlyEquals(pending.expectedIssuer) else {
            throw .protocolViolation(.authorizationResponseIssuerMismatch(expected: pending.expectedIssuer, actual: issuer, unverifiedError: error))
        }
    } else if metadata.authorizationResponseIssParameterSupported == true {
        throw .protocolViolation(.missingAuthorizationResponseIssuer(expected: pending.expectedIssuer, unverifiedError: error))
    }
    if let error {
        if code != nil { throw .protocolViolation(.malformedAuthorizationResponse(.codeAndError)) }
        throw .authorizationDenied(AuthorizationErrorParameters(
            code: error, errorDescription: value("error_description"), uri: value("error_uri"), stateMatched: true))
    }
    guard let code else { throw .protocolViolation(.malformedAuthorizationResponse(.missingCode)) }
    return ValidatedAuthorizationResponse(code: AuthorizationCode(code), issuer: issuer, pending: pending)
}

/// The path of a redirect URI as sent (`/` when empty).
func redirectPath(of redirectURI: String) -> String {
    URL(string: redirectURI).map { $0.path.isEmpty ? "/" : $0.path } ?? "/"
}

/// What the loopback listener does with one request, plus the validation outcome when it finishes.
public struct RedirectCallbackDecision: Sendable {
    public var verdict: RedirectCallbackVerdict
    /// nil while the listener keeps waiting (``RedirectCallbackVerdict/ignore``).
    public var outcome: Result<ValidatedAuthorizationResponse, AuthError>?
}

/// The parameters that make a request on the redirect path an authorization response
/// (RFC 6749 §4.1.2, §4.1.2.1; RFC 9207 §2).
let authorizationResponseParameterNames = ["code", "state", "error", "iss"]

/// Decides the listener's verdict for a request (RFC 8252 §8.10, ARES-11/13):
/// - a method other than `GET`/`POST` (form_post), or a path other than the pending
///   `redirect_uri`'s (`/favicon.ico`, `/`), is not the callback: ignored (404, keep waiting);
/// - so is a request on the redirect path that carries none of `code`, `state`, `error`, `iss`
///   (a reload of the bare URL): it is not an authorization response;
/// - anything else on the redirect path is the authorization response and ends the sign-in:
///   a success page with the validated response, or a failure page with the typed error of
///   ``validateAuthorizationResponse(callback:pending:metadata:)``. A missing or wrong `state`
///   (RFC 6749 §10.12: a forgery, or a stale tab of an earlier sign-in) therefore ends it at
///   once with `.stateMismatch` — no token request follows, nothing is stored — instead of
///   leaving the terminal waiting for the timeout while the browser shows a bare 404. The page
///   says what happened; it never repeats an unverified `error_description`.
///
/// Ending on a mismatch lets any local process that finds the port cancel a pending sign-in;
/// it cannot complete one (no code is redeemed without the sent `state`). The user restarts.
public func decideRedirectCallback(_ callback: RedirectCallback, pending: PendingAuthorization,
                                   metadata: AuthorizationServerMetadata) -> RedirectCallbackDecision {
    guard ["GET", "POST"].containsExactly(callback.method), callback.path.exactlyEquals(redirectPath(of: pending.redirectURI)),
          callback.parameters.contains(where: { authorizationResponseParameterNames.containsExactly($0.name) }) else {
        return RedirectCallbackDecision(verdict: .ignore, outcome: nil)
    }
    do {
        let validated = try validateAuthorizationResponse(callback: callback, pending: pending, metadata: metadata)
        return RedirectCallbackDecision(
            verdict: .finish(page: .success(title: "Signed in", message: "You can close this tab and return to the terminal.")),
            outcome: .success(validated))
    } catch {
        return RedirectCallbackDecision(verdict: .finish(page: redirectFailurePage(for: error)), outcome: .failure(error))
    }
}

/// The browser page for a failed authorization response: it names the kind of failure and
/// never repeats text from the response (an unverified `error_description` least of all).
func redirectFailurePage(for error: AuthError) -> RedirectPage {
    switch error {
    case .protocolViolation(.stateMismatch):
        .failure(title: "Sign-in stopped: state mismatch",
                 message: "This response does not belong to the sign-in authdeck started"
                     + " (a forged request, or a tab left over from an earlier sign-in). "
                     + "Nothing was exchanged or stored. Start the sign-in again from the terminal.")
    case .protocolViolation(.authorizationResponseIssuerMismatch), .protocolViolation(.missingAuthorizationResponseIssuer):
        .failure(title: "Sign-in stopped: issuer mismatch",
                 message: "This response does not come from the provider authdeck signed in with (RFC 9207). "
                     + "Nothing was exchanged or stored. Start the sign-in again from the terminal.")
    case .authorizationDenied(let parameters) where parameters.code == .accessDenied:
        .failure(title: "Access denied", message: "The provider reports that access was denied. Return to the terminal for details.")
    case .authorizationDenied:
        .failure(title: "Authorization failed", message: "The provider returned an error. Return to the terminal for details.")
    default:
        .failure(title: PresentableError(from: error).title, message: "Sign-in did not complete. Return to the terminal for details.")
    }
}
