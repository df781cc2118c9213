import AppCore
import AuthEngine
import CredentialStore
import Foundation
import Synchronization
import Testing

/// A token exchange of the signed-in account `alice` at the stub provider.
private func exchange(_ world: StubWorld, _ alice: SignInOutcome, _ target: TokenExchangeTarget,
                      validity: Duration = .seconds(60)) async throws -> TokenForScripts.Issued<AccessToken> {
    let record = try #require(world.accounts.first { $0.id == alice.record.id })
    return try await TokenForScripts(world.environment()).exchangedToken(record, for: target, minimumValidity: validity)
}

@Suite("Token exchange (RFC 8693; use case, stub environment)")
struct TokenExchangeTests {
    static let api = "https://api.example.test/"

    @Test("RFC 8693 §2.1: the account's access token is exchanged for a resource; the answer is kept per target and handed out while fresh")
    func exchangeAndCache() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let rotated = world.storedSecrets()?.refreshToken
        let target = TokenAudience.exchangeTarget(for: Self.api, requestedTokenType: nil)
        let first = try await exchange(world, alice, target)
        let form = try #require(world.provider.tokenRequests.last)
        #expect(form["grant_type"] == "urn:ietf:params:oauth:grant-type:token-exchange")
        #expect(form["subject_token_type"] == TokenTypeIdentifier.accessToken && form["subject_token"]?.hasPrefix("at-") == true)
        #expect(form["resource"] == Self.api && form["audience"] == nil && form["requested_token_type"] == nil)
        #expect(form["client_id"] == world.provider.clientID)
        #expect(first.value.exposedValue.hasPrefix("xt-") && first.tokenType == "Bearer")
        // The exchange's refresh token is not the account's.
        #expect(world.storedSecrets()?.refreshToken == rotated)
        let key = TokenAudience.exchangeKey(target)
        #expect(TokenAudience.exchangeTarget(ofKey: key) == target)
        #expect(world.accounts.first?.accessTokens.contains { $0.resource == key } == true)

        let requests = world.provider.tokenRequests.count
        world.advance(600)
        let again = try await exchange(world, alice, target)
        #expect(again.value == first.value && world.provider.tokenRequests.count == requests, "fresh: no request")
        // An audience is another target, kept beside it.
        let audience = try await exchange(world, alice, TokenAudience.exchangeTarget(for: "billing", requestedTokenType: nil))
        #expect(world.provider.tokenRequests.last?["audience"] == "billing" && audience.value != first.value)
    }

    @Test("A token exchange's key is shown as its target (status, the accounts screen); other keys as they are")
    func keysShown() {
        let jwt = TokenAudience.exchangeKey(TokenAudience.exchangeTarget(for: "billing", requestedTokenType: TokenTypeIdentifier.jwt))
        #expect(TokenAudience.displayName(ofKey: jwt) == "billing (token exchange, jwt)")
        let resource = TokenAudience.exchangeKey(TokenAudience.exchangeTarget(for: Self.api, requestedTokenType: nil))
        #expect(TokenAudience.displayName(ofKey: resource) == Self.api + " (token exchange)")
        #expect(TokenAudience.displayName(ofKey: Self.api) == Self.api)
        #expect(TokenAudience.exchangeTarget(ofKey: TokenAudience.exchangePrefix + "other;;x") == nil)
    }

    @Test("Expiry: the subject is refreshed first, then exchanged again through the refresh path (one request for 8 callers)")
    func renewalAfterExpiry() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let target = TokenAudience.exchangeTarget(for: "billing", requestedTokenType: TokenTypeIdentifier.accessToken)
        let first = try await exchange(world, alice, target)
        world.advance(3600)
        let before = world.provider.tokenRequests.count
        let values = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 { group.addTask { try await exchange(world, alice, target).value.exposedValue } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        let sent = world.provider.tokenRequests.dropFirst(before)
        #expect(sent.map { $0["grant_type"] } == ["refresh_token", "urn:ietf:params:oauth:grant-type:token-exchange"])
        #expect(values.count == 1 && !values.contains(first.value.exposedValue))
        let subject = try #require(world.storedSecrets()?.defaultAccessToken?.token.exposedValue)
        #expect(sent.last?["subject_token"] == subject, "the refreshed access token is the subject")
    }

    @Test("RFC 8693 §2.2.2: invalid_target and a refused subject are named errors; the account stays signed in, its tokens kept")
    func refusalsNamed() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let before = world.storedSecrets()
        let unknown = await #expect(throws: AppError.self) {
            try await exchange(world, alice, TokenAudience.exchangeTarget(for: "unknown-api", requestedTokenType: nil))
        }
        #expect(unknown?.description.contains("invalid_target") == true && unknown?.detail.contains("no token for unknown-api") == true)
        #expect(unknown?.specReference == "RFC 8693 §2.2.2")
        world.provider.script.withLock {
            $0.nextTokenError = (400, ["error": "invalid_grant", "error_description": "invalid subject token"], [:])
        }
        let refused = await #expect(throws: AppError.self) {
            try await exchange(world, alice, TokenAudience.exchangeTarget(for: "billing", requestedTokenType: nil))
        }
        #expect(refused?.detail.contains("refused the exchange") == true)
        let record = try #require(world.accounts.first)
        #expect(record.needsSignInSince == nil && record.refreshSentAt == nil, "the grant is not the exchange's")
        #expect(world.storedSecrets() == before)
    }

    @Test("An ID-JAG is asked for with the ID token as subject and issued as N_A; a different issued_token_type is refused")
    func idJAGFromIDToken() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let target = TokenExchangeTarget(resource: "https://mcp.example.test/", audience: nil, requestedTokenType: TokenTypeIdentifier.idJAG)
        let jag = try await exchange(world, alice, target)
        let form = try #require(world.provider.tokenRequests.last)
        #expect(form["subject_token_type"] == TokenTypeIdentifier.idToken && form["subject_token"] == world.storedSecrets()?.idToken?.exposedValue)
        #expect(form["requested_token_type"] == TokenTypeIdentifier.idJAG && jag.tokenType == "N_A")
        let jwt = TokenAudience.exchangeTarget(for: "billing", requestedTokenType: TokenTypeIdentifier.jwt)
        let mismatch = await #expect(throws: AppError.self) { try await exchange(world, alice, jwt) }
        #expect(mismatch?.description.contains("issued_token_type") == true)
    }
}
