import AppCore
import AuthEngine
import CredentialStore
import Foundation
import Testing

/// DPoP (RFC 9449) in the sign-in, refresh and api use cases (stub environment).
@Suite("DPoP (RFC 9449), use cases")
struct DPoPUseCaseTests {
    func world(algorithms: [String]? = ["ES256"], setting: ProtocolFeatureSetting? = nil) -> StubWorld {
        let world = StubWorld()
        world.provider.script.withLock { $0.dpopAlgorithms = algorithms }
        if let setting { world.files.withLock { $0.providers[0].dpop = setting } }
        return world
    }

    func query(_ url: URL) -> [String: String] {
        Dictionary((URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") },
                   uniquingKeysWith: { first, _ in first })
    }

    @Test("DPoP RFC 9449 §5, §10: sign-in binds the tokens to a new key: proof on the token request, dpop_jkt, token_type DPoP stored with the key")
    func signIn() async throws {
        let world = world()
        let outcome = try await signedIn(world)
        let proofs = world.provider.proofs.withLock { $0 }
        let proof = try #require(proofs.first { $0.path == "/token" }?.proof)
        #expect(proof.type == "dpop+jwt")
        #expect(proof.claims["htm"] == "POST" && proof.claims["htu"] == "https://op.test/token")
        #expect(proof.claims["jti"] != nil && proof.claims["iat"] == String(Int(t0.timeIntervalSince1970)))
        #expect(proof.claims["ath"] == nil, "no ath at the token endpoint (DPOP-01)")
        #expect(!proof.jwk.contains("\"d\""), "the public key only")
        let thumbprint = try #require(outcome.record.dpopThumbprint)
        #expect(outcome.record.isSenderConstrained)
        #expect(query(try #require(world.browserOpened.withLock { $0.first }))["dpop_jkt"] == thumbprint)
        #expect(outcome.record.defaultAccessToken?.tokenType == "DPoP")
        let secrets = try #require(world.storedSecrets())
        #expect(secrets.defaultAccessToken?.tokenType == "DPoP")
        #expect(secrets.dpopKey != nil)
    }

    @Test("DPoP RFC 9449 §8: use_dpop_nonce at the token endpoint is retried once with the nonce")
    func tokenEndpointNonce() async throws {
        let world = world()
        world.provider.script.withLock { $0.tokenEndpointNonce = "n-1" }
        _ = try await signedIn(world)
        let proofs = world.provider.proofs.withLock { $0 }.filter { $0.path == "/token" }
        #expect(proofs.count == 2)
        #expect(proofs.first?.proof.claims["nonce"] == nil && proofs.last?.proof.claims["nonce"] == "n-1")
        #expect(proofs.first?.proof.claims["jti"] != proofs.last?.proof.claims["jti"], "a fresh proof for the retry")
    }

    @Test("DPoP RFC 9449 §8.2: a refresh in a new process against a nonce-requiring token endpoint sends one request, with the kept nonce")
    func nonceKeptForTheNextProcess() async throws {
        let world = world()
        world.provider.script.withLock { $0.tokenEndpointNonce = "n-1" }
        let outcome = try await signedIn(world)
        #expect(world.provider.count("/token") == 2, "sign-in: use_dpop_nonce, then the retry")
        #expect(world.dpopNonces.withLock { $0 } == ["https://op.test:": "n-1"])
        world.advance(4000)
        _ = try await RefreshAccount(world.environment()).run(outcome.record.id, force: true)
        #expect(world.provider.count("/token") == 3, "the new process's refresh: one request")
        #expect(world.provider.proofs.withLock { $0 }.last?.proof.claims["nonce"] == "n-1")
    }

    @Test("DPoP RFC 9449 §5: a bound refresh token is refreshed with a proof from the same stored key")
    func boundRefresh() async throws {
        let world = world()
        let outcome = try await signedIn(world)
        world.advance(4000)
        let refreshed = try await RefreshAccount(world.environment()).run(outcome.record.id, force: true)
        let proofs = world.provider.proofs.withLock { $0 }.filter { $0.path == "/token" }
        #expect(proofs.count == 2)
        #expect(proofs[0].proof.jwk == proofs[1].proof.jwk)
        #expect(refreshed.defaultAccessToken?.tokenType == "DPoP")
        #expect(world.provider.tokenRequests.last?["grant_type"] == "refresh_token")
    }

    @Test("DPoP RFC 9449 §5: a bound refresh token without its key is not sent as Bearer")
    func refreshWithoutKey() async throws {
        let world = world()
        let outcome = try await signedIn(world)
        var secrets = try #require(world.storedSecrets())
        secrets.dpopKey = nil
        try world.secrets.save(secrets, for: AccountKey(provider: "op", account: "alice"))
        let error = await #expect(throws: AppError.self) { _ = try await RefreshAccount(world.environment()).run(outcome.record.id, force: true) }
        #expect(error?.title == "The DPoP key of Alice is missing" && error?.disposition == .needsSignIn, "\(String(describing: error))")
        #expect(world.provider.tokenRequests.count == 1, "no refresh request without a proof")
    }

    @Test("DPoP RFC 9449 §5: a DPoP token type answering a request without a proof is refused and nothing is stored")
    func dpopWithoutProofRefused() async throws {
        let world = world(algorithms: nil)
        world.provider.script.withLock { $0.dpopWithoutProof = true }
        do {
            _ = try await signedIn(world)
            Issue.record("a DPoP token without a proof was accepted")
        } catch let error as AppError {
            #expect(error.title == "DPoP token without a proof")
        }
        #expect(world.accounts.isEmpty && world.storedSecrets() == nil)
    }

    @Test("DPoP setting never: no proof, Bearer tokens; auto without the metadata member: no proof")
    func settings() async throws {
        let never = world(setting: .never)
        let outcome = try await signedIn(never)
        #expect(never.provider.proofs.withLock { $0.isEmpty })
        #expect(outcome.record.dpopThumbprint == nil && outcome.record.defaultAccessToken?.tokenType == "Bearer")
        let plain = world(algorithms: nil)
        _ = try await signedIn(plain)
        #expect(plain.provider.proofs.withLock { $0.isEmpty })
    }

    @Test("DPoP RFC 9449 §7.1, §9: api sends Authorization: DPoP with a proof carrying ath, retrying once on the resource's use_dpop_nonce")
    func callAPI() async throws {
        let world = world()
        world.provider.script.withLock { $0.resourceNonce = "r-1" }
        let outcome = try await signedIn(world)
        let response = try await CallAPI(world.environment()).run(outcome.record.id, method: .get, url: URL(string: "https://op.test/api?x=1")!,
                                                                  headers: [], body: nil)
        #expect(response.status == 200)
        let apiRequests = world.provider.requests.withLock { $0 }.filter { $0.url.path == "/api" }
        #expect(apiRequests.count == 2)
        #expect(apiRequests.allSatisfy { request in
            request.headers.contains { $0.name == "Authorization" && $0.value.hasPrefix("DPoP ") }
                && !request.headers.contains { $0.value.hasPrefix("Bearer ") }
        })
        let proofs = world.provider.proofs.withLock { $0 }.filter { $0.path == "/api" }
        #expect(proofs.last?.proof.claims["nonce"] == "r-1" && proofs.last?.proof.claims["htu"] == "https://op.test/api")
        #expect(proofs.last?.proof.claims["htm"] == "GET")
    }

    @Test("DPoP RFC 9449 §7.1: userinfo with a DPoP token sends Authorization: DPoP and a proof, never Bearer")
    func userinfo() async throws {
        let world = world()
        let outcome = try await signedIn(world)
        _ = try? await ShowUserInfo(world.environment()).run(outcome.record.id)
        let request = try #require(world.provider.requests.withLock { $0 }.last { $0.url.path == "/userinfo" })
        #expect(request.headers.contains { $0.name == "Authorization" && $0.value.hasPrefix("DPoP ") })
        #expect(!request.headers.contains { $0.value.hasPrefix("Bearer ") })
        #expect(world.provider.proofs.withLock { $0 }.contains { $0.path == "/userinfo" && $0.proof.claims["ath"] != nil })
    }

    @Test("DPoP RFC 9449 §4.2: authdeck proof makes a fresh proof with ath for a DPoP account; a Bearer account has none")
    func proofUseCase() async throws {
        let world = world()
        let outcome = try await signedIn(world)
        let issued = try await DPoPProof(world.environment()).run(outcome.record.id, method: "GET", url: URL(string: "https://api.test/items#x")!)
        let proof = try CompactJWS(parsing: issued.proof)
        #expect(proof.header.type == "dpop+jwt")
        #expect(issued.tokenType == "DPoP" && issued.thumbprint == outcome.record.dpopThumbprint)
        let claims = try #require(try JSONSerialization.jsonObject(with: proof.payload) as? [String: Any])
        #expect(claims["htu"] as? String == "https://api.test/items" && claims["ath"] != nil)

        let bearer = self.world(algorithms: nil)
        let plain = try await signedIn(bearer)
        let error = await #expect(throws: AppError.self) { _ = try await DPoPProof(bearer.environment()).run(plain.record.id, method: "GET", url: URL(string: "https://api.test")!) }
        #expect(error?.title == "Alice holds Bearer tokens, not DPoP-bound ones" && error?.disposition == .usage, "\(String(describing: error))")
    }

    @Test("DPoP RFC 9449 §5 with RFC 8628: device-flow polls carry a proof")
    func deviceFlow() async throws {
        let world = world()
        let outcome = try await SignIn(world.environment()).run(SignInRequest(providerID: "op", flow: .device), progress: { _ in })
        #expect(outcome.record.defaultAccessToken?.tokenType == "DPoP")
        #expect(world.provider.proofs.withLock { $0 }.contains { $0.path == "/token" && $0.proof.claims["htu"] == "https://op.test/token" })
    }

    @Test("DPoP with PAR (RFC 9126, PAR-04): the pushed request carries dpop_jkt and the token request a proof from that key")
    func withPAR() async throws {
        let world = world()
        world.provider.script.withLock { $0.pushedAuthorization = true }
        let outcome = try await signedIn(world)
        let opened = query(try #require(world.browserOpened.withLock { $0.first }))
        let pushed = try #require(world.provider.pushedParameters(opened["request_uri"] ?? ""))
        #expect(pushed["dpop_jkt"] == outcome.record.dpopThumbprint)
        #expect(opened["dpop_jkt"] == nil)
        #expect(outcome.record.defaultAccessToken?.tokenType == "DPoP")
    }
}

