import AuthEngine
import FoundationEssentials

/// What changed between two states of the app, said once in words: the accessible mode's
/// lines (`authdeck --accessible`), a pure function of (previous state, new state,
/// now). A screen reader hears each change once — never a repaint, never a countdown's every
/// second: an access token's time left is said only when it crosses a threshold (an hour, ten
/// minutes, a minute, expired; the last one crossed when several were at once).
///
/// Said: an account signed in or out; an access token renewed ("Alice at Local demo: access
/// token renewed, valid for 10 minutes"); a threshold crossed; a status that needs the person
/// (needs sign-in, refresh failed, refresh outcome unknown, file damaged) when it
/// begins; what a refresh changed beyond the expiries (``RefreshChanges/spokenSummary``), once;
/// the active account changed; the store locked or unlocked; a new flash message
/// (the screen's notes, warnings and errors, with their level in words).
public enum Announcements {
    /// Seconds left at which a countdown is said: 1 h, 10 min, 1 min (expiry is said apart).
    public static let thresholds: [Int] = [3_600, 600, 60]

    /// The lines for the change from `old` (as it was at `old.now`) to `new` at `now`, in the
    /// order of `new.accounts`, then the active account, the store and the flash.
    public static func changes(from old: AppState, to new: AppState, now: Date) -> [String] {
        var lines: [String] = []
        let before = Dictionary(old.accounts.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for account in new.accounts {
            let name = self.name(account.record, new.providers)
            let status = account.status(now: now, policy: new.policy, storeLocked: new.credentialStore.isLocked)
            guard let previous = before[account.id] else {
                lines.append("\(name): signed in" + validity(account.record.accessTokenExpiresAt, status, now))
                continue
            }
            let was = previous.status(now: old.now, policy: old.policy, storeLocked: old.credentialStore.isLocked)
            let renewed = account.record.accessTokenExpiresAt != previous.record.accessTokenExpiresAt
                || account.record.lastRefreshAt != previous.record.lastRefreshAt
            if let attention = attention(status), attention != self.attention(was) {
                lines.append("\(name): \(status.label(now: now))")
            } else if renewed, status.accessTokenUsable {
                lines.append("\(name): access token renewed" + validity(account.record.accessTokenExpiresAt, status, now))
            } else if status.accessTokenUsable, let expiresAt = account.record.accessTokenExpiresAt,
                      let countdown = crossed(expiresAt, from: old.now, to: now) {
                lines.append("\(name): \(countdown)")
            }
            // What a refresh changed beyond the expiries, said once (the record keeps it until the next refresh).
            if let changes = account.record.lastRefreshChanges, changes != previous.record.lastRefreshChanges,
               let summary = changes.spokenSummary {
                lines.append("\(name): the refresh changed \(summary)")
            }
        }
        let remaining = Set(new.accounts.map(\.id))
        for account in old.accounts where !remaining.contains(account.id) {
            lines.append("\(name(account.record, old.providers)): signed out")
        }
        let active = new.effectiveActiveAccountID
        if active != old.effectiveActiveAccountID, let id = active, let account = new.accounts.first(where: { $0.id == id }) {
            lines.append("\(name(account.record, new.providers)) is now the active account")
        }
        if new.credentialStore.isLocked != old.credentialStore.isLocked {
            lines.append(new.credentialStore.isLocked ? "The credential store is locked" : "The credential store is unlocked")
        }
        if let flash = new.flash, flash != old.flash {
            let level = switch flash.level {
            case .info: "Note"
            case .warn: "Warning"
            case .error: "Error"
            }
            lines.append("\(level): \(flash.text)")
        }
        return lines
    }

    /// The countdown line when the time left to `expiresAt` crossed a threshold (or zero)
    /// between `then` and `now`: the last one crossed, or nil.
    public static func crossed(_ expiresAt: Date, from then: Date, to now: Date) -> String? {
        let was = TimeText.secondsUntil(expiresAt, now: then), left = TimeText.secondsUntil(expiresAt, now: now)
        if was > 0 && left <= 0 { return "access token expired" }
        guard let threshold = thresholds.last(where: { was > $0 && left <= $0 }) else { return nil }
        return "access token valid for \(spoken(threshold)) more"
    }

    /// "Alice at Local demo": the account as the accounts list names it (the alias with the display
    /// name, else the display name) and the provider's name.
    public static func name(_ record: AccountRecord, _ providers: [ProviderConfig]) -> String {
        let who = record.alias.map { "\($0) (\(record.displayName))" } ?? record.displayName
        let provider = providers.first { $0.id == record.providerID }?.displayName ?? record.providerID.rawValue
        return "\(who) at \(provider)"
    }

    /// ", valid for 10 minutes" (whole minutes said as minutes, hours as hours), "" without an expiry.
    static func validity(_ expiresAt: Date?, _ status: AccountStatus, _ now: Date) -> String {
        guard status.accessTokenUsable, let expiresAt else { return "" }
        let left = TimeText.secondsUntil(expiresAt, now: now)
        return left > 0 ? ", valid for \(spoken(left))" : ", access token expired"
    }

    /// A duration in words: "45 seconds", "1 minute", "10 minutes", "1 hour 5 minutes", "2 days 4 hours".
    public static func spoken(_ seconds: Int) -> String {
        func unit(_ count: Int, _ word: String) -> String { "\(count) \(word)\(count == 1 ? "" : "s")" }
        if seconds < 60 { return unit(seconds, "second") }
        if seconds < 3_600 { return unit(seconds / 60, "minute") }
        if seconds < 86_400 {
            let minutes = seconds % 3_600 / 60
            return unit(seconds / 3_600, "hour") + (minutes == 0 ? "" : " " + unit(minutes, "minute"))
        }
        let hours = seconds % 86_400 / 3_600
        return unit(seconds / 86_400, "day") + (hours == 0 ? "" : " " + unit(hours, "hour"))
    }

    /// The statuses that need the person, by kind (a failed refresh's retry time aside); nil otherwise.
    static func attention(_ status: AccountStatus) -> String? {
        switch status {
        case .needsSignIn: "needs sign-in"
        case .refreshFailed: "refresh failed"
        case .refreshOutcomeUnknown: "outcome unknown"
        case .fileDamaged: "file damaged"
        // The store's lock is said once for all accounts.
        case .storeLocked, .valid, .expiringSoon, .refreshing, .queued, .expired, .refreshingElsewhere: nil
        }
    }
}
