import AppCore
import AuthEngine
import CredentialStore
import Foundation
import Testing

/// A world whose provider is a confidential client (Apple: the client-secret JWT, sent as
/// `client_secret` in the form) with Apple's boolean-or-string claims.
func appleLikeWorld(booleanStringClaims: [String]? = ["email_verified", "is_private_email"]) throws -> StubWorld {
    let world = StubWorld()
    var config = world.provider.config
    config.clientAuthentication = .clientSecretPost
    config.booleanStringClaims = booleanStringClaims
    world.files.withLock { $0.providers = [config] }
    try world.secrets.save(AccountSecrets(clientSecret: StoredClientSecret("client-secret-jwt")), for: .providerClient("op"))
    return world
}

func handover(_ world: StubWorld, code: String, nonce: CodeHandoverRequest.Nonce = .none, user: String? = nil,
              idToken: String? = nil) async throws(AppError) -> SignInOutcome {
    try await SignInWithCode(world.environment()).run(CodeHandoverRequest(
        providerID: "op", code: AuthorizationCode(code), idToken: idToken.map { RawIDToken($0) }, userJSON: user, nonce: nonce))
}

@Suite("Code handover (Sign in with Apple's backend sign-in; use case, stub environment)")
struct CodeHandoverUseCaseTests {
    @Test("Apple: a handed-over code goes with client_secret, without code_verifier or redirect_uri (Apple token validation)")
    func handedOverCodeExchange() async throws {
        let world = try appleLikeWorld()
        let outcome = try await handover(world, code: world.provider.issueCode(subject: "alice", nonce: nil))
        #expect(outcome.record.id == AccountID("op/alice"))
        let exchange = try #require(world.provider.tokenRequests.first)
        #expect(exchange["grant_type"] == "authorization_code")
        #expect(exchange["client_secret"] == "client-secret-jwt")
        #expect(exchange["code_verifier"] == nil && exchange["redirect_uri"] == nil)
        #expect(world.storedSecrets()?.refreshToken != nil)
    }

    @Test("Apple: the nonce is compared as the SHA-256 hex of the raw nonce; another raw nonce is refused and nothing stored (OIDC Core 3.1.3.7 step 11)")
    func hashedNonce() async throws {
        let world = try appleLikeWorld()
        let hashed = sha256HexNonce("raw-nonce", crypto: StubCrypto.provider)
        let wrong = world.provider.issueCode(subject: "alice", nonce: hashed)
        let error = await #expect(throws: AppError.self) { try await handover(world, code: wrong, nonce: .sha256Of("other-raw-nonce")) }
        #expect(error?.title == "Nonce mismatch" && error?.disposition == .securityRelevant, "\(String(describing: error))")
        #expect(world.accounts.isEmpty)
        let right = world.provider.issueCode(subject: "alice", nonce: hashed)
        let outcome = try await handover(world, code: right, nonce: .sha256Of("raw-nonce"))
        #expect(outcome.record.subject == "alice")
    }

    @Test("Apple: a handed-over code needs the client secret: a usage error naming --client-secret-stdin, no request sent")
    func needsClientSecret() async throws {
        let world = StubWorld()
        do {
            _ = try await handover(world, code: "code-x")
            Issue.record("no error")
        } catch {
            #expect(error.disposition == .usage)
            #expect(error.detail.contains("--client-secret-stdin"))
        }
        #expect(world.provider.total == 0)
    }

