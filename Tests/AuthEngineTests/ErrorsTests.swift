import Foundation
import Testing
@testable import AuthEngine

@Suite("Errors: intent helpers, PresentableError, redaction (ARCHITECTURE.md, Errors)")
struct ErrorsTests {
    @Test("invalid_grant invalidates the grant and is not transient")
    func invalidGrant() {
        let error = AuthError.errorResponse(OAuthErrorResponse(code: .invalidGrant, status: 400))
        #expect(error.invalidatesGrant)
        #expect(!error.isTransient)
        #expect(!error.isSecurityRelevant)
    }

    @Test("Transient: timeouts, connection failures, 5xx, 429, temporarily_unavailable", arguments: [
        AuthError.transport(.timeout(url: "u", seconds: 30)), .transport(.connection(url: "u", detail: "reset")),
        .httpStatus(HTTPStatusFailure(status: 502, url: "u")), .httpStatus(HTTPStatusFailure(status: 429, url: "u")),
        .errorResponse(OAuthErrorResponse(code: .temporarilyUnavailable, status: 503)), .errorResponse(OAuthErrorResponse(code: .serverError, status: 500)),
    ])
    func transient(_ error: AuthError) {
        #expect(error.isTransient)
        #expect(!error.invalidatesGrant)
    }

    @Test("Not transient: TLS, protocol violations, denials, 4xx", arguments: [
        AuthError.transport(.tls(url: "u", detail: "x")), .protocolViolation(.atHashMismatch), .httpStatus(HTTPStatusFailure(status: 404, url: "u")),
        .authorizationDenied(AuthorizationErrorParameters(code: .accessDenied, stateMatched: true)), .unsupported(.encryptedIDToken),
    ])
    func notTransient(_ error: AuthError) {
        #expect(!error.isTransient)
    }

    @Test("Security relevant: every protocol violation, insecure URLs, TLS failures", arguments: [
        AuthError.protocolViolation(.stateMismatch(expected: "a", actual: "b")), .protocolViolation(.signatureInvalid(kid: nil)),
        .unsupported(.insecureURL("http://x")), .transport(.tls(url: "u", detail: "x")),
    ])
    func securityRelevant(_ error: AuthError) {
        #expect(error.isSecurityRelevant)
    }

    @Test("RFC 9110 §10.2.3: Retry-After as seconds or HTTP-date")
    func retryAfter() {
        #expect(parseRetryAfter("10", now: testNow) == 10)
        let date = Date(timeIntervalSince1970: 1_900_000_030)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        #expect(parseRetryAfter(formatter.string(from: date), now: testNow) == 30)
        #expect(parseRetryAfter("soon", now: testNow) == nil)
        #expect(parseRetryAfter(nil, now: testNow) == nil)
    }

    @Test("A 429 without Retry-After waits until X-RateLimit-Reset (UTC epoch seconds, Auth0 and GitHub); Retry-After wins when both are sent")
    func rateLimitReset() {
        let reset = String(Int(testNow.timeIntervalSince1970) + 42)
        #expect(retryDelay(HTTPResponse(status: 429, headers: ["X-RateLimit-Reset": reset]), now: testNow) == 42)
        #expect(retryDelay(HTTPResponse(status: 429, headers: ["X-RateLimit-Reset": reset, "Retry-After": "7"]), now: testNow) == 7)
        #expect(retryDelay(HTTPResponse(status: 429, headers: ["X-RateLimit-Reset": "soon"]), now: testNow) == nil)
        #expect(AuthError.errorResponse(OAuthErrorResponse(code: .other("too_many_requests"), status: 429)).isTransient)
        #expect(AuthError.errorResponse(OAuthErrorResponse(code: .other("mfa_required"), status: 403)).requiresInteraction)
        #expect(!AuthError.errorResponse(OAuthErrorResponse(code: .invalidRequest, status: 400)).requiresInteraction)
    }

    @Test("Issuer mismatch shows both strings and the likely fix", arguments: [
        ("https://op.test/", "https://op.test", "trailing slash"), ("https://op.test", "https://OP.TEST", "case"),
        ("https://op.test", "http://op.test", "scheme"), ("https://op.test", "https://op.test:443", "443"),
    ])
    func issuerHint(_ expected: String, _ actual: String, _ hint: String) {
        let presentable = PresentableError(from: .protocolViolation(.issuerMismatch(expected: expected, actual: actual)))
        #expect(presentable.detail.contains("\"\(expected)\""))
        #expect(presentable.detail.contains("\"\(actual)\""))
        #expect(presentable.detail.contains(hint))
        #expect(presentable.specReference?.contains("Discovery") == true)
    }

    @Test("OAuthErrorCode round-trips wire values, unknown codes kept", arguments: [
        "invalid_grant", "slow_down", "authorization_pending", "expired_token", "access_denied", "unsupported_token_type", "bad_verification_code",
    ])
    func errorCodes(_ raw: String) {
        #expect(OAuthErrorCode(rawValue: raw).rawValue == raw)
    }

