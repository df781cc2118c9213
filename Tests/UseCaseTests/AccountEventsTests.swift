import AppCore
import AuthEngine
import CredentialStore
import Foundation
import Synchronization
import Testing

/// Events from every refresh, sign-in and sign-out (``AccountEvents``), over the stub world's
/// ledger, hooks and notifications: the same rule and ledger as `check`.
@Suite("Account events outside check (use case, stub environment)")
struct AccountEventsTests {
    @Test("A refresh of an account that is fine, no hook configured: nothing written, nothing run, nothing shown")
    func quietWhenNothingChanged() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        world.advance(10)
        _ = try await RefreshAccount(world.environment()).run(alice.record.id, force: true)
        #expect(world.ledgerWrites.withLock { $0 } == 0, "no ledger write on the way of token")
        #expect(world.hooksRun.withLock { $0 }.isEmpty && world.notifications.withLock { $0 }.isEmpty)
        #expect(world.ledger.withLock { $0 }.entries.isEmpty)
    }

    @Test("check.json's hooks run for signed_in, each refresh and signed_out; a refresh that sends nothing is no event")
    func hooksFromConfiguration() async throws {
        let world = StubWorld()
        world.checkConfiguration.withLock { $0.hooks = ["h"] }
        let alice = try await signedIn(world)
        let id = alice.record.id.rawValue
        _ = try await RefreshAccount(world.environment()).run(alice.record.id, force: false)  // fresh: nothing sent
        world.advance(10)
        _ = try await RefreshAccount(world.environment()).runAll(alice.record.id, force: true)  // the accounts screen's r
        #expect(await SignOut(world.environment()).run(alice.record.id, options: SignOutOptions(localOnly: true)) { _ in }.removed)
        #expect(world.hooksRun.withLock { $0 } == ["h signed_in \(id)", "h refreshed \(id)", "h signed_out \(id)"])
        #expect(world.ledgerWrites.withLock { $0 } == 0)
    }

    @Test("invalid_grant from token's refresh: needs_signin told once across processes, notified when check.json says notify; a later refresh that works is recovered, replacing it")
    func needsSignInToldOnceThenRecovered() async throws {
        let world = StubWorld()
        world.checkConfiguration.withLock { $0.hooks = ["h"]; $0.notify = true }
        let alice = try await signedIn(world)
        let id = alice.record.id.rawValue
        world.hooksRun.withLock { $0 = [] }
        for _ in 0..<2 {
            world.provider.script.withLock { $0.nextTokenError = (400, ["error": "invalid_grant"], [:]) }
            await #expect(throws: AppError.self) { _ = try await RefreshAccount(world.environment()).run(alice.record.id, force: true) }
        }
        #expect(world.hooksRun.withLock { $0 } == ["h needs_signin \(id)"], "told once, though two processes saw it")
        #expect(world.notifications.withLock { $0 } == ["needs_signin \(id) 0"])
        #expect(world.ledger.withLock { $0 }.entries[alice.record.id]?.notificationID == 1)
        _ = try await signedIn(world)
        world.advance(10)
        _ = try await RefreshAccount(world.environment()).run(alice.record.id, force: true)
        #expect(world.hooksRun.withLock { $0 }.suffix(3) == ["h signed_in \(id)", "h refreshed \(id)", "h recovered \(id)"])
        #expect(world.notifications.withLock { $0 } == ["needs_signin \(id) 0", "recovered \(id) 1"], "replaces the first")
    }

    @Test("Transient failures of refreshes outside check: told on the third attempt in a row, once; check's own refreshes tell nothing themselves")
    func transientAfterThreeAttempts() async throws {
        let world = StubWorld()
        world.checkConfiguration.withLock { $0.hooks = ["h"] }
        let alice = try await signedIn(world)
        world.hooksRun.withLock { $0 = [] }
        for _ in 0..<4 {
            world.provider.script.withLock { $0.nextTokenError = (503, ["error": "temporarily_unavailable"], [:]) }
            await #expect(throws: AppError.self) { _ = try await RefreshAccount(world.environment()).run(alice.record.id, force: true) }
        }
        #expect(world.hooksRun.withLock { $0 } == ["h transient \(alice.record.id.rawValue)"])
        world.hooksRun.withLock { $0 = [] }
        let record = try #require(world.accounts.first)
        _ = try await RefreshAccount(world.environment(), tellsEvents: false).run(record, force: true)
        #expect(world.hooksRun.withLock { $0 }.isEmpty, "check tells what its refreshes found itself")
    }

    @Test("A ledger that cannot be kept (a directory): check's events still reach the hooks, not as notifications, and the file's error is returned; outside check nothing is told")
    func unkeptLedgerStillTellsCheck() async throws {
        let world = StubWorld()
        let damage = FileDamage(file: "/state/authdeck/check-state.json", damage: "it is a directory, not a file").appError
        world.ledgerUnusable.withLock { $0 = damage }
        let local = ProviderID("local")
        let outcome = CheckAccounts.Outcome(account: AccountID(provider: local, subject: "alice"), provider: local, handle: "local/alice",
                                            verdict: .needsSignIn, reason: "invalid_grant", refreshed: true, endsAt: nil)
        let events = AccountEvents(world.environment())
        let check = events.tell([outcome], check: true, hooks: ["h"], notify: true)
        #expect(check.told.map(\.event) == [.refreshed, .needsSignIn])
        let id = outcome.account.rawValue
        #expect(world.hooksRun.withLock { $0 } == ["h refreshed \(id)", "h needs_signin \(id)"])
        #expect(world.notifications.withLock { $0 }.isEmpty, "no notification without the ledger's replaces id")
        #expect(check.unkept?.disposition == .fileDamaged(file: "/state/authdeck/check-state.json"), "\(String(describing: check.unkept))")
        world.hooksRun.withLock { $0 = [] }
        let outside = events.tell([outcome], check: false, hooks: ["h"], notify: true)
        #expect(outside.told.isEmpty && outside.unkept != nil && world.hooksRun.withLock { $0 }.isEmpty)
    }

    @Test("check's refresh of a slow provider says 'provider is slow' as token and refresh do, and keeps the late answer")
    func checkSaysSlowProvider() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let notices = Mutex<[RefreshNotice]>([])
        var env = world.environment()
        env.http = { _ in
            HTTPClient { (request: HTTPRequest) async throws(TransportError) -> HTTPResponse in
                if request.url.path == "/token" {
                    // The provider answers only after the notice was given (no wall-clock wait).
                    while notices.withLock({ $0.isEmpty }) { await Task.yield() }
                }
                return world.provider.handle(request, now: world.now)
            }
        }
        let outcomes = try await CheckAccounts(env).run([alice.record], settings: CheckAccounts.Settings(backstop: 0)) { notice in
            notices.withLock { $0.append(notice) }
        }
        #expect(notices.withLock { $0 } == [.providerSlow(account: "Alice")])
        #expect(outcomes.map(\.verdict) == [.ok] && outcomes.first?.refreshed == true)
    }
}
