// Presentation: pure functions from values (and an explicit `now`) to display strings.
import Foundation

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
    static func secondsUntil(_ date: Date, now: Date) -> Int {
        let d = date.timeIntervalSince(now)
        return d >= 0 ? Int(d.rounded(.down)) : -Int((-d).rounded(.down))
    }

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

    /// Absolute local time "2026-11-30 10:04:10 +00:00" in `timeZone`.
    public static func absolute(_ date: Date, timeZone: TimeZone) -> String {
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = timeZone
        let c = cal.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let off = timeZone.secondsFromGMT(for: date)
        let sign = off < 0 ? "-" : "+"
        let p2 = { (n: Int) in n < 10 ? "0\(n)" : "\(n)" }
        return "\(c.year!)-\(p2(c.month!))-\(p2(c.day!)) \(p2(c.hour!)):\(p2(c.minute!)):\(p2(c.second!)) "
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

public enum TokenMask {
    /// Known recognizable token prefixes (kept visible, gh style).
    static let prefixes = ["github_pat_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "glpat-", "xoxb-", "xoxp-", "eyJ"]

    /// Masks a token: keeps a recognizable prefix (a known one such as `gho_` or `eyJ`, else the
    /// first 4 characters) and replaces the rest with stars, at most 16 so the length is not shown
    /// exactly. Tokens shorter than 12 characters are all stars. Never returns the secret part.
    public static func mask(_ token: String) -> String {
        if token.isEmpty { return "" }
        if token.count < 12 { return String(repeating: "*", count: min(token.count, 16)) }
        let prefix = prefixes.first { token.hasPrefix($0) } ?? String(token.prefix(4))
        let rest = token.count - prefix.count
        return Sanitizer.visible(prefix) + String(repeating: "*", count: min(max(rest, 4), 16))
    }
}

public enum ClaimOrder {
    /// RFC 7519 §4.1 registered claims, in the RFC's order.
    public static let registered = ["iss", "sub", "aud", "exp", "nbf", "iat", "jti"]
    /// OIDC Core §2 (ID token) and §5.1 (standard claims), in the spec's order.
    public static let oidc = [
        "auth_time", "nonce", "acr", "amr", "azp", "at_hash", "c_hash", "sid",
        "name", "given_name", "family_name", "middle_name", "nickname", "preferred_username", "profile", "picture",
        "website", "email", "email_verified", "gender", "birthdate", "zoneinfo", "locale", "phone_number",
        "phone_number_verified", "address", "updated_at",
    ]
    /// Top-level claim order: registered first, then OIDC, then the rest alphabetically.
    public static func sorted(_ keys: [String]) -> [String] {
        func rank(_ k: String) -> (Int, Int, String) {
            if let i = registered.firstIndex(of: k) { return (0, i, k) }
            if let i = oidc.firstIndex(of: k) { return (1, i, k) }
            return (2, 0, k)
        }
        return keys.sorted { rank($0) < rank($1) }
    }
}

/// One line of a claims table.
public struct ClaimRow: Equatable, Sendable {
    /// Tree prefix for nested members ("├─ ", "│  └─ "); empty at top level.
    public var guide: String
    public var key: String
    public var value: String
    public var isTimestamp: Bool
    /// Relative time for timestamp claims ("in 4m 10s", "3m ago").
    public var relative: String?
}

public enum ClaimTable {
    /// Flattens a claims object into rows: top-level keys in `ClaimOrder`, nested objects as a tree
    /// (members alphabetical), arrays of scalars joined with ", ", timestamps as absolute + relative.
    /// Every key and value is sanitised.
    public static func rows(_ value: ClaimValue, now: Date, timeZone: TimeZone) -> [ClaimRow] {
        guard case .object(let members) = value else {
            return [ClaimRow(guide: "", key: "", value: scalarText(value), isTimestamp: false, relative: nil)]
        }
        let order = ClaimOrder.sorted(members.map(\.key))
        let byKey = Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
        var out: [ClaimRow] = []
        for key in order {
            append(key: key, value: byKey[key]!, guide: "", childGuide: "", now: now, timeZone: timeZone, into: &out)
        }
        return out
    }

    private static func append(key: String, value: ClaimValue, guide: String, childGuide: String,
                               now: Date, timeZone: TimeZone, into out: inout [ClaimRow]) {
        let k = Sanitizer.visible(key)
        switch value {
        case .number(let n) where TimeText.isTimestampClaim(key):
            if let (date, ms) = TimeText.claimDate(n) {
                let abs = TimeText.absolute(date, timeZone: timeZone) + (ms ? " (ms)" : "")
                out.append(ClaimRow(guide: guide, key: k, value: abs, isTimestamp: true,
                                    relative: TimeText.relative(date, now: now)))
            } else {
                out.append(ClaimRow(guide: guide, key: k, value: scalarText(value), isTimestamp: false, relative: nil))
            }
        case .object(let members):
            out.append(ClaimRow(guide: guide, key: k, value: members.isEmpty ? "{}" : "", isTimestamp: false, relative: nil))
            let sorted = members.sorted { $0.key < $1.key }
            for (i, m) in sorted.enumerated() {
                let last = i == sorted.count - 1
                append(key: m.key, value: m.value, guide: childGuide + (last ? "└─ " : "├─ "),
                       childGuide: childGuide + (last ? "   " : "│  "), now: now, timeZone: timeZone, into: &out)
            }
        case .array(let items) where items.contains(where: { if case .object = $0 { true } else if case .array = $0 { true } else { false } }):
            out.append(ClaimRow(guide: guide, key: k, value: "", isTimestamp: false, relative: nil))
            for (i, item) in items.enumerated() {
                let last = i == items.count - 1
                append(key: "[\(i)]", value: item, guide: childGuide + (last ? "└─ " : "├─ "),
                       childGuide: childGuide + (last ? "   " : "│  "), now: now, timeZone: timeZone, into: &out)
            }
        default:
            out.append(ClaimRow(guide: guide, key: k, value: scalarText(value), isTimestamp: false, relative: nil))
        }
    }

    /// A scalar (or flat array) as sanitised text; strings unquoted.
    public static func scalarText(_ value: ClaimValue) -> String {
        switch value {
        case .string(let s): return Sanitizer.visible(s)
        case .number(let n):
            if n.rounded() == n, abs(n) < 1e15 { return String(Int64(n)) }
            return String(n)
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        case .array(let items): return items.isEmpty ? "[]" : items.map(scalarText).joined(separator: ", ")
        case .object(let m): return m.isEmpty ? "{}" : "{…}"
        }
    }
}

public enum StatusText {
    /// The status column: "valid", "expiring soon", "refresh failed, retrying in 8s", …
    public static func text(_ status: AccountStatus, now: Date) -> String {
        switch status {
        case .valid: return "valid"
        case .expiringSoon: return "expiring soon"
        case .refreshing: return "refreshing"
        case .expired: return "expired"
        case .needsSignIn: return "needs login"
        case .refreshFailed(let at):
            guard let at else { return "refresh failed" }
            let s = TimeText.secondsUntil(at, now: now)
            return s > 0 ? "refresh failed, retrying in \(TimeText.duration(s))" : "refresh failed, retrying"
        case .storeLocked: return "keyring locked"
        }
    }

    public static func role(_ status: AccountStatus) -> StyleRole {
        switch status {
        case .valid: .statusValid
        case .expiringSoon: .statusExpiringSoon
        case .refreshing: .statusRefreshing
        case .expired: .statusExpired
        case .needsSignIn, .refreshFailed, .storeLocked: .statusError
        }
    }

    /// One-glyph status marker that works without colour.
    public static func glyph(_ status: AccountStatus) -> String {
        switch status {
        case .valid: "●"
        case .expiringSoon: "◐"
        case .refreshing: "↻"
        case .expired: "○"
        case .needsSignIn, .refreshFailed, .storeLocked: "✗"
        }
    }
}