    @Test("Redaction: no token, code, verifier or secret appears in descriptions of values or errors")
    func redaction() throws {
        let secrets = ["at-secret-value-123", "rt-secret", "code-abc", RFC7636AppendixB.verifier, "client-secret-xyz"]
        let tokens = TokenSet(accessToken: OP.accessToken, tokenType: "Bearer", refreshToken: RefreshToken("rt-secret"), idToken: RawIDToken("id.token.sig"),
                              receivedAt: testNow, expiresAt: nil, refreshExpiresAt: nil, grantedScopes: [], scopeWasReturned: false)
        let validated = try OP.validated()
        let client = ClientConfiguration(clientID: "c", authentication: .clientSecretBasic(ClientSecret("client-secret-xyz")))
        let request = try makeAuthorizationCodeTokenRequest(metadata: OP.metadata(), client: client, response: validated)
        let described = [
            String(describing: tokens), String(reflecting: tokens), String(describing: validated), String(describing: OP.pending()),
            String(describing: client), String(describing: request.headers), String(describing: formBody(request)),
        ]
        for text in described {
            for secret in secrets { #expect(!text.contains(secret), "leaked in: \(text)") }
        }
        // Errors produced from responses carrying tokens never echo them.
        let errors: [AuthError] = [
            authError { try processAuthorizationCodeResponse(jsonResponse(["access_token": "at-secret-value-123", "token_type": "mac"]), pending: OP.pending(), now: testNow) },
            authError { try processAuthorizationCodeResponse(jsonResponse(["access_token": "at-secret-value-123", "token_type": "Bearer", "expires_in": "x"]), pending: OP.pending(), now: testNow) },
            authError { try validateIDToken(RawIDToken("at-secret-value-123.x.y"), keys: OP.keys, options: OP.options(), crypto: OP.crypto().provider, now: testNow) },
        ].compactMap { $0 }
        #expect(errors.count == 3)
        for error in errors {
            let texts = [String(describing: error), String(reflecting: error), PresentableError(from: error).detail]
            for text in texts { #expect(!text.contains("at-secret-value-123")) }
        }
    }
}

@Suite("PresentableError covers every kind of failure")
struct PresentableErrorTests {
    static let samples: [AuthError] = [
        .errorResponse(OAuthErrorResponse(code: .invalidGrant, description: "revoked", uri: "https://op.test/e", status: 400)),
        .authorizationDenied(AuthorizationErrorParameters(code: .accessDenied, errorDescription: "User cancelled", stateMatched: true)),
        .transport(.timeout(url: "https://op.test", seconds: 10)), .transport(.cancelled),
        .httpStatus(HTTPStatusFailure(status: 503, url: "https://op.test/token", retryAfter: 10)),
        .unsupported(.insecureURL("http://op.test")), .unsupported(.missingEndpoint("end_session_endpoint")),
        .protocolViolation(.stateMismatch(expected: "s1", actual: "s2")), .protocolViolation(.expired(exp: testNow, now: testNow)),
        .protocolViolation(.algorithmNotAllowed(alg: "none", allowed: ["RS256"])), .protocolViolation(.noMatchingKey(kid: "k9")),
        .protocolViolation(.audienceMismatch(expected: "rp-native", actual: ["other"])), .protocolViolation(.atHashMismatch),
        .protocolViolation(.userInfoSubjectMismatch(expected: "alice", actual: "bob")),
    ]

    @Test("title and detail are never empty; protocol violations and refusals name their clause", arguments: samples)
    func nonEmpty(_ error: AuthError) {
        let presentable = PresentableError(from: error)
        #expect(!presentable.title.isEmpty)
        #expect(!presentable.detail.isEmpty)
        if case .protocolViolation = error { #expect(presentable.specReference != nil) }
        if case .unsupported = error { #expect(presentable.specReference != nil) }
    }

    @Test("A resource server's refusal (userinfo 401 invalid_token, 403 insufficient_scope) cites RFC 6750 §3.1; a token endpoint's RFC 6749 §5.2",
          arguments: [(OAuthErrorCode.invalidToken, 401, "RFC 6750 §3.1"), (.insufficientScope, 403, "RFC 6750 §3.1"), (.invalidGrant, 400, "RFC 6749 §5.2")])
    func errorResponseClause(_ code: OAuthErrorCode, _ status: Int, _ clause: String) {
        #expect(PresentableError(from: .errorResponse(OAuthErrorResponse(code: code, status: status))).specReference == clause)
    }

    @Test("the state values of a mismatch are not shown")
    func stateNotShown() {
        let detail = PresentableError(from: .protocolViolation(.stateMismatch(expected: "s-expected", actual: "s-actual"))).detail
        #expect(!detail.contains("s-expected") && !detail.contains("s-actual"))
    }
}