    @Test("Apple: email_verified and is_private_email as the strings \"true\"/\"false\" are read for booleanStringClaims providers")
    func stringBooleans() async throws {
        let world = try appleLikeWorld()
        world.provider.script.withLock { $0.extraClaimsJSON = #"{"email":"k7@privaterelay.appleid.com","email_verified":"true","is_private_email":"false"}"# }
        let outcome = try await handover(world, code: world.provider.issueCode(subject: "alice", nonce: nil))
        #expect(outcome.record.emailVerified == true && outcome.record.isPrivateEmail == false)
        world.provider.script.withLock { $0.extraClaimsJSON = #"{"email":"k7@privaterelay.appleid.com","email_verified":true,"is_private_email":true}"# }
        let again = try await handover(world, code: world.provider.issueCode(subject: "alice", nonce: nil))
        #expect(again.record.emailVerified == true && again.record.isPrivateEmail == true)
    }

    @Test("UI-08: without booleanStringClaims the string \"true\" is not a verified email; a flexible claim that is neither is refused")
    func stringBooleanOnlyWhereConfigured() async throws {
        let strict = try appleLikeWorld(booleanStringClaims: nil)
        strict.provider.script.withLock { $0.extraClaimsJSON = #"{"email":"a@example.test","email_verified":"true"}"# }
        let outcome = try await handover(strict, code: strict.provider.issueCode(subject: "alice", nonce: nil))
        #expect(outcome.record.emailVerified == nil)

        let apple = try appleLikeWorld()
        apple.provider.script.withLock { $0.extraClaimsJSON = #"{"email":"a@example.test","email_verified":"yes"}"# }
        let error = await #expect(throws: AppError.self) { try await handover(apple, code: apple.provider.issueCode(subject: "alice", nonce: nil)) }
        #expect(error?.title == "Invalid claim" && error?.disposition == .securityRelevant, "\(String(describing: error))")
        #expect(apple.accounts.isEmpty)
    }

    @Test("Apple: name (user JSON) and email from the first sign-in are kept when a later sign-in's tokens lack them")
    func firstSignInIdentityKept() async throws {
        let world = try appleLikeWorld()
        world.provider.script.withLock {
            $0.omitProfileClaims = true
            $0.extraClaimsJSON = #"{"email":"k7@privaterelay.appleid.com","email_verified":"true","is_private_email":"true"}"#
        }
        let user = #"{"name":{"firstName":"Jane","lastName":"Appleseed"},"email":"k7@privaterelay.appleid.com"}"#
        let first = try await handover(world, code: world.provider.issueCode(subject: "alice", nonce: nil), user: user)
        #expect(first.record.displayName == "Jane Appleseed")
        world.provider.script.withLock { $0.extraClaimsJSON = nil }
        let later = try await handover(world, code: world.provider.issueCode(subject: "alice", nonce: nil))
        #expect(later.record.displayName == "Jane Appleseed")
        #expect(later.record.email == "k7@privaterelay.appleid.com")
        #expect(later.record.emailVerified == true && later.record.isPrivateEmail == true)
    }

    @Test("Apple: an email from a later sign-in's user JSON is not marked verified by the earlier token's email_verified (OIDC Core §5.1)")
    func userJSONEmailNotVerifiedByEarlierFlags() async throws {
        let world = try appleLikeWorld()
        world.provider.script.withLock {
            $0.omitProfileClaims = true
            $0.extraClaimsJSON = #"{"email":"k7@privaterelay.appleid.com","email_verified":"true","is_private_email":"true"}"#
        }
        _ = try await handover(world, code: world.provider.issueCode(subject: "alice", nonce: nil))
        world.provider.script.withLock { $0.extraClaimsJSON = nil }
        let later = try await handover(world, code: world.provider.issueCode(subject: "alice", nonce: nil),
                                       user: #"{"email":"mallory@evil.example"}"#)
        #expect(later.record.email == "mallory@evil.example")
        #expect(later.record.emailVerified == nil && later.record.isPrivateEmail == nil)
    }

    @Test("Apple: user JSON that is not a JSON object is a usage error before any request")
    func badUserJSON() async throws {
        let world = try appleLikeWorld()
        do {
            _ = try await handover(world, code: "code-x", user: "not json")
            Issue.record("no error")
        } catch {
            #expect(error.disposition == .usage)
        }
        #expect(world.provider.total == 0)
    }

    @Test("Apple: the app's identity token must name the same sub as the token endpoint's, else nothing is stored")
    func appTokenSubjectMustMatch() async throws {
        let world = try appleLikeWorld()
        let appToken = world.provider.idToken(subject: "mallory", nonce: nil, now: world.now)
        let error = await #expect(throws: AppError.self) {
            try await handover(world, code: world.provider.issueCode(subject: "alice", nonce: nil), idToken: appToken)
        }
        #expect(error?.title == "The app's identity token names another user" && error?.disposition == .other, "\(String(describing: error))")
        #expect(world.accounts.isEmpty)
        let good = world.provider.idToken(subject: "alice", nonce: nil, now: world.now)
        let outcome = try await handover(world, code: world.provider.issueCode(subject: "alice", nonce: nil), idToken: good)
        #expect(outcome.record.subject == "alice")
    }

    @Test("Apple: the hashed nonce is the SHA-256 digest as lowercase hex, two digits a byte (decode --verify --nonce-sha256 and login --code share it)")
    func nonceHexEncoding() {
        let crypto = CryptoProvider(
            digest: { algorithm, _ in algorithm == .sha256 ? Data([0x00, 0xab, 0x0f, 0xf0, 0x7e]) : Data() },
            randomBytes: { Data(count: $0) },
            verifySignature: { (_: JWSAlgorithm, _: JWK, _: Data, _: Data) throws(SignatureVerificationError) in },
            generateKeyPair: StubCrypto.provider.generateKeyPair, sign: StubCrypto.provider.sign, readPKCS8P256: StubCrypto.provider.readPKCS8P256)
        #expect(sha256HexNonce("raw", crypto: crypto) == "00ab0ff07e")
    }
}
