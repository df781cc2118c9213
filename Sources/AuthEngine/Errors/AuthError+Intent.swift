import FoundationEssentials
import TextSupport

extension AuthError {
    /// The grant is gone: the user must sign in again (RFC 6749 §5.2 `invalid_grant`,
    /// OIDC Core §12.3), or a refresh answered for another identity (`iss`, `sub`, `aud`, `azp`).
    /// Never retried. A refreshed ID token whose `auth_time` goes back (OIDC Core §12.2) is refused
    /// but ends nothing (the identity is the same; the previous verified ID token stays): it is
    /// ``requiresInteraction``. A later `auth_time` is accepted (``checkRefreshedIdentity(_:original:)``).
    public var invalidatesGrant: Bool {
        switch underlying {
        // GitHub answers a spent or expired refresh token with HTTP 200 `bad_refresh_token`
        // (https://docs.github.com/en/apps/creating-github-apps/authenticating-with-a-github-app/refreshing-user-access-tokens).
        case .errorResponse(let response): response.code == .invalidGrant || response.code == .other("bad_refresh_token")
        case .protocolViolation(.refreshedIDTokenSubjectMismatch), .protocolViolation(.refreshedIDTokenIssuerMismatch),
             .protocolViolation(.refreshedIDTokenAudienceMismatch), .protocolViolation(.refreshedIDTokenAuthorizedPartyMismatch): true
        default: false
        }
    }

    /// Only an interactive sign-in can go on: the provider wants the user (Auth0's `mfa_required`
    /// on a refresh; OIDC Core §3.1.2.6 `interaction_required`, `login_required`,
    /// `consent_required`), or a refreshed ID token's `auth_time` went back (OIDC Core §12.2).
    /// The grant may still be good, but no request without the user helps.
    public var requiresInteraction: Bool {
        if case .protocolViolation(.refreshedIDTokenAuthTimeMismatch) = underlying { return true }
        guard case .errorResponse(let response) = underlying else { return false }
        return [.interactionRequired, .loginRequired, .consentRequired, .other("mfa_required")].contains(response.code)
    }

    /// Retrying later may succeed: connection failures and timeouts, 5xx and 429, and the
    /// `temporarily_unavailable` / `server_error` codes. See ``retryAfter``.
    public var isTransient: Bool {
        switch underlying {
        case .transport(let error):
            switch error {
            case .timeout, .connection, .interrupted: true
            case .tls, .responseTooLarge, .insecureURL, .cancelled: false
            }
        case .httpStatus(let failure): failure.status >= 500 || failure.status == 429
        case .errorResponse(let response):
            response.code == .temporarilyUnavailable || response.code == .serverError || response.status == 429
                || (response.status >= 500 && response.code != .invalidGrant)
        case .authorizationDenied, .protocolViolation, .unsupported, .resourceStep: false
        }
    }

    /// A protocol violation or a security refusal: never auto-retried, always shown.
    public var isSecurityRelevant: Bool {
        switch underlying {
        case .protocolViolation: true
        case .unsupported(.insecureURL), .unsupported(.encryptedIDToken), .unsupported(.redirectToOtherOrigin): true
        case .transport(.tls), .transport(.insecureURL): true
        default: false
        }
    }

    /// Seconds the server asked us to wait (`Retry-After`), when it said.
    public var retryAfter: TimeInterval? {
        switch underlying {
        case .errorResponse(let response): response.retryAfter
        case .httpStatus(let failure): failure.retryAfter
        default: nil
        }
    }
}

/// How long a response asks the client to wait, in seconds: `Retry-After` (``parseRetryAfter(_:now:)``),
/// else `X-RateLimit-Reset` as UTC epoch seconds (Auth0's and GitHub's rate limits send only that
/// with their 429), counted from `now` (never negative); nil when neither is usable.
public func retryDelay(_ response: HTTPResponse, now: Date) -> TimeInterval? {
    if let delay = parseRetryAfter(response.headers["retry-after"], now: now) { return delay }
    guard let text = response.headers["x-ratelimit-reset"]?.trimmingWhitespace(), let epoch = Int64(text), epoch >= 0 else { return nil }
    return max(0, Date(timeIntervalSince1970: TimeInterval(epoch)).timeIntervalSince(now))
}

/// `Retry-After` (RFC 9110 §10.2.3): delay-seconds, or an HTTP-date relative to `now`.
/// Returns seconds (never negative), or nil when absent or unparsable.
public func parseRetryAfter(_ value: String?, now: Date) -> TimeInterval? {
    guard let value = value?.trimmingWhitespace(), !value.isEmpty else { return nil }
    if let seconds = Int(value), seconds >= 0 { return TimeInterval(seconds) }
    guard let date = imfFixdate(value) else { return nil }
    return max(0, date.timeIntervalSince(now))
}

/// RFC 9110 §5.6.7 IMF-fixdate, the form senders must use: `Sun, 06 Nov 1994 08:49:37 GMT`
/// (day name, two-digit day, English month abbreviation, four-digit year, 24-hour time, GMT).
/// nil for anything else, including the obsolete RFC 850 and asctime forms.
func imfFixdate(_ text: String) -> Date? {
    let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    let days = ["Mon,", "Tue,", "Wed,", "Thu,", "Fri,", "Sat,", "Sun,"]
    let parts = text.split(separator: " ", omittingEmptySubsequences: false)
    guard parts.count == 6, days.contains(String(parts[0])), parts[1].count == 2, parts[3].count == 4, parts[5] == "GMT",
          let day = Int(parts[1]), let month = months.firstIndex(of: String(parts[2])), let year = Int(parts[3]) else { return nil }
    let time = parts[4].split(separator: ":", omittingEmptySubsequences: false)
    guard time.count == 3, time.allSatisfy({ $0.count == 2 }), let hour = Int(time[0]), let minute = Int(time[1]), let second = Int(time[2]),
          (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = .gmt
    let components = DateComponents(year: year, month: month + 1, day: day, hour: hour, minute: minute, second: second)
    guard let date = calendar.date(from: components), calendar.component(.day, from: date) == day else { return nil }
    return date
}
