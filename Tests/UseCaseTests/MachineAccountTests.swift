import AppCore
import AuthEngine
import CredentialStore
import Foundation
import Synchronization
import Testing

/// A machine provider at the stub: client `rp-machine`, client credentials (RFC 6749 §4.4).
private func machineWorld(_ method: ClientAuthenticationMethod, audience: ClientAssertionAudience? = nil) throws -> StubWorld {
    let world = StubWorld()
    var provider = world.provider.config
    provider.id = "ci"
    provider.clientID = "rp-machine"
    provider.scopes = ["read"]
    provider.clientAuthentication = method
    provider.clientCredentials = ClientCredentialsSettings(assertionAudience: audience)
    world.files.withLock { $0.providers = [provider] }
    var secrets = AccountSecrets()
    if method == .privateKeyJWT {
        let key = try StubCrypto.provider.generateKeyPair(.es256)
        secrets.clientSigningKey = StoredClientSigningKey(String(decoding: key.json.serialized(), as: UTF8.self))
    } else {
        secrets.clientSecret = StoredClientSecret("machine-fixture-secret")
    }
    try world.secrets.save(secrets, for: .providerClient("ci"))
    return world
}

private func machineLogin(_ world: StubWorld) async throws -> SignInOutcome {
    try await SignIn(world.environment()).run(SignInRequest(providerID: "ci"), progress: { _ in })
}