@Suite("Sign in with Apple client secret (use case, stub clock)")
struct AppleClientSecretUseCaseTests {
    @Test("Apple client secret renewal: a kept secret is minted again within 7 days of its expiry, not before")
    func renewal() {
        let expiresAt = t0.addingTimeInterval(180 * 86_400)
        #expect(!AppleClientSecret.needsRenewal(expiresAt: expiresAt, now: t0))
        #expect(!AppleClientSecret.needsRenewal(expiresAt: expiresAt, now: expiresAt.addingTimeInterval(-8 * 86_400)))
        #expect(AppleClientSecret.needsRenewal(expiresAt: expiresAt, now: expiresAt.addingTimeInterval(-6 * 86_400)))
        #expect(AppleClientSecret.needsRenewal(expiresAt: nil, now: t0))
    }

    @Test("Apple client secret: the claims come from the stub clock; exp is at most 15777000 s after iat")
    func claims() throws {
        var env = StubWorld().environment()
        env.crypto.readPKCS8P256 = { (_: Data) throws(JWSSigningError) -> JWSKeyPair in try StubCrypto.provider.generateKeyPair(.es256) }
        let minted = try MintAppleClientSecret(env).run(teamID: "TEAM123456", keyID: "ABC123DEFG", clientID: "com.example.web", days: 30,
                                                        keyFile: AppleKeyFile(path: "k.p8", contents: Data("-----BEGIN PRIVATE KEY-----".utf8),
                                                                              permissions: 0o600, isSymbolicLink: false))
        #expect(minted.expiresAt == t0.addingTimeInterval(30 * 86_400))
        let jws = try CompactJWS(parsing: minted.secret.exposedValue)
        let claims = try #require(try JSONSerialization.jsonObject(with: jws.payload) as? [String: Any])
        #expect(claims["iat"] as? Int == Int(t0.timeIntervalSince1970) && claims["exp"] as? Int == Int(t0.timeIntervalSince1970) + 30 * 86_400)
        let error = #expect(throws: AppError.self) {
            try MintAppleClientSecret(env).run(teamID: "TEAM123456", keyID: "ABC123DEFG", clientID: "com.example.web", days: 200,
                                               keyFile: AppleKeyFile(path: "k.p8", contents: Data(), permissions: 0o600, isSymbolicLink: false))
        }
        #expect(error?.title == "--days 200 is out of range" && error?.disposition == .usage, "\(String(describing: error))")
    }

    @Test("Apple client secret: a key file that is not PKCS#8 P-256 is named with the reason in words, not the error's debug form")
    func unusableKeyInWords() {
        var env = StubWorld().environment()
        env.crypto.readPKCS8P256 = { (_: Data) throws(JWSSigningError) -> JWSKeyPair in throw .unusableKey("curve secp384r1 (expected P-256)") }
        do {
            _ = try MintAppleClientSecret(env).run(teamID: "TEAM123456", keyID: "ABC123DEFG", clientID: "com.example.web", days: 30,
                                                   keyFile: AppleKeyFile(path: "k.p8", contents: Data(), permissions: 0o600, isSymbolicLink: false))
            Issue.record("no error")
        } catch {
            #expect(error.detail.hasPrefix("curve secp384r1 (expected P-256); download AuthKey_ABC123DEFG.p8 again"))
            #expect(!error.detail.contains("unusableKey("))
        }
    }

    @Test("Apple client secret renewal: authdeck mints the provider's client secret itself, keeps it, and mints a new one within 7 days of exp (stub clock)")
    func providerRenewal() async throws {
        let world = StubWorld()
        world.files.withLock {
            $0.providers[0].clientAuthentication = .clientSecretPost
            $0.providers[0].appleClientSecret = AppleClientSecretSource(keyPath: "/keys/AuthKey_ABC123DEFG.p8", teamID: "TEAM123456", keyID: "ABC123DEFG", days: 30)
        }
        func env() -> AppEnvironment {
            var env = world.environment()
            env.readKeyFile = { path throws(AppError) in
                AppleKeyFile(path: path, contents: Data("-----BEGIN PRIVATE KEY-----".utf8), permissions: 0o600, isSymbolicLink: false)
            }
            env.crypto.readPKCS8P256 = { (_: Data) throws(JWSSigningError) -> JWSKeyPair in try StubCrypto.provider.generateKeyPair(.es256) }
            return env
        }
        func exp(_ jwt: String?) throws -> Int? {
            let jws = try CompactJWS(parsing: try #require(jwt))
            return (try JSONSerialization.jsonObject(with: jws.payload) as? [String: Any])?["exp"] as? Int
        }
        let outcome = try await signedIn(world, env: env())
        let first = world.provider.tokenRequests.last?["client_secret"]
        #expect(try exp(first) == Int(t0.timeIntervalSince1970) + 30 * 86_400)
        world.advance(20 * 86_400)
        _ = try await RefreshAccount(env()).run(outcome.record.id, force: true)
        #expect(world.provider.tokenRequests.last?["client_secret"] == first, "10 days left: the kept secret is used")
        world.advance(5 * 86_400)
        _ = try await RefreshAccount(env()).run(outcome.record.id, force: true)
        let renewed = world.provider.tokenRequests.last?["client_secret"]
        #expect(renewed != first)
        #expect(try exp(renewed) == Int(t0.timeIntervalSince1970) + 55 * 86_400)
        let stored = try world.secrets.loadIfPresent(.providerClient("op"))?.clientSecret?.exposedValue
        #expect(stored == renewed, "the new secret replaces the old one in the store")
    }
}
