import FoundationEssentials
import StrictJSON

/// What `authdeck check` last reported per account, kept across runs (`check-state.json` in the
/// state directory, written atomically under its lock) so that a state is told once — by a hook
/// or on stderr — and again only when it changes, whichever process saw it, and so that trouble
/// that may be temporary is told only once it has lasted ``transientRunsBeforeReport`` runs.
public struct CheckLedger: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        /// The state last reported (told); `ok` for an account never in trouble.
        public var reported: CheckAccounts.Verdict
        /// Runs in a row that found the account in transient trouble.
        public var transientRuns: Int
        public var checkedAt: Date
        /// The id the notification server gave the account's last desktop notification, which
        /// the next one replaces (`replaces_id`), so that they do not stack.
        public var notificationID: UInt32?

        public init(reported: CheckAccounts.Verdict, transientRuns: Int, checkedAt: Date, notificationID: UInt32? = nil) {
            self.reported = reported
            self.transientRuns = transientRuns
            self.checkedAt = checkedAt
            self.notificationID = notificationID
        }
    }

    /// What is told, per account and change.
    public enum Event: String, Sendable, CaseIterable {
        case needsSignIn = "needs_signin", endingSoon = "ending_soon", transient, failed = "error", recovered, refreshed
        /// A person's own acts, told to hooks (never as a desktop notification).
        case signedIn = "signed_in", signedOut = "signed_out"
        /// `check` found the credential store locked (no account could be checked): told once,
        /// with an empty account and provider, until a check reads the store again.
        case storeLocked = "store_locked"

        /// A change of the account's (or the store's) state: what a desktop notification is shown for.
        public var isStateChange: Bool {
            switch self {
            case .needsSignIn, .endingSoon, .transient, .failed, .recovered, .storeLocked: true
            case .refreshed, .signedIn, .signedOut: false
            }
        }
    }

    public struct Told: Sendable, Equatable {
        public var account: AccountID
        public var provider: ProviderID
        public var event: Event
        /// What happened, in a line: "local/alice needs sign-in".
        public var summary: String
        /// What to do about it, or why ("" when nothing more is to be said).
        public var detail: String

        /// Summary and detail in one line (stderr, `AUTHDECK_MESSAGE`).
        public var message: String

        public init(account: AccountID, provider: ProviderID, event: Event, summary: String, detail: String, message: String) {
            self.account = account
            self.provider = provider
            self.event = event
            self.summary = summary
            self.detail = detail
            self.message = message
        }
    }

    /// Transient trouble is told when it has lasted this many runs in a row (default 3).
    public static let transientRunsBeforeReport = 3

    public var entries: [AccountID: Entry]
    /// Since when `check` has found the store locked (told once); nil once a check read it.
    public var storeLockedSince: Date?
    /// The id of the last desktop notification about the store, which the next one replaces.
    public var storeNotificationID: UInt32?

    public init(entries: [AccountID: Entry] = [:], storeLockedSince: Date? = nil, storeNotificationID: UInt32? = nil) {
        self.entries = entries
        self.storeLockedSince = storeLockedSince
        self.storeNotificationID = storeNotificationID
    }

    /// The account (and provider) of a ``Told`` about the store itself: empty.
    public static let storeAccount = AccountID("")

    /// The ledger after `check` found the store locked at `now`, and `store_locked` to tell
    /// when that is new (``storeLockedSince`` was nil). `hint` says what to do.
    public func storeLocked(now: Date, reason: String, hint: String) -> (CheckLedger, [Told]) {
        guard storeLockedSince == nil else { return (self, []) }
        var next = self
        next.storeLockedSince = now
        let summary = "authdeck check cannot read the credential store: it is locked"
        let detail = hint.isEmpty ? reason : "\(reason). \(hint)"
        return (next, [Told(account: Self.storeAccount, provider: ProviderID(""), event: .storeLocked, summary: summary, detail: detail,
                            message: "\(summary) (\(reason))")])
    }

    /// The ledger after `outcomes` at `now`, and the events to tell, in the outcomes' order: a
    /// `refreshed` for each refresh; a state event when the reported state changes (transient
    /// only after ``transientRunsBeforeReport`` runs; back to ok: `recovered`). Accounts not in
    /// `outcomes` keep their entries (a check of one account forgets nothing of the others);
    /// `existing` drops the entries of accounts that no longer exist.
    ///
    /// `check`: a run of `authdeck check`, which stamps each entry's `checkedAt`. Outcomes seen
    /// elsewhere (a refresh by `token`, the accounts screen) leave `checkedAt` and add no entry
    /// for an account that is fine and never was in trouble, so that the ledger — and its file —
    /// changes only when a state does.
    public func applying(_ outcomes: [CheckAccounts.Outcome], now: Date, existing: Set<AccountID>? = nil, check: Bool = true,
                         transientRunsBeforeReport: Int = Self.transientRunsBeforeReport) -> (CheckLedger, [Told]) {
        var next = self
        if let existing { next.entries = next.entries.filter { existing.contains($0.key) } }
        // A check that got this far read the store.
        if check { next.storeLockedSince = nil }
        var told: [Told] = []
        for outcome in outcomes {
            let previous = next.entries[outcome.account] ?? Entry(reported: .ok, transientRuns: 0, checkedAt: now)
            var entry = Entry(reported: previous.reported, transientRuns: outcome.verdict == .transient ? previous.transientRuns + 1 : 0,
                              checkedAt: check ? now : previous.checkedAt, notificationID: previous.notificationID)
            if outcome.refreshed { told.append(Self.told(.refreshed, outcome, runs: 0)) }
            let state: CheckAccounts.Verdict
            if outcome.verdict == .transient {
                // Transient trouble below the threshold changes nothing that was told.
                state = entry.transientRuns >= transientRunsBeforeReport ? .transient : previous.reported
            } else {
                state = outcome.verdict
            }
            if state != previous.reported {
                let event: Event = switch state {
                case .ok: .recovered
                case .needsSignIn: .needsSignIn
                case .endingSoon: .endingSoon
                case .transient: .transient
                case .failed: .failed
                }
                told.append(Self.told(event, outcome, runs: entry.transientRuns))
            }
            entry.reported = state
            if check || next.entries[outcome.account] != nil || entry.reported != .ok || entry.transientRuns != 0 {
                next.entries[outcome.account] = entry
            }
        }
        return (next, told)
    }

    /// `signed_in` or `signed_out` for `record`. The ledger is not changed by a sign-in (the
    /// next check or refresh finds the account fine and tells `recovered`, replacing a
    /// notification of the trouble); a sign-out drops the account's entry.
    public static func told(_ event: Event, _ record: AccountRecord) -> Told {
        let handle = AccountResolution.handle(record)
        let summary = event == .signedOut ? "\(handle) signed out" : "\(handle) signed in"
        return Told(account: record.id, provider: record.providerID, event: event, summary: summary, detail: "", message: summary)
    }

    static func told(_ event: Event, _ outcome: CheckAccounts.Outcome, runs: Int) -> Told {
        let handle = outcome.handle, provider = outcome.provider.rawValue
        let (summary, detail, message): (String, String, String) = switch event {
        case .needsSignIn:
            ("\(handle) needs sign-in", "\(outcome.reason) — run authdeck login \(provider)",
             "\(handle) needs sign-in (\(outcome.reason)) — run authdeck login \(provider)")
        case .endingSoon:
            ("\(handle): \(outcome.reason)", "Sign in again with authdeck login \(provider) when it suits you.",
             "\(handle): \(outcome.reason) — sign in again with authdeck login \(provider) when it suits you")
        case .transient:
            ("\(handle) could not be refreshed", "\(runs) times in a row (\(outcome.reason)); retried by the next check",
             "\(handle) could not be refreshed \(runs) times in a row (\(outcome.reason)); retried by the next check")
        case .failed: ("\(handle) could not be refreshed", outcome.reason, "\(handle) could not be refreshed: \(outcome.reason)")
        case .recovered: ("\(handle) is fine again", "", "\(handle) is fine again")
        case .refreshed: ("\(handle) was refreshed", "", "\(handle) was refreshed")
        case .signedIn: ("\(handle) signed in", "", "\(handle) signed in")
        case .signedOut: ("\(handle) signed out", "", "\(handle) signed out")
        case .storeLocked: ("the credential store is locked", "", "the credential store is locked")
        }
        return Told(account: outcome.account, provider: outcome.provider, event: event, summary: summary, detail: detail, message: message)
    }
}

