import Foundation
import Testing
@testable import AuthEngine

@Suite("Token exchange (RFC 8693 §2)")
struct TokenExchangeEngineTests {
    static let previous = RefreshTests.previous

    @Test("RFC 8693 §2.1: the request is an exact form POST: grant_type, subject_token and its type, resource, scope, requested_token_type")
    func request() throws {
        let target = TokenExchangeTarget(resource: "https://api.test/v1", requestedTokenType: TokenTypeIdentifier.jwt, scopes: ["read"])
        let request = try makeTokenExchangeRequest(metadata: OP.metadata(), client: OP.client, subject: .accessToken(AccessToken("at")),
                                                   target: target)
        #expect(request.url.absoluteString == "https://op.test/token" && request.followRedirects == false)
        #expect(formBody(request) == [
            FormParameter("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"), FormParameter("subject_token", "at"),
            FormParameter("subject_token_type", "urn:ietf:params:oauth:token-type:access_token"), FormParameter("resource", "https://api.test/v1"),
            FormParameter("scope", "read"), FormParameter("requested_token_type", "urn:ietf:params:oauth:token-type:jwt"),
            FormParameter("client_id", "rp-native"),
        ])
        let audience = try makeTokenExchangeRequest(metadata: OP.metadata(), client: OP.client, subject: .idToken(RawIDToken("a.b.c")),
                                                    target: TokenExchangeTarget(audience: "billing"))
        #expect(formBody(audience).contains(FormParameter("audience", "billing")))
        #expect(formBody(audience).contains(FormParameter("subject_token_type", "urn:ietf:params:oauth:token-type:id_token")))
        #expect(authError {
            try makeTokenExchangeRequest(metadata: OP.metadata(), client: OP.client, subject: .accessToken(AccessToken("at")),
                                         target: TokenExchangeTarget(resource: "api#x"))
        } == .unsupported(.invalidResourceIndicator("api#x")))
    }

    @Test("RFC 8693 §2.2.1: issued_token_type is required and must be the requested one; N_A only for a token that is not an access token")
    func response() throws {
        let target = TokenExchangeTarget(audience: "billing")
        let tokens = try processTokenExchangeResponse(jsonResponse([
            "access_token": "xt", "issued_token_type": TokenTypeIdentifier.accessToken, "token_type": "Bearer", "expires_in": 60,
            "refresh_token": "xt-rt",
        ]), previous: Self.previous, target: target, now: testNow)
        #expect(tokens.accessToken.exposedValue == "xt" && tokens.expiresAt == testNow.addingTimeInterval(60))
        #expect(tokens.refreshToken?.exposedValue == "old-rt" && tokens.idToken == Self.previous.idToken, "the account's own are kept")
        #expect(authError {
            try processTokenExchangeResponse(jsonResponse(["access_token": "xt", "token_type": "Bearer"]), previous: Self.previous, target: target,
                                             now: testNow)
        } == .protocolViolation(.missingField("issued_token_type")))
        let jag = TokenExchangeTarget(audience: "https://as.test", requestedTokenType: TokenTypeIdentifier.idJAG)
        let issued = try processTokenExchangeResponse(jsonResponse([
            "access_token": "j.w.t", "issued_token_type": TokenTypeIdentifier.idJAG, "token_type": "N_A",
        ]), previous: Self.previous, target: jag, now: testNow)
        #expect(issued.tokenType == "N_A")
        #expect(authError {
            let body: [String: Any] = ["access_token": "x", "issued_token_type": TokenTypeIdentifier.accessToken, "token_type": "N_A"]
            return try processTokenExchangeResponse(jsonResponse(body), previous: Self.previous, target: target, now: testNow)
        } == .unsupported(.tokenType("N_A")))
        #expect(authError {
            try processTokenExchangeResponse(jsonResponse(["access_token": "x", "issued_token_type": TokenTypeIdentifier.jwt, "token_type": "N_A"]),
                                             previous: Self.previous, target: jag, now: testNow)
        } == .protocolViolation(.invalidField(name: "issued_token_type", expected: TokenTypeIdentifier.idJAG + " (as requested)")))
    }
}
