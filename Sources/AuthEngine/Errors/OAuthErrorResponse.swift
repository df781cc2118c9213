import FoundationEssentials

/// An `error` code (RFC 6749 §4.1.2.1, §5.2; RFC 8628 §3.5; RFC 7009 §2.2.1; RFC 8707 §2;
/// RFC 6750 §3.1; OIDC Core §3.1.2.6). Unknown codes are kept in ``other(_:)``.
public enum OAuthErrorCode: Sendable, Hashable, CustomStringConvertible {
    case invalidRequest, invalidClient, invalidGrant, unauthorizedClient, unsupportedGrantType, invalidScope
    case accessDenied, unsupportedResponseType, serverError, temporarilyUnavailable
    case authorizationPending, slowDown, expiredToken
    case unsupportedTokenType, invalidTarget, invalidToken, insufficientScope
    case loginRequired, interactionRequired, consentRequired, accountSelectionRequired
    case other(String)

    private static let known: [(OAuthErrorCode, String)] = [
        (.invalidRequest, "invalid_request"), (.invalidClient, "invalid_client"), (.invalidGrant, "invalid_grant"),
        (.unauthorizedClient, "unauthorized_client"), (.unsupportedGrantType, "unsupported_grant_type"),
        (.invalidScope, "invalid_scope"), (.accessDenied, "access_denied"),
        (.unsupportedResponseType, "unsupported_response_type"), (.serverError, "server_error"),
        (.temporarilyUnavailable, "temporarily_unavailable"), (.authorizationPending, "authorization_pending"),
        (.slowDown, "slow_down"), (.expiredToken, "expired_token"), (.unsupportedTokenType, "unsupported_token_type"),
        (.invalidTarget, "invalid_target"), (.invalidToken, "invalid_token"), (.insufficientScope, "insufficient_scope"),
        (.loginRequired, "login_required"), (.interactionRequired, "interaction_required"),
        (.consentRequired, "consent_required"), (.accountSelectionRequired, "account_selection_required"),
    ]

    /// The code as sent on the wire (`error`).
    public init(rawValue: String) {
        self = Self.known.first { $0.1.exactlyEquals(rawValue) }?.0 ?? .other(rawValue)
    }

    /// The wire value.
    public var rawValue: String {
        if case .other(let value) = self { return value }
        return Self.known.first { $0.0 == self }!.1
    }

    public var description: String { rawValue }
}

/// An OAuth error response from an endpoint (RFC 6749 §5.2): the server said no.
/// `status` is the HTTP status it arrived with (GitHub sends errors with 200).
public struct OAuthErrorResponse: Sendable, Equatable, CustomStringConvertible {
    /// `error`.
    public var code: OAuthErrorCode
    /// `error_description`, as sent (untrusted text: escape before display).
    public var errorDescription: String?
    /// `error_uri`.
    public var uri: String?
    /// HTTP status of the response.
    public var status: Int
    /// Seconds to wait before retrying, from `Retry-After` (RFC 9110 §10.2.3), when sent.
    public var retryAfter: TimeInterval?
    /// RFC 8628 §3.5: a `slow_down` (GitHub) may carry a new `interval` in seconds.
    public var interval: Int?

    public init(code: OAuthErrorCode, description: String? = nil, uri: String? = nil, status: Int,
                retryAfter: TimeInterval? = nil, interval: Int? = nil) {
        self.code = code
        self.errorDescription = description
        self.uri = uri
        self.status = status
        self.retryAfter = retryAfter
        self.interval = interval
    }

    public var description: String {
        "OAuthErrorResponse(code: \(code.rawValue), status: \(status)\(errorDescription.map { ", description: \($0)" } ?? ""))"
    }
}

/// Error parameters that arrived on the redirect (RFC 6749 §4.1.2.1, OIDC Core §3.1.2.6).
public struct AuthorizationErrorParameters: Sendable, Equatable {
    /// `error`, e.g. ``OAuthErrorCode/accessDenied``.
    public var code: OAuthErrorCode
    /// `error_description` (untrusted text).
    public var errorDescription: String?
    /// `error_uri`.
    public var uri: String?
    /// Whether the redirect's `state` equalled the pending request's. Always true for an error
    /// thrown by ``validateAuthorizationResponse(callback:pending:metadata:)``: a mismatched
    /// `state` (or `iss`) is reported as `.stateMismatch` / issuer mismatch with the code as
    /// `unverifiedError`, never as a denial.
    public var stateMatched: Bool

    public init(code: OAuthErrorCode, errorDescription: String? = nil, uri: String? = nil, stateMatched: Bool) {
        self.code = code
        self.errorDescription = errorDescription
        self.uri = uri
        self.stateMatched = stateMatched
    }
}

/// A non-2xx HTTP answer that carried no OAuth error body (docs/ARCHITECTURE.md "Errors" counts it with transport
/// failures). `retryAfter` in seconds from `Retry-After`.
public struct HTTPStatusFailure: Sendable, Equatable {
    public var status: Int
    public var url: String
    public var retryAfter: TimeInterval?
    public init(status: Int, url: String, retryAfter: TimeInterval? = nil) {
        self.status = status
        self.url = url
        self.retryAfter = retryAfter
    }
}