/// The claims of a compact JWS, as strings.
private func assertionClaims(_ jwt: String?) throws -> [String: Any] {
    let jws = try CompactJWS(parsing: try #require(jwt))
    return try #require(try JSONSerialization.jsonObject(with: jws.payload) as? [String: Any])
}

@Suite("Machine accounts: client credentials (use case, stub environment)")
struct MachineAccountTests {
    @Test("RFC 6749 §4.4: login of a machine provider takes a token with client_secret_basic, no browser; the account is the client")
    func loginWithClientSecretBasic() async throws {
        let world = try machineWorld(.clientSecretBasic)
        let outcome = try await machineLogin(world)
        #expect(world.browserOpened.withLock { $0 }.isEmpty, "no browser")
        let request = try #require(world.provider.requests.withLock { $0.last })
        let form = world.provider.form(of: request)
        #expect(form["grant_type"] == "client_credentials" && form["scope"] == "read" && form["client_secret"] == nil)
        let basic = request.headers.first { $0.name == "Authorization" }?.value
        #expect(basic == "Basic " + Data("rp-machine:machine-fixture-secret".utf8).base64EncodedString())
        #expect(outcome.record.isMachine == true && outcome.record.subject == "rp-machine" && !outcome.record.hasRefreshToken)
        let stored = try world.secrets.load(AccountKey(provider: "ci", account: "rp-machine"))
        #expect(stored.refreshToken == nil && stored.defaultAccessToken?.token.exposedValue.hasPrefix("cc-at-") == true)
    }

    @Test("client_secret_post: client_id and client_secret in the body, no Authorization header")
    func loginWithClientSecretPost() async throws {
        let world = try machineWorld(.clientSecretPost)
        _ = try await machineLogin(world)
        let request = try #require(world.provider.requests.withLock { $0.last })
        let form = world.provider.form(of: request)
        #expect(form["client_id"] == "rp-machine" && form["client_secret"] == "machine-fixture-secret")
        #expect(!request.headers.contains { $0.name == "Authorization" })
    }

    @Test("RFC 7523 §2.2/§3: private_key_jwt sends a fresh assertion per request: iss = sub = client_id, aud the token endpoint, exp ≤ 60 s, new jti")
    func privateKeyJWTAssertionsAreFresh() async throws {
        let world = try machineWorld(.privateKeyJWT)
        let outcome = try await machineLogin(world)
        world.advance(3600)
        _ = try await RefreshAccount(world.environment()).run(outcome.record.id, force: true)
        let forms = world.provider.tokenRequests
        #expect(forms.count == 2)
        var seen: Set<String> = []
        for form in forms {
            #expect(form["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
            #expect(form["client_id"] == "rp-machine" && form["client_secret"] == nil)
            let claims = try assertionClaims(form["client_assertion"])
            #expect(claims["iss"] as? String == "rp-machine" && claims["sub"] as? String == "rp-machine")
            #expect(claims["aud"] as? String == "https://op.test/token")
            let iat = try #require(claims["iat"] as? Int), exp = try #require(claims["exp"] as? Int)
            #expect(exp > iat && exp - iat <= 60)
            seen.insert(try #require(claims["jti"] as? String))
        }
        #expect(seen.count == 2, "a new jti for every request")
        #expect(world.accounts.first?.isMachine == true && world.accounts.first?.needsSignInSince == nil)
    }

    @Test("private_key_jwt with --assertion-audience issuer: aud is the issuer")
    func assertionAudienceIssuer() async throws {
        let world = try machineWorld(.privateKeyJWT, audience: .issuer)
        _ = try await machineLogin(world)
        let claims = try assertionClaims(world.provider.tokenRequests.last?["client_assertion"])
        #expect(claims["aud"] as? String == "https://op.test")
    }

    @Test("private_key_jwt without a stored key: a named error, nothing sent")
    func missingKeyIsNamed() async throws {
        let world = try machineWorld(.privateKeyJWT)
        try world.secrets.delete(.providerClient("ci"))
        let error = await #expect(throws: AppError.self) { try await machineLogin(world) }
        #expect(error?.title == "No client key stored for 'ci'")
        #expect(world.provider.tokenRequests.isEmpty)
    }

    @Test("8 parallel callers at expiry → exactly one client-credentials request; all get the new token; expired is renewable, not sign-in")
    func parallelCallersAtExpirySendOneRequest() async throws {
        let world = try machineWorld(.privateKeyJWT)
        let outcome = try await machineLogin(world)
        world.advance(3600)
        let record = try #require(world.accounts.first)
        let status = AccountState(record: record).status(now: world.now, policy: .standard, storeLocked: false)
        #expect(status == .expired, "a machine account's expired token is renewed, not a sign-in")
        let before = world.provider.tokenRequests.count
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 {
                // Each caller its own "process" (environment): only the account lock is shared.
                group.addTask { try await TokenForScripts(world.environment()).accessToken(outcome.record.id, minimumValidity: .seconds(10)).value.exposedValue }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(world.provider.tokenRequests.count == before + 1, "one token request")
        #expect(Set(tokens).count == 1 && tokens.first != outcome.record.id.rawValue)
    }

    @Test("No client secret or key in the descriptions of what is stored")
    func secretsAreRedacted() throws {
        let world = try machineWorld(.privateKeyJWT)
        let stored = try world.secrets.load(.providerClient("ci"))
        let text = "\(stored)"
        #expect(!text.contains("stub-private-key") && text.contains("clientSigningKey"))
    }
}

/// A compact JWS with these claims (the stub's signature).
private func workloadToken(_ subject: String, expiresAt: Date) -> String {
    makeJWT(header: ["alg": "RS256", "kid": "ci"], claims: ["iss": "https://ci.test", "sub": subject, "aud": "api://op",
                                                           "exp": Int(expiresAt.timeIntervalSince1970)])
}

/// What the world's local inputs (variables, files, commands) hold now.
private final class Inputs: Sendable {
    let values = Mutex<[ClientAssertionSource.Input: String]>([:])
    func withLock<R>(_ body: (inout [ClientAssertionSource.Input: String]) -> R) -> R { values.withLock { body(&$0) } }
}

@Suite("Machine accounts: federated client assertions read fresh (use case, stub environment)")
struct FederatedAssertionTests {
    /// A machine provider whose assertion comes from `source`; the world's inputs answer from `inputs`.
    private func world(_ source: ClientAssertionSource) throws -> (StubWorld, Inputs) {
        let world = StubWorld()
        var provider = world.provider.config
        provider.id = "ci"
        provider.clientID = "rp-workload"
        provider.scopes = []
        provider.clientAuthentication = .privateKeyJWT
        provider.clientCredentials = ClientCredentialsSettings(assertionSource: source)
        world.files.withLock { $0.providers = [provider] }
        return (world, Inputs())
    }

    private func env(_ world: StubWorld, _ inputs: Inputs) -> AppEnvironment {
        var env = world.environment()
        env.readAssertionInput = { input in inputs.withLock { $0[input] } }
        return env
    }

    @Test("A projected token file is re-read for every request: the token in the file now is the one sent; nothing of it is stored")
    func fileIsReadEveryTime() async throws {
        let (world, inputs) = try world(.file("/var/run/secrets/tokens/authdeck"))
        inputs.withLock { $0[.file("/var/run/secrets/tokens/authdeck")] = workloadToken("first", expiresAt: t0.addingTimeInterval(600)) + "\n" }
        let outcome = try await SignIn(env(world, inputs)).run(SignInRequest(providerID: "ci"), progress: { _ in })
        world.advance(3600)
        let rotated = workloadToken("second", expiresAt: world.now.addingTimeInterval(600))
        inputs.withLock { $0[.file("/var/run/secrets/tokens/authdeck")] = rotated }
        _ = try await RefreshAccount(env(world, inputs)).run(outcome.record.id, force: true)
        let sent = world.provider.tokenRequests.map { $0["client_assertion"] }
        #expect(sent == [workloadToken("first", expiresAt: t0.addingTimeInterval(600)), rotated])
        #expect(world.provider.tokenRequests.allSatisfy {
            $0["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" && $0["client_id"] == "rp-workload"
        })
        let stored = try world.secrets.load(AccountKey(provider: "ci", account: "rp-workload"))
        #expect(!"\(stored.json)".contains("second") && stored.clientSigningKey == nil && stored.clientSecret == nil)
    }

    @Test("RFC 7662 §2.1, RFC 7009 §2.1: introspection and revocation authenticate with the assertion read now, as the token endpoint")
    func introspectionAndRevocationAuthenticate() async throws {
        let (world, inputs) = try world(.file("/run/token"))
        inputs.withLock { $0[.file("/run/token")] = workloadToken("first", expiresAt: t0.addingTimeInterval(600)) }
        let outcome = try await SignIn(env(world, inputs)).run(SignInRequest(providerID: "ci"), progress: { _ in })
        let now = workloadToken("now", expiresAt: t0.addingTimeInterval(900))
        inputs.withLock { $0[.file("/run/token")] = now }
        _ = try await IntrospectAccessToken(env(world, inputs)).run(outcome.record.id)
        _ = await SignOut(env(world, inputs)).run(outcome.record.id, options: SignOutOptions(endSession: false), step: { _ in })
        for path in ["/introspect", "/revoke"] {
            let request = try #require(world.provider.requests.withLock { $0.last { $0.url.path == path } }, "\(path)")
            let form = world.provider.form(of: request)
            #expect(form["client_assertion"] == now && form["client_id"] == "rp-workload", "\(path)")
        }
    }

    @Test("GitLab CI id_tokens: a missing variable is an error naming it; nothing is sent")
    func missingVariableIsNamed() async throws {
        let (world, inputs) = try world(.environment("AUTHDECK_ID_TOKEN"))
        let error = await #expect(throws: AppError.self) {
            try await SignIn(env(world, inputs)).run(SignInRequest(providerID: "ci"), progress: { _ in })
        }
        #expect(error?.title == "The client assertion from the environment variable AUTHDECK_ID_TOKEN is missing")
        #expect(world.provider.tokenRequests.isEmpty)
    }

    @Test("An expired assertion is an error naming the source; nothing is sent; an account keeps its state")
    func expiredAssertionIsNamed() async throws {
        let (world, inputs) = try world(.command(["ci-token", "--audience", "api://op"]))
        inputs.withLock { $0[.command(["ci-token", "--audience", "api://op"])] = workloadToken("w", expiresAt: t0.addingTimeInterval(60)) }
        let outcome = try await SignIn(env(world, inputs)).run(SignInRequest(providerID: "ci"), progress: { _ in })
        world.advance(3600)
        let error = await #expect(throws: AppError.self) {
            try await RefreshAccount(env(world, inputs)).run(outcome.record.id, force: true)
        }
        #expect(error?.title == "The client assertion from the command 'ci-token --audience api://op' has expired")
        #expect(world.provider.tokenRequests.count == 1)
        #expect(world.accounts.first?.refreshSentAt == nil && world.accounts.first?.needsSignInSince == nil)
    }
}
