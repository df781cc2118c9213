import AppCore
import Foundation
import Testing
@testable import TerminalUI

@Suite("Presentation: countdowns, timestamps, masking, claim order")
struct PresentationTests {
    static let countdownCases: [(Double, String)] = [
        (250.0, "in 4m 10s"),
        (250.9, "in 4m 10s"),
        (42.0, "in 42s"),
        (60.0, "in 1m 0s"),
        (3599.0, "in 59m 59s"),
        (3600.0, "in 1h 0m"),
        (11109.0, "in 3h 5m"),
        (187200.0, "in 2d 4h"),
        (0.5, "expires now"),
        (0.0, "expired 0s ago"),
        (-42.0, "expired 42s ago"),
        (-180.0, "expired 3m ago"),
        (-239.0, "expired 3m ago"),
        (-7260.0, "expired 2h 1m ago"),
        (-259200.0, "expired 3d 0h ago"),
    ]

    @Test("Countdown formatting (\"in 4m 10s\", \"expired 3m ago\")", arguments: countdownCases)
    func countdown(offset: Double, expected: String) {
        #expect(TimeText.countdown(to: at(offset), now: pinnedNow) == expected)
    }

    @Test("Relative times for claims", arguments: [
        (250.0, "in 4m 10s"), (0.0, "now"), (-180.0, "3m ago"), (-5.0, "5s ago"), (-90000.0, "1d 1h ago"),
    ])
    func relative(offset: Double, expected: String) {
        #expect(TimeText.relative(at(offset), now: pinnedNow) == expected)
    }

    @Test("Absolute local time honours the time zone")
    func absolute() {
        #expect(TimeText.absolute(pinnedNow, timeZone: utc) == "2026-11-30 10:00:00 +00:00")
        let berlin = DisplayTimeZone.fixed(seconds: 3600)
        #expect(TimeText.absolute(pinnedNow, timeZone: berlin) == "2026-11-30 11:00:00 +01:00")
        let kolkata = DisplayTimeZone.fixed(seconds: 19_800)
        #expect(TimeText.absolute(pinnedNow, timeZone: kolkata) == "2026-11-30 15:30:00 +05:30")
        #expect(TimeText.absolute(pinnedNow, timeZone: .fixed(seconds: -11 * 3600)) == "2026-11-29 23:00:00 -11:00")
    }

    @Test("RFC 7519 NumericDate seconds vs Logto millisecond timestamps", arguments: [
        (1_796_032_800.0, 1_796_032_800.0, false),
        (1_796_032_800_000.0, 1_796_032_800.0, true),
        (0.0, 0.0, false),
    ])
    func claimDate(raw: Double, seconds: Double, isMS: Bool) throws {
        let r = try #require(TimeText.claimDate(raw))
        #expect(r.date.timeIntervalSince1970 == seconds)
        #expect(r.isMilliseconds == isMS)
    }

    @Test("Token masking keeps a recognizable prefix and stars the rest (gh style)", arguments: [
        ("gho_16C7e42F292c6912E7710c838347Ae178B4a", "gho_****************"),
        ("github_pat_11ABCDEFG0123456789", "github_pat_****************"),
        ("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0.sig", "eyJ****************"),
        ("at_0123456789abcdef0123", "at_0****************"),
        ("abcdefghijkl", "abcd********"),
        ("short", "*****"),
        ("", ""),
    ])
    func masking(token: String, expected: String) {
        #expect(TokenMask.mask(token) == expected)
    }

    @Test("A masked token never contains the secret part")
    func maskingHidesSecret() {
        let secret = "gho_SECRETPARTSECRETPART"
        #expect(!TokenMask.mask(secret).contains("SECRET"))
    }

    @Test("Claim order: RFC 7519 registered, then OIDC standard, then the rest alphabetically")
    func claimOrder() {
        let keys = ["zeta", "email", "exp", "alpha", "iss", "nonce", "jti", "sub", "name", "aud", "iat", "nbf", "auth_time"]
        #expect(ClaimOrder.sorted(keys) ==
            ["iss", "sub", "aud", "exp", "nbf", "iat", "jti", "auth_time", "nonce", "name", "email", "alpha", "zeta"])
    }

    @Test("Claims table: timestamps absolute + relative, nested objects as a tree, arrays joined")
    func claimTable() {
        let rows = ClaimTable.rows(Fixtures.idTokenClaims, now: pinnedNow, timeZone: utc)
        #expect(rows.map(\.key) == ["iss", "sub", "aud", "exp", "iat", "nonce", "amr", "name", "email", "address",
                                    "country", "geo", "lat", "lon", "locality", "updated_at", "zzz_custom"])
        let exp = rows.first { $0.key == "exp" }!
        #expect(exp.value == "2026-11-30 10:05:00 +00:00")
        #expect(exp.relative == "in 5m 0s")
        let updated = rows.first { $0.key == "updated_at" }!
        #expect(updated.value.hasSuffix("(ms)"))
        #expect(rows.first { $0.key == "amr" }!.value == "pwd, otp")
        #expect(rows.first { $0.key == "lat" }!.guide == "│  ├─ ")
        #expect(rows.first { $0.key == "locality" }!.guide == "└─ ")
    }

    @Test("Status texts: one label set for the TUI and `status`", arguments: [
        (AccountStatus.valid, "valid"),
        (.expiringSoon, "expiring soon"),
        (.refreshing, "refreshing"),
        (.expired, "expired"),
        (.needsSignIn, "needs sign-in"),
        (.refreshFailed(retryAt: at(8)), "refresh failed, retrying in 8s"),
        (.refreshFailed(retryAt: at(75)), "refresh failed, retrying in 1m 15s"),
        (.refreshFailed(retryAt: at(0)), "refresh failed, retrying"),
        (.storeLocked, "store locked"),
    ])
    func statusText(status: AccountStatus, expected: String) {
        #expect(StatusText.text(status, now: pinnedNow) == expected)
    }
}

@Suite("Redraw scheduling")
struct RedrawScheduleTests {
    @Test("The loop wakes when the nearest countdown text changes, else at the next minute")
    func nextRedraw() {
        var m = Fixtures.screen()
        m.flash = nil
        let now = pinnedNow.addingTimeInterval(0.25)
        // alice expires at +250 s: 249.75 s left, "in 4m 9s" until 0.75 s from now.
        m.accounts = [AccountRow(id: "a", displayName: "a", provider: "p", status: .valid, accessExpiresAt: at(250))]
        m.detail = nil
        #expect(abs(m.nextRedraw(after: now).timeIntervalSince(now) - 0.75) < 0.001)
        // Expired 2.5 s ago at now: the text changes when 3 s have passed.
        m.accounts[0].accessExpiresAt = now.addingTimeInterval(-2.5)
        #expect(abs(m.nextRedraw(after: now).timeIntervalSince(now) - 0.5) < 0.001)
        // Nothing counting down: the next minute of the header clock.
        m.accounts[0].accessExpiresAt = nil
        #expect(m.nextRedraw(after: now) == pinnedNow.addingTimeInterval(60))
    }
}
