import Foundation
import Testing
@testable import AuthEngine

@Suite("UserInfo (OIDC Core §5.3)")
struct UserInfoTests {
    @Test("UI-01: GET with Authorization: Bearer, never in the query")
    func request() throws {
        let request = try makeUserInfoRequest(metadata: OP.metadata(), client: OP.client, accessToken: OP.accessToken)
        #expect(request.method == .get)
        #expect(request.url.absoluteString == "https://op.test/userinfo")
        #expect(request.headers == [HTTPHeader("Accept", "application/json"), HTTPHeader("Authorization", "Bearer at-secret-value-123")])
        #expect(request.body == nil)
        #expect(request.url.query == nil)
        #expect(!String(describing: request.headers).contains("at-secret-value-123"))
    }

    @Test("UI-05: returned claims are kept; absent ones are simply absent")
    func claimsKept() throws {
        let response = jsonResponse(["sub": "alice", "email": "alice@example.test", "email_verified": true])
        let info = try processUserInfoResponse(response, expectedSubject: "alice", now: testNow)
        #expect(info.claims["email_verified"] == .bool(true))
        #expect(info.claims["phone_number"] == nil)
    }

    @Test("UI-03, OIDC Core §5.3.2: sub must equal the ID token's sub")
    func subMismatch() {
        #expect(authError { try processUserInfoResponse(jsonResponse(["sub": "mallory"]), expectedSubject: "alice", now: testNow) }
            == .protocolViolation(.userInfoSubjectMismatch(expected: "alice", actual: "mallory")))
    }

    @Test("UI-04: sub absent, non-JSON or text/html is rejected", arguments: [
        (jsonResponse(["name": "Alice"]), AuthError.protocolViolation(.missingField("sub"))),
        (textResponse("{", contentType: "application/json"), AuthError.protocolViolation(.malformedJSON(context: "UserInfo response"))),
        (textResponse("<html>", contentType: "text/html"), AuthError.protocolViolation(.unexpectedContentType(expected: "application/json", actual: "text/html"))),
    ])
    func invalid(_ response: HTTPResponse, _ expected: AuthError) {
        #expect(authError { try processUserInfoResponse(response, expectedSubject: "alice", now: testNow) } == expected)
    }

    @Test("UI-06, RFC 6750 §3: 401 with WWW-Authenticate invalid_token is an invalid_token error")
    func unauthorized() {
        let response = HTTPResponse(status: 401, headers: ["WWW-Authenticate": #"Bearer realm="op", error="invalid_token", error_description="expired""#])
        #expect(authError { try processUserInfoResponse(response, expectedSubject: "alice", now: testNow) }
            == .errorResponse(OAuthErrorResponse(code: .invalidToken, status: 401)))
    }

    @Test("UI-07: application/jwt UserInfo is refused as unsupported")
    func signedUserInfo() {
        #expect(authError { try processUserInfoResponse(textResponse("a.b.c", contentType: "application/jwt"), expectedSubject: "alice", now: testNow) }
            == .unsupported(.signedUserInfo))
    }
}
