import AppCore
import AuthEngine
import Foundation
import Testing

/// ``Announcements``: what the accessible mode says, once, for a change of state.
@Suite("Announcements, each change said once")
struct AnnouncementsTests {
    static func state(_ records: [AccountRecord], active: AccountID? = nil, now: Date = t0) -> AppState {
        var state = loadedState(records, active: active, now: now)
        var provider = ProviderConfig(id: local, issuer: URL(string: "http://127.0.0.1:8000/o"), clientID: "c")
        provider.displayName = "Local demo"
        state.providers = [provider]
        return state
    }

    /// The lines of a walk through the clock alone, a tick of `step` seconds from `start` to `end` (seconds after t0).
    static func walk(_ state: AppState, from start: Int, to end: Int, step: Int) -> [(Int, String)] {
        var said: [(Int, String)] = []
        var previous = state
        previous.now = t0.addingTimeInterval(Double(start))
        var second = start + step
        while second <= end {
            var next = previous
            next.now = t0.addingTimeInterval(Double(second))
            said += Announcements.changes(from: previous, to: next, now: next.now).map { (second, $0) }
            previous = next
            second += step
        }
        return said
    }

    @Test("Every second of a two-hour token's life: one line at an hour, ten minutes, a minute and the expiry, nothing else")
    func countdownAtThresholdsOnly() {
        let state = Self.state([record("alice", expiresIn: 7_200)])
        let said = Self.walk(state, from: 0, to: 7_300, step: 1)
        #expect(said.map(\.1) == ["Alice at Local demo: access token valid for 1 hour more", "Alice at Local demo: access token valid for 10 minutes more",
                                  "Alice at Local demo: access token valid for 1 minute more", "Alice at Local demo: access token expired"])
        #expect(said.map(\.0) == [3_600, 6_600, 7_140, 7_200])
    }

    @Test("Whatever the tick (a suspended laptop, a slow loop), at most one line per threshold per account, and never one that was not crossed",
          arguments: [7, 59, 61, 599, 601, 1_000, 3_601, 10_000])
    func coarseTicks(_ step: Int) {
        let state = Self.state([record("alice", expiresIn: 7_200), record("bob", expiresIn: 650)])
        let said = Self.walk(state, from: 0, to: 10_000, step: step)
        for who in ["alice", "bob"] {
            let lines = said.map(\.1).filter { $0.hasPrefix(who.capitalized) }
            #expect(Set(lines).count == lines.count, "\(who): \(lines)")
            #expect(lines.last == "\(who.capitalized) at Local demo: access token expired", "\(who) at step \(step): \(lines)")
        }
        #expect(!said.map(\.1).contains("Bob at Local demo: access token valid for 1 hour more"), "bob never had an hour left")
    }

    @Test("Nothing changed, nothing said; a state compared with itself at its own instant says nothing")
    func quiet() {
        let state = Self.state([record("alice"), record("bob")], active: AccountID(provider: local, subject: "alice"))
        #expect(Announcements.changes(from: state, to: state, now: t0).isEmpty)
        var later = state
        later.now = t0.addingTimeInterval(30)
        #expect(Announcements.changes(from: state, to: later, now: later.now).isEmpty)
    }

    @Test("Sign-in, renewal, sign-out, the active account, a grant that needs sign-in, the store's lock and a message: each in words, once")
    func events() {
        let alice = AccountID(provider: local, subject: "alice")
        let one = Self.state([record("alice", expiresIn: 600)], active: alice)
        var two = Self.state([record("alice", expiresIn: 600), record("bob", expiresIn: 3_600)], active: alice)
        #expect(Announcements.changes(from: one, to: two, now: t0) == ["Bob at Local demo: signed in, valid for 1 hour"])
        var renewed = two
        renewed.now = t0.addingTimeInterval(60)
        renewed.accounts[0].record.accessTokens[0].expiresAt = t0.addingTimeInterval(660)
        #expect(Announcements.changes(from: two, to: renewed, now: renewed.now) == ["Alice at Local demo: access token renewed, valid for 10 minutes"])
        var switched = two
        switched.activeAccountID = AccountID(provider: local, subject: "bob")
        #expect(Announcements.changes(from: two, to: switched, now: t0) == ["Bob at Local demo is now the active account"])
        var ended = two
        ended.accounts[1].record.needsSignInSince = t0
        #expect(Announcements.changes(from: two, to: ended, now: t0) == ["Bob at Local demo: needs sign-in"])
        #expect(Announcements.changes(from: ended, to: ended, now: t0).isEmpty, "said when it begins, not again")
        var locked = two
        locked.credentialStore.isLocked = true
        #expect(Announcements.changes(from: two, to: locked, now: t0) == ["The credential store is locked"])
        var flashed = two
        flashed.flash = Flash(level: .error, text: "Refresh failed: invalid_grant")
        #expect(Announcements.changes(from: two, to: flashed, now: t0) == ["Error: Refresh failed: invalid_grant"])
        #expect(Announcements.changes(from: flashed, to: flashed, now: t0).isEmpty)
        two.accounts.removeLast()
        two.activeAccountID = alice
        #expect(Announcements.changes(from: switched, to: two, now: t0) == ["Bob at Local demo: signed out", "Alice at Local demo is now the active account"])
    }

    @Test("Durations in words", arguments: [(1, "1 second"), (45, "45 seconds"), (60, "1 minute"), (600, "10 minutes"), (3_600, "1 hour"),
                                            (3_900, "1 hour 5 minutes"), (86_400, "1 day"), (180_000, "2 days 2 hours")])
    func spoken(_ seconds: Int, _ text: String) {
        #expect(Announcements.spoken(seconds) == text)
    }
}
