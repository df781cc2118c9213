import AppCore
import AuthEngine
import CredentialStore
import Foundation
import Synchronization
import Testing

/// Signs `subject` in through the browser flow in `world` and returns the outcome.
func signedIn(_ world: StubWorld, as subject: String = "alice", env: AppEnvironment? = nil) async throws -> SignInOutcome {
    world.approveInBrowser(as: subject)
    return try await SignIn(env ?? world.environment()).run(SignInRequest(providerID: "op"), progress: { _ in })
}

@Suite("Sign-in (use case, stub environment)")
struct SignInUseCaseTests {
    @Test("Browser sign-in: the code is exchanged, the ID token verified, secrets stored before the record")
    func browserSignInStoresVerifiedAccount() async throws {
        let world = StubWorld()
        let progress = ProgressLog()
        world.approveInBrowser()
        var env = world.environment()
        let saveAccount = env.files.saveAccount
        let secretsAtRecordSave = Mutex<[Bool]>([])
        env.files.saveAccount = { record throws(AppError) in
            secretsAtRecordSave.withLock { $0.append(world.storedSecrets()?.refreshToken != nil) }
            try saveAccount(record)
        }
        let outcome = try await SignIn(env).run(SignInRequest(providerID: "op")) { progress.append($0) }
        #expect(secretsAtRecordSave.withLock { $0 } == [true], "the record is written once, after the secrets")
        #expect(outcome.record.id == AccountID("op/alice"))
        #expect(outcome.record.displayName == "Alice")
        guard case .verified(let algorithm, let keyID) = outcome.record.idToken?.signature else {
            Issue.record("the ID token was not verified")
            return
        }
        #expect(algorithm == "RS256" && keyID == "k1")
        #expect(world.storedSecrets()?.refreshToken != nil)
        #expect(world.accounts.map(\.id) == [outcome.record.id])
        let exchange = try #require(world.provider.tokenRequests.first)
        #expect(exchange["grant_type"] == "authorization_code")
        #expect(exchange["code_verifier"] != nil, "PKCE: the verifier goes with the code (RFC 7636 §4.5)")
        #expect(progress.names == ["discovering", "waitingForBrowser", "exchangingCode", "verifying"])
    }

