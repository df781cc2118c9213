import AppCore
import Foundation
import StrictJSON
import Testing

/// `authdeck check`'s rules: when an account is due (``CheckAccounts/isDue(_:now:backstop:)``),
/// its verdict, and what is told across runs (``CheckLedger``).
@Suite("check: backstop, verdicts, and each state told once")
struct CheckRulesTests {
    func outcome(_ name: String, _ verdict: CheckAccounts.Verdict, refreshed: Bool = false) -> CheckAccounts.Outcome {
        CheckAccounts.Outcome(account: AccountID(provider: local, subject: name), provider: local, handle: "local/\(name)",
                              verdict: verdict, reason: verdict == .ok ? "" : "why", refreshed: refreshed, endsAt: nil)
    }

    @Test("Due when the last refresh, else the sign-in, is at least the backstop ago; never when it needs sign-in")
    func due() {
        var alice = record("alice")
        #expect(!CheckAccounts.isDue(alice, now: t0.addingTimeInterval(5399), backstop: 5400))
        #expect(CheckAccounts.isDue(alice, now: t0.addingTimeInterval(5400), backstop: 5400))
        alice.lastRefreshAt = t0.addingTimeInterval(3600)
        #expect(!CheckAccounts.isDue(alice, now: t0.addingTimeInterval(5400), backstop: 5400))
        #expect(CheckAccounts.isDue(alice, now: t0, backstop: 0) == false, "a refresh in the future is not 0 s ago")
        #expect(CheckAccounts.isDue(alice, now: t0.addingTimeInterval(3600), backstop: 0))
        alice.needsSignInSince = t0
        #expect(!CheckAccounts.isDue(alice, now: t0.addingTimeInterval(99_999), backstop: 0))
        let settings = CheckAccounts.Settings(backstop: 60, providerBackstops: ["local": 10])
        #expect(settings.backstop(for: "local") == 10 && settings.backstop(for: "other") == 60)
    }

    @Test("Verdicts: needs sign-in when marked; ending soon when the refresh token ends within the threshold; without one, the access token")
    func verdicts() {
        var alice = record("alice")
        #expect(CheckAccounts.verdict(alice, now: t0, endingSoonWithin: 86400).0 == .ok)
        alice.refreshTokenExpiresAt = t0.addingTimeInterval(3600)
        #expect(CheckAccounts.verdict(alice, now: t0, endingSoonWithin: 86400).0 == .endingSoon)
        #expect(CheckAccounts.verdict(alice, now: t0, endingSoonWithin: 60).0 == .ok)
        #expect(CheckAccounts.verdict(alice, now: t0.addingTimeInterval(3601), endingSoonWithin: 60).0 == .needsSignIn)
        let noRefresh = record("bob", expiresIn: 600, refresh: false)
        #expect(CheckAccounts.endsAt(noRefresh) == t0.addingTimeInterval(600))
        #expect(CheckAccounts.verdict(noRefresh, now: t0, endingSoonWithin: 3600).0 == .endingSoon)
        alice.needsSignInSince = t0
        #expect(CheckAccounts.verdict(alice, now: t0, endingSoonWithin: 60).0 == .needsSignIn)
    }

    @Test("A state is told once: needs sign-in, again nothing, then recovered; refreshes are always told")
    func toldOnce() {
        let first = CheckLedger().applying([outcome("alice", .needsSignIn), outcome("bob", .ok, refreshed: true)], now: t0)
        #expect(first.1.map(\.event) == [.needsSignIn, .refreshed])
        #expect(first.1[0].message.contains("run authdeck login local"))
        let second = first.0.applying([outcome("alice", .needsSignIn), outcome("bob", .ok)], now: t0)
        #expect(second.1.isEmpty)
        let third = second.0.applying([outcome("alice", .ok, refreshed: true)], now: t0)
        #expect(third.1.map(\.event) == [.refreshed, .recovered])
        #expect(third.0.entries[AccountID(provider: local, subject: "bob")]?.reported == .ok, "an account not checked keeps its entry")
    }

    @Test("Transient trouble is told on the third run in a row, once; a success in between starts the count again")
    func transientThreshold() {
        var ledger = CheckLedger()
        var events: [[CheckLedger.Event]] = []
        for verdict in [CheckAccounts.Verdict.transient, .transient, .ok, .transient, .transient, .transient, .transient, .ok] {
            let (next, told) = ledger.applying([outcome("alice", verdict)], now: t0)
            ledger = next
            events.append(told.map(\.event))
        }
        #expect(events == [[], [], [], [], [], [.transient], [], [.recovered]])
    }

    @Test("A locked store is told once; a check that read the store clears it, so the next lock is told again; kept in the JSON")
    func storeLockedOnce() throws {
        let (first, told) = CheckLedger().storeLocked(now: t0, reason: "locked", hint: "unlock it")
        #expect(told.map(\.event) == [.storeLocked] && told[0].account.rawValue.isEmpty && told[0].detail == "locked. unlock it")
        #expect(first.storeLocked(now: t0, reason: "locked", hint: "").1.isEmpty, "told once")
        var kept = first
        kept.storeNotificationID = 3
        #expect(try CheckLedger(json: try parseJSONValue(kept.json.serialized(pretty: true))) == kept)
        let (read, _) = first.applying([outcome("alice", .ok)], now: t0)
        #expect(read.storeLockedSince == nil)
        #expect(read.storeLocked(now: t0, reason: "locked", hint: "").1.count == 1)
        #expect(first.applying([outcome("alice", .ok)], now: t0, check: false).0.storeLockedSince == t0, "only a check clears it")
    }

    @Test("Entries of removed accounts are dropped; the ledger reads back from its JSON")
    func jsonAndRemoved() throws {
        var (ledger, _) = CheckLedger().applying([outcome("alice", .endingSoon), outcome("bob", .transient)], now: t0)
        ledger.entries[AccountID(provider: local, subject: "alice")]?.notificationID = 7
        let read = try CheckLedger(json: try parseJSONValue(ledger.json.serialized(pretty: true)))
        #expect(read == ledger)
        let (pruned, _) = read.applying([], now: t0, existing: [AccountID(provider: local, subject: "alice")])
        #expect(pruned.entries.keys.map(\.rawValue) == ["local/alice"])
        #expect(throws: JSONShapeError.self) { try CheckLedger(json: try parseJSONValue(Data(#"{"accounts": {"x": {"reported": "fine", "transientRuns": 0, "checkedAt": "2026-01-01T00:00:00Z"}}}"#.utf8))) }
        #expect(throws: JSONShapeError.self) { try CheckLedger(json: try parseJSONValue(Data(#"{"accounts": {"x": {"reported": "ok", "transientRuns": 0, "checkedAt": "2026-01-01T00:00:00Z", "notificationID": -1}}}"#.utf8))) }
    }
}
