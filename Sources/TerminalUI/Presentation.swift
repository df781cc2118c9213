// Presentation: pure functions from values (and an explicit `now`) to display strings.
// The time formatter (`TimeText`) and the claim order (`ClaimOrder`) live in AppCore, shared with the CLI.
import AppCore
import FoundationEssentials
import TextSupport

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
    /// Every key and value is sanitised. Numeric timestamps are read in `provider`'s units
    /// (``ClaimTime/date(claim:_:provider:)``).
    public static func rows(_ value: ClaimValue, now: Date, timeZone: DisplayTimeZone, provider: ProviderConfig? = nil) -> [ClaimRow] {
        guard case .object(let members) = value else {
            return [ClaimRow(guide: "", key: "", value: scalarText(value), isTimestamp: false, relative: nil)]
        }
        let order = ClaimOrder.sorted(members.map(\.key))
        let byKey = Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
        var out: [ClaimRow] = []
        for key in order {
            append(key: key, value: byKey[key]!, guide: "", childGuide: "", now: now, timeZone: timeZone, provider: provider, into: &out)
        }
        return out
    }

    private static func append(key: String, value: ClaimValue, guide: String, childGuide: String,
                               now: Date, timeZone: DisplayTimeZone, provider: ProviderConfig?, into out: inout [ClaimRow]) {
        let k = Sanitizer.visible(key)
        switch value {
        case .number(let n) where ClaimTime.date(claim: key, n, provider: provider) != nil:
            let (date, ms) = ClaimTime.date(claim: key, n, provider: provider)!
            out.append(ClaimRow(guide: guide, key: k, value: TimeText.absolute(date, timeZone: timeZone) + (ms ? " (ms)" : ""), isTimestamp: true,
                                relative: TimeText.relative(date, now: now)))
        case .object(let members):
            out.append(ClaimRow(guide: guide, key: k, value: members.isEmpty ? "{}" : "", isTimestamp: false, relative: nil))
            let sorted = members.sorted { $0.key < $1.key }
            for (i, m) in sorted.enumerated() {
                let last = i == sorted.count - 1
                append(key: m.key, value: m.value, guide: childGuide + (last ? "└─ " : "├─ "),
                       childGuide: childGuide + (last ? "   " : "│  "), now: now, timeZone: timeZone, provider: provider, into: &out)
            }
        case .array(let items) where items.contains(where: { if case .object = $0 { true } else if case .array = $0 { true } else { false } }):
            out.append(ClaimRow(guide: guide, key: k, value: "", isTimestamp: false, relative: nil))
            for (i, item) in items.enumerated() {
                let last = i == items.count - 1
                append(key: "[\(i)]", value: item, guide: childGuide + (last ? "└─ " : "├─ "),
                       childGuide: childGuide + (last ? "   " : "│  "), now: now, timeZone: timeZone, provider: provider, into: &out)
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
    /// The one label set, shared with `status` (``AccountStatus/label(now:)``).
    public static func text(_ status: AccountStatus, now: Date) -> String { status.label(now: now) }

    public static func role(_ status: AccountStatus) -> StyleRole {
        switch status {
        case .valid: .statusValid
        case .expiringSoon: .statusExpiringSoon
        case .refreshing, .queued, .refreshingElsewhere: .statusRefreshing
        case .expired, .refreshOutcomeUnknown: .statusExpired
        case .needsSignIn, .refreshFailed, .storeLocked, .fileDamaged: .statusError
        }
    }

    /// One-glyph status marker that works without colour.
    public static func glyph(_ status: AccountStatus) -> String {
        switch status {
        case .valid: "●"
        case .expiringSoon: "◐"
        case .refreshing, .refreshingElsewhere: "↻"
        case .queued: "…"
        case .expired: "○"
        case .refreshOutcomeUnknown: "?"
        case .needsSignIn, .refreshFailed, .storeLocked, .fileDamaged: "✗"
        }
    }
}