// `check-state.json`: {"accounts": {"<id>": {"reported": "ok", "transientRuns": 0, "checkedAt": "…", "notificationID": 7}},
// "store": {"lockedSince": "…", "notificationID": 8}} (`notificationID` only once a desktop notification was shown;
// `store` only when there is something to keep).
extension CheckLedger {
    public init(json: JSONValue) throws(JSONShapeError) {
        let reader = try JSONReader(json)
        let accounts = try reader.optionalMap("accounts") { (value, path) throws(JSONShapeError) -> Entry in
            let entry = try JSONReader(value, path: path)
            guard let reported = CheckAccounts.Verdict(rawValue: try entry.string("reported")) else {
                throw entry.shapeError("reported", expected: JSONReader.oneOf(CheckAccounts.Verdict.self))
            }
            let notification = try entry.optionalInt("notificationID")
            guard notification.map({ $0 >= 0 && $0 <= Int(UInt32.max) }) != false else {
                throw entry.shapeError("notificationID", expected: "a notification id from 0 to \(UInt32.max)")
            }
            return Entry(reported: reported, transientRuns: try entry.int("transientRuns"), checkedAt: try entry.date("checkedAt", .iso8601),
                         notificationID: notification.map { UInt32($0) })
        } ?? [:]
        let store = try reader.optionalReader("store")
        let storeNotification = try store?.optionalInt("notificationID")
        guard storeNotification.map({ $0 >= 0 && $0 <= Int(UInt32.max) }) != false else {
            throw (store ?? reader).shapeError("notificationID", expected: "a notification id from 0 to \(UInt32.max)")
        }
        self.init(entries: Dictionary(uniqueKeysWithValues: accounts.map { (AccountID($0.key), $0.value) }),
                  storeLockedSince: try store?.optionalDate("lockedSince", .iso8601), storeNotificationID: storeNotification.map { UInt32($0) })
    }

    public var json: JSONValue {
        var store: [String: JSONValue] = [:]
        if let since = storeLockedSince { store["lockedSince"] = .date(since, .iso8601) }
        if let id = storeNotificationID { store["notificationID"] = .int(Int(id)) }
        var document: [String: JSONValue] = ["accounts": accountsJSON]
        if !store.isEmpty { document["store"] = .object(store) }
        return .object(document)
    }

    private var accountsJSON: JSONValue {
        .object(Dictionary(uniqueKeysWithValues: entries.map { id, entry in
            var members: [String: JSONValue] = ["reported": .string(entry.reported.rawValue), "transientRuns": .int(entry.transientRuns),
                                                "checkedAt": .date(entry.checkedAt, .iso8601)]
            if let notification = entry.notificationID { members["notificationID"] = .int(Int(notification)) }
            return (id.rawValue, JSONValue.object(members))
        }))
    }
}
