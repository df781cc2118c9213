import Foundation

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
/// 3. `code` with `error` is malformed (ARES-10b);
/// 4. `error` → ``AuthError/authorizationDenied(_:)`` (read before `state`: `access_denied` is a denial);
/// 5. `code` is required (ARES-10a);
/// 6. `state` must equal the sent one (RFC 6749 §10.12);
/// 7. `iss` (RFC 9207 §2.4): required when advertised, compared whenever present.
/// Unknown parameters are ignored (ARES-14).
/// - Throws: `.protocolViolation(.redirectPathMismatch / .malformedAuthorizationResponse / .stateMismatch /
///   .authorizationResponseIssuerMismatch / .missingAuthorizationResponseIssuer)`, `.authorizationDenied`.
public func validateAuthorizationResponse(callback: RedirectCallback, pending: PendingAuthorization,
                                          metadata: AuthorizationServerMetadata) throws(AuthError) -> ValidatedAuthorizationResponse {
    let expectedPath = URL(string: pending.redirectURI).map { $0.path.isEmpty ? "/" : $0.path } ?? "/"
    let actualPath = callback.path.isEmpty ? "/" : callback.path
    guard expectedPath == actualPath else {
        throw .protocolViolation(.redirectPathMismatch(expected: expectedPath, actual: actualPath))
    }

    var values: [String: String] = [:]
    for parameter in callback.parameters {
        guard values.updateValue(parameter.value, forKey: parameter.name) == nil else {
            throw .protocolViolation(.malformedAuthorizationResponse(.repeatedParameter(parameter.name)))
        }
    }
    let code = values["code"].flatMap { $0.isEmpty ? nil : $0 }
    if let error = values["error"] {
        if code != nil { throw .protocolViolation(.malformedAuthorizationResponse(.codeAndError)) }
        throw .authorizationDenied(AuthorizationErrorParameters(
            code: OAuthErrorCode(rawValue: error), errorDescription: values["error_description"],
            uri: values["error_uri"], stateMatched: values["state"] == pending.state))
    }
    guard let code else { throw .protocolViolation(.malformedAuthorizationResponse(.missingCode)) }
    guard values["state"] == pending.state else {
        throw .protocolViolation(.stateMismatch(expected: pending.state, actual: values["state"]))
    }
    let issuer = values["iss"]
    if let issuer {
        guard issuer == pending.expectedIssuer else {
            throw .protocolViolation(.authorizationResponseIssuerMismatch(expected: pending.expectedIssuer, actual: issuer))
        }
    } else if metadata.authorizationResponseIssParameterSupported == true {
        throw .protocolViolation(.missingAuthorizationResponseIssuer(expected: pending.expectedIssuer))
    }
    return ValidatedAuthorizationResponse(code: AuthorizationCode(code), issuer: issuer, pending: pending)
}

/// What the loopback listener does with one request, plus the validation outcome when it finishes.
public struct RedirectCallbackDecision: Sendable {
    public var verdict: RedirectCallbackVerdict
    /// nil while the listener keeps waiting (``RedirectCallbackVerdict/ignore``).
    public var outcome: Result<ValidatedAuthorizationResponse, AuthError>?
}

/// Decides the listener's verdict for a request (RFC 8252 §8.10, ARES-11/13): a method other
/// than GET/POST, a path other than the pending `redirect_uri`'s, or a request without the sent
/// `state` (absent or different: not for this sign-in, RFC 6749 §10.12 — any local process can
/// reach the port) is ignored (404, keep waiting). A request carrying the sent `state` finishes
/// with a success or failure page (code, `error`, or malformed) and the validated outcome.
public func decideRedirectCallback(_ callback: RedirectCallback, pending: PendingAuthorization,
                                   metadata: AuthorizationServerMetadata) -> RedirectCallbackDecision {
    let expectedPath = URL(string: pending.redirectURI).map { $0.path.isEmpty ? "/" : $0.path } ?? "/"
    guard ["GET", "POST"].contains(callback.method.uppercased()), callback.path == expectedPath,
          callback.parameters.contains(where: { $0.name == "state" && $0.value == pending.state }) else {
        return RedirectCallbackDecision(verdict: .ignore, outcome: nil)
    }
    do {
        let validated = try validateAuthorizationResponse(callback: callback, pending: pending, metadata: metadata)
        return RedirectCallbackDecision(
            verdict: .finish(page: .success(title: "Signed in", message: "You can close this tab and return to the terminal.")),
            outcome: .success(validated))
    } catch {
        let presentable = PresentableError(from: error)
        return RedirectCallbackDecision(
            verdict: .finish(page: .failure(title: presentable.title, message: "Sign-in did not complete. Return to the terminal for details.")),
            outcome: .failure(error))
    }
}
