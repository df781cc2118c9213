import FoundationEssentials
import QuickToken

/// The one time formatter of both front ends: durations, countdowns and relative times from an
/// explicit `now` (pure; whole seconds rounded toward `now`).
public enum TimeText {
    /// A duration in whole seconds as "42s", "4m 10s", "3h 5m", "2d 4h" (two units at most).
    public static func duration(_ seconds: Int) -> String {
        let s = max(0, seconds)
        if s < 60 { return "\(s)s" }
        if s < 3600 { return "\(s / 60)m \(s % 60)s" }
        if s < 86400 { return "\(s / 3600)h \((s % 3600) / 60)m" }
        return "\(s / 86400)d \((s % 86400) / 3600)h"
    }

    /// A past duration, coarser than `duration`: "42s", "3m", "3h 5m", "2d 4h".
    public static func pastDuration(_ seconds: Int) -> String {
        let s = max(0, seconds)
        if s < 60 { return "\(s)s" }
        if s < 3600 { return "\(s / 60)m" }
        return duration(s)
    }

    /// Whole seconds from `now` to `date`, rounded toward `now` (so "in 4m 10s" lasts a full second).
    /// Clamped to ±``farSeconds``: a claim such as `exp: 1e300` must not trap the conversion.
    public static func secondsUntil(_ date: Date, now: Date) -> Int {
        let d = min(max(date.timeIntervalSince(now), -farSeconds), farSeconds)
        return d >= 0 ? Int(d.rounded(.down)) : -Int((-d).rounded(.down))
    }

    /// The largest number of seconds the texts and countdowns work with (about 31.7 million
    /// years); anything farther is shown as that far.
    public static let farSeconds: TimeInterval = QuickStatus.farSeconds

    /// Token expiry countdown: "in 4m 10s" while valid, "expires now" in the last second,
    /// "expired 3m ago" after.
    public static func countdown(to expiry: Date, now: Date) -> String {
        let s = secondsUntil(expiry, now: now)
        if s > 0 { return "in " + duration(s) }
        if expiry.timeIntervalSince(now) > 0 { return "expires now" }
        return "expired " + pastDuration(-s) + " ago"
    }

    /// A relative time: "in 4m 10s", "now", "3m ago".
    public static func relative(_ date: Date, now: Date) -> String {
        let s = secondsUntil(date, now: now)
        if s > 0 { return "in " + duration(s) }
        if s == 0 { return "now" }
        return pastDuration(-s) + " ago"
    }

    /// Absolute local time "2026-11-30 10:04:10 +00:00" in `timeZone`; a date outside the years
    /// 1–9999 (a claim such as `exp: 1e300`) is shown as the nearest end of that range.
    public static func absolute(_ date: Date, timeZone: DisplayTimeZone) -> String {
        let date = Date(timeIntervalSince1970: min(max(date.timeIntervalSince1970, -62_135_596_800), 253_402_300_799))
        let off = timeZone.secondsFromGMT(for: date)
        // The wall-clock fields of `date` in the zone are the UTC fields of `date + offset`.
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = .gmt
        let c = cal.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date.addingTimeInterval(TimeInterval(off)))
        let sign = off < 0 ? "-" : "+"
        let p2 = { (n: Int?) in (n ?? 0) < 10 ? "0\(n ?? 0)" : "\(n ?? 0)" }
        return "\(c.year ?? 0)-\(p2(c.month))-\(p2(c.day)) \(p2(c.hour)):\(p2(c.minute)):\(p2(c.second)) "
            + "\(sign)\(p2(abs(off) / 3600)):\(p2((abs(off) % 3600) / 60))"
    }

    /// Interprets a numeric timestamp claim. Seconds since the epoch (RFC 7519 NumericDate) unless
    /// the value is too large to be seconds (> 1e11, i.e. after year 5138): then milliseconds
    /// (Logto's `updated_at` / `created_at`).
    public static func claimDate(_ value: Double) -> (date: Date, isMilliseconds: Bool)? {
        guard value.isFinite, value >= 0 else { return nil }
        if value > 1e11 { return (Date(timeIntervalSince1970: value / 1000), true) }
        return (Date(timeIntervalSince1970: value), false)
    }

    /// Claims whose numeric values are timestamps: the RFC 7519 / OIDC ones and any `*_at`.
    public static func isTimestampClaim(_ key: String) -> Bool {
        ["exp", "nbf", "iat", "auth_time", "updated_at"].contains(key) || key.hasSuffix("_at")
    }

    /// Fraction (0…1) of the lifetime left, for countdown bars; nil without a lifetime.
    public static func remainingFraction(expiresAt: Date, lifetime: TimeInterval?, now: Date) -> Double? {
        guard let lifetime, lifetime > 0 else { return nil }
        return min(1, max(0, expiresAt.timeIntervalSince(now) / lifetime))
    }
}

/// The zone absolute times are shown in: an offset from UTC for each instant (daylight saving time
/// moves it). Not Foundation's `TimeZone`: in the shipped binary (FoundationEssentials, no ICU)
/// `TimeZone.current` is always GMT and `TimeZone(identifier:)` knows no names, so the live zone
/// comes from the C library (`localtime_r`, AppCoreLive's `DisplayTimeZone.system`).
public struct DisplayTimeZone: Sendable, Equatable, CustomStringConvertible {
    /// How the zone is named in test output ("UTC", "UTC+01:00", "system").
    public let description: String
    private let offset: @Sendable (Date) -> Int

    /// - Parameters:
    ///   - name: a name for test output and equality.
    ///   - secondsFromGMT: seconds east of UTC at an instant (−18 h … +18 h).
    public init(name: String, secondsFromGMT: @escaping @Sendable (Date) -> Int) {
        self.description = name
        self.offset = secondsFromGMT
    }

    /// Seconds east of UTC at `date`.
    public func secondsFromGMT(for date: Date) -> Int { offset(date) }

    /// UTC: what tests pin, and what a model shows until the app passes the system zone.
    public static let utc = DisplayTimeZone(name: "UTC") { _ in 0 }

    /// A fixed offset of `seconds` east of UTC.
    public static func fixed(seconds: Int) -> DisplayTimeZone {
        let sign = seconds < 0 ? "-" : "+"
        let h = abs(seconds) / 3600, m = (abs(seconds) % 3600) / 60
        return DisplayTimeZone(name: "UTC\(sign)\(h < 10 ? "0" : "")\(h):\(m < 10 ? "0" : "")\(m)") { _ in seconds }
    }

    /// Equal when named alike (byte for byte).
    public static func == (a: DisplayTimeZone, b: DisplayTimeZone) -> Bool {
        a.description.utf8.elementsEqual(b.description.utf8)
    }
}
