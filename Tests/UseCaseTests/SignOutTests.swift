import AppCore
import AuthEngine
import CredentialStore
import Foundation
import Synchronization
import Testing

@Suite("Sign-out (use case, stub environment)")
struct SignOutUseCaseTests {
    @Test("Order: revoke refresh token, revoke access token, delete local secrets, then the provider's logout page")
    func orderAndStepReports() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let refresh = try #require(world.storedSecrets()?.refreshToken?.exposedValue)
        let access = try #require(world.storedSecrets()?.defaultAccessToken?.token.exposedValue)
        let secretsAtLogoutPage = Mutex<Bool?>(nil)
        world.onBrowserOpen.withLock { [world] in
            $0 = { url in if url.path == "/logout" { secretsAtLogoutPage.withLock { $0 = world.storedSecrets() != nil } } }
        }
        world.browserAction.withLock {
            $0 = { url in
                let state = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "state" }?.value ?? ""
                return [[("state", state)]]
            }
        }
        let steps = Mutex<[SignOutStepResult]>([])
        let outcome = await SignOut(world.environment()).run(alice.record.id, options: SignOutOptions()) { step in steps.withLock { $0.append(step) } }
        #expect(outcome.removed)
        let reported = steps.withLock { $0 }
        #expect(reported.map(\.step) == [.revokeRefreshToken, .revokeAccessToken, .deleteLocalSecrets, .endSession, .endSession])
        guard case .started(let said) = reported[3].outcome, case .done = reported[4].outcome else { Issue.record("\(reported)"); return }
        #expect(said.contains("waiting up to 5 s"), "the bounded wait (the browser timeout when shorter than 60 s) is said before it begins: \(said)")
        #expect(world.provider.revokedTokens == [refresh, access])
        #expect(secretsAtLogoutPage.withLock { $0 } == false, "local secrets were gone before the logout page opened")
        let opened = try #require(world.browserOpened.withLock { $0.last })
        #expect(!opened.absoluteString.contains("id_token_hint"), "no token in the browser's argv")
        #expect(opened.path.hasPrefix("/logout-start/"), "the browser opens the listener's one-time page: \(opened)")
        // RP-Initiated Logout 1.0 §2: the hint reaches the provider (through the 303), as it RECOMMENDS.
        let followed = try #require(world.browserFollowed.withLock { $0.last })
        #expect(followed.path == "/logout" && followed.absoluteString.contains("id_token_hint="), "\(followed)")
    }

    @Test("Sign-out clears the active account, removes the record and reports both")
    func clearsActiveAccount() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        #expect(world.active == alice.record.id)
        let outcome = await SignOut(world.environment()).run(alice.record.id, options: SignOutOptions(localOnly: true, endSession: false)) { _ in }
        #expect(outcome == SignOutOutcome(removed: true, clearedActive: true))
        #expect(world.active == nil && world.accounts.isEmpty && world.storedSecrets() == nil)
        #expect(world.provider.revokedTokens.isEmpty, "--local-only revokes nothing")
    }

    @Test("Signing out an account that is not the active one keeps the active account and says so")
    func keepsAnotherActiveAccount() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let bob = try await signedIn(world, as: "bob")
        #expect(world.active == alice.record.id)
        let outcome = await SignOut(world.environment()).run(bob.record.id, options: SignOutOptions(localOnly: true, endSession: false)) { _ in }
        #expect(outcome == SignOutOutcome(removed: true, clearedActive: false))
        #expect(world.active == alice.record.id)
        #expect(world.accounts.map(\.id) == [alice.record.id])
    }

    @Test("A sign-out that removed nothing reports the active account unchanged")
    func failedSignOutReportsNothingChanged() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let outcome = await SignOut(world.environment()).run(AccountID("op/nobody"), options: SignOutOptions(localOnly: true, endSession: false)) { _ in }
        #expect(outcome == .notRemoved)
        #expect(world.active == alice.record.id)
    }
}

@Suite("Provider administration (use case)")
struct ProviderAdminTests {
    @Test("A provider name in use is refused; one with accounts cannot be removed; removal drops its cache")
    func addAndRemoveRules() async throws {
        let world = StubWorld()
        let env = world.environment()
        do {
            try ProviderAdmin(env).add(world.provider.config, clientSecret: nil)
            Issue.record("a duplicate provider was added")
        } catch {
            #expect(error.disposition == .usage)
        }
        let alice = try await signedIn(world)
        let error = await #expect(throws: AppError.self) { try await ProviderAdmin(env).remove("op") }
        #expect(error?.title == "Provider 'op' still has 1 signed-in account (op/alice)" && error?.disposition == .other, "\(String(describing: error))")
        _ = await SignOut(env).run(alice.record.id, options: SignOutOptions(localOnly: true, endSession: false)) { _ in }
        #expect(world.cache.withLock { !$0.isEmpty })
        try await ProviderAdmin(env).remove("op")
        #expect(world.files.withLock { $0.providers.isEmpty })
        #expect(world.cache.withLock { $0.isEmpty }, "cached discovery and JWKS go with the provider")
    }
}