    @Test("The first account becomes active; a second one does not take it over")
    func firstAccountBecomesActive() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world, as: "alice")
        #expect(alice.becameActive)
        #expect(world.active == alice.record.id)
        let bob = try await signedIn(world, as: "bob")
        #expect(!bob.becameActive)
        #expect(world.active == alice.record.id)
    }

    @Test("An account replacing a vanished active account becomes active")
    func vanishedActiveAccountIsReplaced() async throws {
        let world = StubWorld()
        world.files.withLock { $0.active = AccountID("op/gone") }
        let outcome = try await signedIn(world)
        #expect(outcome.becameActive && world.active == outcome.record.id)
    }

    @Test("RFC 6749 §4.1.2.1: a denied authorization stores nothing and sends no token request")
    func deniedAuthorizationStoresNothing() async throws {
        let world = StubWorld()
        world.browserAction.withLock {
            $0 = { url in
                let state = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "state" }?.value ?? ""
                return [[("error", "access_denied"), ("state", state), ("iss", "https://op.test")]]
            }
        }
        let error = await #expect(throws: AppError.self) { try await SignIn(world.environment()).run(SignInRequest(providerID: "op"), progress: { _ in }) }
        #expect(error?.title == "Access denied" && error?.disposition == .other, "\(String(describing: error))")
        #expect(world.provider.count("/token") == 0)
        #expect(world.accounts.isEmpty && world.storedSecrets() == nil)
    }

    @Test("RFC 6749 §10.12: a callback with another state is not accepted; no token request, nothing stored")
    func stateMismatchIsRefused() async throws {
        let world = StubWorld()
        let provider = world.provider
        world.browserAction.withLock {
            $0 = { _ in [[("code", provider.issueCode(subject: "mallory", nonce: nil)), ("state", "forged-state")]] }
        }
        let error = await #expect(throws: AppError.self) { try await SignIn(world.environment()).run(SignInRequest(providerID: "op"), progress: { _ in }) }
        #expect(error?.title == "State mismatch" && error?.disposition == .securityRelevant, "\(String(describing: error))")
        #expect(world.provider.count("/token") == 0)
        #expect(world.accounts.isEmpty && world.storedSecrets("mallory") == nil)
    }

    @Test("A store that cannot be written fails the sign-in before any browser opens")
    func lockedStoreOpensNoBrowser() async throws {
        let world = StubWorld()
        world.storeWritable.withLock { $0 = false }
        world.approveInBrowser()
        do {
            _ = try await SignIn(world.environment()).run(SignInRequest(providerID: "op"), progress: { _ in })
            Issue.record("the sign-in succeeded with a locked store")
        } catch {
            #expect(error.disposition == .storeLocked)
        }
        #expect(world.browserOpened.withLock { $0.isEmpty })
    }

    @Test("An unknown provider is a usage error naming the configured ones")
    func unknownProviderIsUsageError() throws {
        let world = StubWorld()
        do {
            _ = try SignIn(world.environment()).resolveProvider("nope")
            Issue.record("an unknown provider was accepted")
        } catch {
            #expect(error.disposition == .usage)
            #expect(error.detail.contains("op"))
        }
        #expect(try SignIn(world.environment()).resolveProvider(nil) == ProviderID("op"))
    }

    @Test("Two subjects that differ only in Unicode normalisation are two accounts, each with its own secrets")
    func subjectsAreComparedExactly() async throws {
        let world = StubWorld()
        let composed = try await signedIn(world, as: "caf\u{E9}")
        let decomposed = try await signedIn(world, as: "cafe\u{301}")
        #expect(composed.record.id != decomposed.record.id)
        #expect(world.accounts.count == 2)
        #expect(world.storedSecrets("caf\u{E9}")?.refreshToken != world.storedSecrets("cafe\u{301}")?.refreshToken)
        #expect(Set([composed.record.id, decomposed.record.id]).count == 2, "hashing agrees with ==")
    }

    @Test("Provider names are compared code unit for code unit")
    func providerNameIsComparedExactly() throws {
        let world = StubWorld()
        world.files.withLock { $0.providers = [ProviderConfig(id: "caf\u{E9}", issuer: URL(string: "https://op.test")!, clientID: "rp-native")] }
        let error = #expect(throws: AppError.self) { try SignIn(world.environment()).resolveProvider("cafe\u{301}") }
        #expect(error?.title == "Unknown provider 'café'" && error?.disposition == .usage, "\(String(describing: error))")
        #expect(try SignIn(world.environment()).resolveProvider("caf\u{E9}") == ProviderID("caf\u{E9}"))
    }

    @Test("A token response without token_type signs in as Bearer and the account carries the warning")
    func missingTokenTypeIsAWarning() async throws {
        let world = StubWorld()
        world.provider.script.withLock { $0.omitTokenType = true }
        let outcome = try await signedIn(world)
        #expect(outcome.record.tokenWarnings?.count == 1)
        #expect(world.accounts.first?.tokenWarnings == outcome.record.tokenWarnings, "persisted for status and the TUI")
        #expect(world.storedSecrets()?.defaultAccessToken?.tokenType == "Bearer")
        world.provider.script.withLock { $0.omitTokenType = false }
        let refreshed = try await RefreshAccount(world.environment()).run(outcome.record.id, force: true)
        #expect(refreshed.tokenWarnings == nil, "a correct answer clears it")
    }

    @Test("Extra scopes are split on spaces and added once after the provider's")
    func extraScopesAreSplitAndDeduplicated() async throws {
        let world = StubWorld()
        world.approveInBrowser()
        let outcome = try await SignIn(world.environment()).run(SignInRequest(providerID: "op", extraScopes: ["email openid", "email"]), progress: { _ in })
        #expect(outcome.record.requestedScopes == ["openid", "profile", "email", "offline_access"])
    }

    @Test("RFC 8628 §3.5: device flow polls through authorization_pending and slow_down (+5 s), then succeeds")
    func deviceFlowPendingSlowDownSuccess() async throws {
        let world = StubWorld()
        world.provider.script.withLock { $0.devicePolls = ["authorization_pending", "slow_down"] }
        let progress = ProgressLog()
        let outcome = try await SignIn(world.environment()).run(SignInRequest(providerID: "op", flow: .device)) { progress.append($0) }
        #expect(outcome.record.subject == "bob")
        #expect(world.sleeps.withLock { $0 } == [.seconds(5), .seconds(5), .seconds(10)])
        #expect(progress.names.first == "discovering" && progress.names.contains("deviceCode"))
        #expect(world.browserOpened.withLock { $0.isEmpty }, "the device flow never opens a browser")
    }

    @Test("DEV-03: a relative verification_uri_complete does not end the device sign-in; the display has the note and no complete URI")
    func deviceFlowRelativeCompleteURI() async throws {
        let world = StubWorld()
        world.provider.script.withLock { $0.verificationURIComplete = "/device?user_code=ABCD-EFGH" }
        let progress = ProgressLog()
        let outcome = try await SignIn(world.environment()).run(SignInRequest(providerID: "op", flow: .device)) { progress.append($0) }
        #expect(outcome.record.id == AccountID("op/bob"))
        let display = progress.all.compactMap { step -> DeviceCodeDisplay? in if case .deviceCode(let display) = step { display } else { nil } }.first
        #expect(display?.verificationURI.absoluteString == "https://op.test/activate")
        #expect(display?.verificationURIComplete == nil)
        #expect(display?.notes.count == 1)
    }

    @Test("IDT-12: an ID token issued a week ago (exp still ahead) ends the sign-in; nothing is stored")
    func signInRefusesWeekOldIDToken() async throws {
        let world = StubWorld()
        let now = Int(world.now.timeIntervalSince1970)
        world.provider.script.withLock { $0.extraClaimsJSON = #"{"iat": \#(now - 7 * 86_400), "exp": \#(now + 3600)}"# }
        world.approveInBrowser()
        let error = await #expect(throws: AppError.self) {
            _ = try await SignIn(world.environment()).run(SignInRequest(providerID: "op"), progress: { _ in })
        }
        #expect(error?.title == "ID token issued too long ago", "\(String(describing: error))")
        #expect(world.accounts.isEmpty)
        #expect(world.storedSecrets() == nil)
    }

    @Test("RFC 8628 §3.5: expired_token ends the device flow; nothing is stored")
    func deviceFlowExpired() async throws {
        let world = StubWorld()
        world.provider.script.withLock { $0.devicePolls = ["authorization_pending", "expired_token"] }
        let error = await #expect(throws: AppError.self) { try await SignIn(world.environment()).run(SignInRequest(providerID: "op", flow: .device), progress: { _ in }) }
        #expect(error?.title == "The device code expired" && error?.disposition == .other, "\(String(describing: error))")
        #expect(world.accounts.isEmpty)
    }
}

/// Progress reports of a sign-in, by case name.
final class ProgressLog: Sendable {
    private let items = Mutex<[SignInProgress]>([])
    func append(_ progress: SignInProgress) { items.withLock { $0.append(progress) } }
    var all: [SignInProgress] { items.withLock { $0 } }
    var names: [String] {
        items.withLock { $0 }.map { progress in
            switch progress {
            case .discovering: "discovering"
            case .waitingForBrowser: "waitingForBrowser"
            case .exchangingCode: "exchangingCode"
            case .deviceCode: "deviceCode"
            case .devicePending: "devicePending"
            case .deviceSlowDown: "deviceSlowDown"
            case .verifying: "verifying"
            case .waitingForPaste: "waitingForPaste"
            case .pastedLineRefused: "pastedLineRefused"
            case .pastedRedirectAccepted: "pastedRedirectAccepted"
            }
        }
    }
}
