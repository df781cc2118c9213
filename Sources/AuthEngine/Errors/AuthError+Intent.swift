import Foundation

extension AuthError {
    /// The grant is gone: the user must sign in again (RFC 6749 §5.2 `invalid_grant`,
    /// OIDC Core §12.3), or a refresh answered for another identity (`iss`, `sub`, `aud`, `azp`).
    /// Never retried. A refreshed ID token with another `auth_time` (OIDC Core §12.2) is refused
    /// but ends nothing: the identity is the same, and some providers report the user's latest
    /// login there (django-oauth-toolkit); the previous verified ID token stays.
    public var invalidatesGrant: Bool {
        switch self {
        // GitHub answers a spent or expired refresh token with HTTP 200 `bad_refresh_token`
        // (https://docs.github.com/en/apps/creating-github-apps/authenticating-with-a-github-app/refreshing-user-access-tokens).
        case .errorResponse(let response): response.code == .invalidGrant || response.code == .other("bad_refresh_token")
        case .protocolViolation(.refreshedIDTokenSubjectMismatch), .protocolViolation(.refreshedIDTokenIssuerMismatch),
             .protocolViolation(.refreshedIDTokenAudienceMismatch), .protocolViolation(.refreshedIDTokenAuthorizedPartyMismatch): true
        default: false
        }
    }

    /// Retrying later may succeed: connection failures and timeouts, 5xx and 429, and the
    /// `temporarily_unavailable` / `server_error` codes. See ``retryAfter``.
    public var isTransient: Bool {
        switch self {
        case .transport(let error):
            switch error {
            case .timeout, .connection, .interrupted: true
            case .tls, .responseTooLarge, .insecureURL, .cancelled: false
            }
        case .httpStatus(let failure): failure.status >= 500 || failure.status == 429
        case .errorResponse(let response):
            response.code == .temporarilyUnavailable || response.code == .serverError
                || (response.status >= 500 && response.code != .invalidGrant)
        case .authorizationDenied, .protocolViolation, .unsupported: false
        }
    }

    /// A protocol violation or a security refusal: never auto-retried, always shown.
    public var isSecurityRelevant: Bool {
        switch self {
        case .protocolViolation: true
        case .unsupported(.insecureURL), .unsupported(.encryptedIDToken): true
        case .transport(.tls), .transport(.insecureURL): true
        default: false
        }
    }

    /// Seconds the server asked us to wait (`Retry-After`), when it said.
    public var retryAfter: TimeInterval? {
        switch self {
        case .errorResponse(let response): response.retryAfter
        case .httpStatus(let failure): failure.retryAfter
        default: nil
        }
    }
}

/// `Retry-After` (RFC 9110 §10.2.3): delay-seconds, or an HTTP-date relative to `now`.
/// Returns seconds (never negative), or nil when absent or unparsable.
public func parseRetryAfter(_ value: String?, now: Date) -> TimeInterval? {
    guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
    if let seconds = Int(value), seconds >= 0 { return TimeInterval(seconds) }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
    guard let date = formatter.date(from: value) else { return nil }
    return max(0, date.timeIntervalSince(now))
}
