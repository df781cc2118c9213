@testable import AppCore
import AuthEngine
import Foundation
import StrictJSON
import Testing

/// ``RefreshChanges``: what a refresh changed, decided from the record before and after, kept in
/// `accounts.json`, said in words (escaped) and once by the accessible mode.
@Suite("What a refresh changed")
struct RefreshChangesTests {
    /// Alice before and after a refresh that drops `profile`, grants `email`, changes her ID token's
    /// `email` and access token's `role`, and moves the expiries.
    static func pair() -> (AccountRecord, AccountRecord) {
        var old = record("alice")
        old.requestedScopes = ["openid", "profile", "offline_access"]
        old.grantedScopes = ["openid", "profile", "extra"]
        old.idToken = IDTokenInfo(header: .object([:]), claims: .object(["sub": .string("alice"), "email": .string("a@example.test"),
                                                                         "iat": .number(1), "nonce": .string("n"), "old": .bool(true)]),
                                  signature: .verified(algorithm: "RS256", keyID: "k1"), expiresAt: t0.addingTimeInterval(3600), issuedAt: t0)
        old.accessTokens[0].informationalClaims = .object(["header": .object([:]), "claims": .object(["role": .string("reader"), "exp": .number(1)])])
        var new = old
        new.grantedScopes = ["openid", "email"]
        new.accessTokens[0].expiresAt = t0.addingTimeInterval(7200)
        new.accessTokens[0].informationalClaims = .object(["header": .object([:]), "claims": .object(["role": .string("writer\u{1B}[2J"), "exp": .number(2)])])
        new.idToken?.claims = .object(["sub": .string("alice"), "email": .string("b@example.test"), "iat": .number(2),
                                        "groups": .array([.string("dev")])])
        new.idToken?.expiresAt = t0.addingTimeInterval(7200)
        new.lastRefreshAt = t0.addingTimeInterval(3000)
        return (old, new)
    }

    @Test("Scopes granted and removed; one asked for at sign-in is flagged as dropped by the provider; per-token claims are left out")
    func decidedFromRecords() {
        let (old, new) = Self.pair()
        let changes = RefreshChanges.between(old, new, resource: nil, refreshTokenRotated: true)
        #expect(changes.refreshedAt == t0.addingTimeInterval(3000))
        #expect(changes.scopesAdded == ["email"] && changes.scopesRemoved == ["profile", "extra"])
        #expect(changes.scopesDroppedByProvider == ["profile"], "extra was never asked for")
        #expect(changes.newIDToken)
        #expect(changes.idTokenClaims.map(\.name) == ["email", "groups", "old"], "iat and nonce differ on every token")
        #expect(changes.idTokenClaims.map(\.kind) == [.changed, .added, .removed])
        #expect(changes.idTokenClaims[0].before == #""a@example.test""# && changes.idTokenClaims[0].after == #""b@example.test""#)
        #expect(changes.accessTokenClaims == [.init(name: "role", kind: .changed, before: #""reader""#, after: #""writer\u001B[2J""#)])
        #expect(changes.expiries.map(\.token) == [.accessToken, .idToken])
        #expect(changes.expiries[0].after == t0.addingTimeInterval(7200))
        #expect(changes.refreshTokenRotated == true)
        #expect(!changes.isRoutine)
    }

    @Test("An ID token that did not change (none sent, or refused) is no claim change; a long value is cut short")
    func unchangedIDTokenAndShortValues() {
        let (old, _) = Self.pair()
        var new = old
        new.accessTokens[0].informationalClaims = .object(["claims": .object(["role": .string(String(repeating: "x", count: 100))])])
        let changes = RefreshChanges.between(old, new, resource: nil, refreshTokenRotated: false)
        #expect(!changes.newIDToken && changes.idTokenClaims.isEmpty)
        let after = try? #require(changes.accessTokenClaims.first?.after)
        #expect(after?.count == RefreshChanges.valueLimit && after?.hasSuffix("…") == true)
        #expect(changes.scopesAdded.isEmpty && changes.scopesRemoved.isEmpty && changes.expiries.isEmpty)
        // An expiry read back from the file (whole seconds) against the same one still holding its fraction: not moved.
        var fraction = old
        fraction.accessTokens[0].expiresAt = old.accessTokens[0].expiresAt?.addingTimeInterval(0.4)
        #expect(RefreshChanges.between(old, fraction, resource: nil, refreshTokenRotated: nil).expiries.isEmpty)
    }

    @Test("Kept in accounts.json and read back the same; a file without it reads as before")
    func roundTripsThroughTheFile() throws {
        var (old, new) = Self.pair()
        new.lastRefreshChanges = RefreshChanges.between(old, new, resource: nil, refreshTokenRotated: true)
        let read = try AccountRecord(json: parseJSONValue(new.json.serialized()))
        #expect(read == new)
        old.lastRefreshChanges = nil
        #expect(try AccountRecord(json: parseJSONValue(old.json.serialized())).lastRefreshChanges == nil)
    }

    @Test("In words: the dropped scope flagged, claim values escaped, rotation as yes or no, never a token")
    func lines() {
        let (old, new) = Self.pair()
        let lines = RefreshChanges.between(old, new, resource: nil, refreshTokenRotated: true).lines { "T+\(Int($0.timeIntervalSince(t0)))" }
        #expect(lines == [
            "refreshed T+3000",
            "scopes granted: email",
            "scopes DROPPED BY THE PROVIDER (asked for and held before, not granted now): profile",
            "scopes removed: extra",
            #"ID token claim email changed: "a@example.test" → "b@example.test""#,
            #"ID token claim groups added: ["dev"]"#,
            "ID token claim old removed (was true)",
            #"access token claim role changed: "reader" → "writer\u001B[2J""#,
            "access token expires T+7200 (was T+3600)",
            "ID token expires T+7200 (was T+3600)",
            "refresh token rotated: yes (a new one replaced it)",
        ])
        var routine = RefreshChanges(refreshedAt: t0)
        routine.refreshTokenRotated = false
        #expect(routine.lines { _ in "now" } == ["refreshed now", "scopes: no change", "claims: no change", "refresh token rotated: no (the same one is kept)"])
        #expect(routine.spokenSummary == nil)
    }

    @Test("A claim name from outside with a control character is escaped when shown")
    func escapesNames() {
        let change = RefreshChanges.ClaimChange(name: "x\u{1B}]52;c;", kind: .added, before: nil, after: "1")
        #expect(RefreshChanges.text(change) == #"x\e]52;c; added: 1"#)
    }

    @Test("Accessible mode: a refresh that changed more than the expiries is said once, in words")
    func announcedOnce() {
        let (old, new) = Self.pair()
        var before = AnnouncementsTests.state([old])
        before.accounts[0].record.lastRefreshChanges = nil
        var after = before
        after.now = t0.addingTimeInterval(3000)
        after.accounts[0].record = new
        after.accounts[0].record.lastRefreshChanges = RefreshChanges.between(old, new, resource: nil, refreshTokenRotated: true)
        let said = Announcements.changes(from: before, to: after, now: after.now)
        #expect(said.contains("Alice at Local demo: the refresh changed scopes granted: email; scopes dropped by the provider: profile;"
            + " scopes removed: extra; ID token claims changed: email, groups, old; access token claims changed: role; refresh token rotated"),
            "\(said)")
        var later = after
        later.now = t0.addingTimeInterval(3001)
        #expect(Announcements.changes(from: after, to: later, now: later.now).isEmpty, "said once")
    }
}
