@_spi(Benchmark) import AppCore
import AuthEngine
import CredentialStore
import Foundation
import Testing

/// `SignIn.adoptGrant`: how the refresh-storm benchmark stores the bundled provider's
/// minted grants, with the checks of a sign-in.
@Suite("Adopting a minted grant (refresh storm benchmark)")
struct RefreshBenchGrantsTests {
    private func response(_ world: StubWorld, idToken: String?) throws -> Data {
        var body: [String: Any] = ["access_token": "minted-access-token", "token_type": "Bearer", "expires_in": 30,
                                   "refresh_token": world.provider.issueRefreshToken(subject: "carol"), "scope": "openid profile"]
        body["id_token"] = idToken
        return try JSONSerialization.data(withJSONObject: body)
    }

    @Test("OIDC Core §3.1.3.7: the grant's ID token is verified, then secrets and record are stored as a sign-in stores them")
    func adoptsVerifiedGrant() async throws {
        let world = StubWorld()
        let body = try response(world, idToken: world.provider.idToken(subject: "carol", nonce: nil, now: world.now))
        let outcome = try await SignIn(world.environment()).adoptGrant("op", tokenResponse: body)
        #expect(outcome.record.id == AccountID("op/carol"))
        #expect(outcome.record.accessTokenExpiresAt == world.now.addingTimeInterval(30))
        guard case .verified = outcome.record.idToken?.signature else {
            Issue.record("the ID token was not verified: \(String(describing: outcome.record.idToken?.signature))")
            return
        }
        #expect(world.storedSecrets("carol")?.refreshToken != nil)
        #expect(world.files.withLock { $0.accounts.map(\.id) } == [AccountID("op/carol")])
    }

    @Test("OIDC Core §3.1.3.3: a grant without an ID token is refused and nothing is stored")
    func refusesGrantWithoutIDToken() async throws {
        let world = StubWorld()
        let body = try response(world, idToken: nil)
        let error = await #expect(throws: AppError.self) { try await SignIn(world.environment()).adoptGrant("op", tokenResponse: body) }
        #expect(error?.title == "The grant has no ID token" && error?.disposition == .other, "\(String(describing: error))")
        #expect(world.storedSecrets("carol") == nil)
        #expect(world.files.withLock { $0.accounts.isEmpty })
    }

    @Test("OIDC Core §3.1.3.7 step 2: an ID token from another issuer is refused and nothing is stored")
    func refusesForeignIssuer() async throws {
        let world = StubWorld()
        let foreign = makeJWT(header: ["alg": "RS256", "kid": "k1"],
                              claims: ["iss": "https://evil.test", "sub": "carol", "aud": world.provider.clientID,
                                       "iat": Int(world.now.timeIntervalSince1970), "exp": Int(world.now.timeIntervalSince1970) + 3600])
        let body = try response(world, idToken: foreign)
        let error = await #expect(throws: AppError.self) { try await SignIn(world.environment()).adoptGrant("op", tokenResponse: body) }
        #expect(error?.title == "ID token issuer mismatch" && error?.disposition == .securityRelevant, "\(String(describing: error))")
        #expect(world.storedSecrets("carol") == nil)
        #expect(world.files.withLock { $0.accounts.isEmpty })
    }
}
