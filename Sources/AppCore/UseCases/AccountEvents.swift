import FoundationEssentials

/// What is told about accounts, by every command and the accounts screen alike: each refresh
/// (`refreshed`), each change of an account's state (`needs_signin`, `ending_soon`, `transient`
/// once it has lasted ``CheckLedger/transientRunsBeforeReport`` attempts, `error`, `recovered`),
/// each sign-in (`signed_in`) and sign-out (`signed_out`). One rule (``CheckLedger``) and one
/// ledger (``AccountEventsClient``, `check-state.json`) for `check` and everything else, so a
/// state told by one process is not told again by another until it changes.
///
/// Outside `check`, what is told goes to `check.json`'s hooks, and to desktop notifications
/// when it says `"notify": true`; `check` adds its own `--hook`s and `--notify`. With neither
/// hooks nor a change of state, nothing is written and nothing is started: a refresh by `token`
/// costs one read of `check.json` and one of `check-state.json`.
public struct AccountEvents: Sendable {
    let env: AppEnvironment
    public init(_ env: AppEnvironment) { self.env = env }

    /// Applies `outcomes` to the ledger and tells what changed: a desktop notification for each
    /// change of state when `notify` (replacing the account's previous one, whose id the ledger
    /// keeps), then each hook for each event, one at a time, after the ledger's lock is released.
    ///
    /// A ledger that cannot be read or written (a directory, a symbolic link, a disk error) loses
    /// nothing of a `check`: what the ledger as read (empty when unreadable) says changed is told
    /// to the hooks all the same — without deduplication, and without notifications, which would
    /// stack — and the error is returned for the edge to say. Outside `check`, nothing is told then.
    /// - Parameters:
    ///   - check: a run of `authdeck check` (``CheckLedger/applying(_:now:existing:check:transientRunsBeforeReport:)``).
    ///   - existing: the accounts that exist (the others' entries are dropped).
    /// - Returns: the ledger as written (or as it would have been), the events told, and why the
    ///   ledger could not be kept (``AppError/Disposition/fileDamaged(file:)``), nil when it was.
    @discardableResult
    public func tell(_ outcomes: [CheckAccounts.Outcome], check: Bool, existing: Set<AccountID>? = nil, hooks: [String],
                     notify: Bool) -> (ledger: CheckLedger, told: [CheckLedger.Told], unkept: AppError?) {
        let events = env.events
        let now = env.now()
        // Without its lock first: when nothing changes (a refresh of an account that is fine),
        // nothing is written.
        let current = events.ledger()
        var (ledger, told) = current.applying(outcomes, now: now, existing: existing, check: check)
        var unkept: AppError?
        if ledger != current || told.contains(where: \.event.isStateChange) {
            var result = (current, [CheckLedger.Told]())
            do throws(AppError) {
                try events.updateLedger { file in
                    var (next, found) = file.applying(outcomes, now: now, existing: existing, check: check)
                    if notify {
                        for event in found where event.event.isStateChange {
                            if let id = events.notify(event, next.entries[event.account]?.notificationID ?? 0) {
                                next.entries[event.account]?.notificationID = id
                            }
                        }
                    }
                    file = next
                    result = (next, found)
                }
                (ledger, told) = result
            } catch {
                unkept = error
                if !check { return (current, [], error) }
            }
        }
        for event in told { for hook in hooks { events.runHook(hook, event) } }
        return (ledger, told, unkept)
    }

    /// `check` found the store locked: `store_locked` told once (a notification when `notify`,
    /// replacing the previous one about the store, then each hook) until a check reads it again.
    /// - Returns: what was told (empty when it was told before).
    @discardableResult
    public func storeLocked(reason: String, hint: String, hooks: [String], notify: Bool) throws(AppError) -> [CheckLedger.Told] {
        let events = env.events
        let now = env.now()
        guard events.ledger().storeLockedSince == nil else { return [] }
        var told: [CheckLedger.Told] = []
        try events.updateLedger { file in
            var (next, found) = file.storeLocked(now: now, reason: reason, hint: hint)
            if notify, let event = found.first, let id = events.notify(event, next.storeNotificationID ?? 0) { next.storeNotificationID = id }
            file = next
            told = found
        }
        for event in told { for hook in hooks { events.runHook(hook, event) } }
        return told
    }

    /// After a refresh outside `check`: `outcome` told as `check.json` says. Never throws:
    /// telling never fails the refresh (a ledger that cannot be written is said by the edge).
    func observe(_ outcome: CheckAccounts.Outcome) {
        let configuration = env.events.configuration()
        tell([outcome], check: false, hooks: configuration.hooks, notify: configuration.notify)
    }

    /// A refresh that succeeded: `refreshed`, and its state (ok, or ending soon within
    /// `check.json`'s threshold).
    func refreshed(_ record: AccountRecord) {
        let configuration = env.events.configuration()
        let (verdict, reason) = CheckAccounts.verdict(record, now: env.now(), endingSoonWithin: configuration.settings.endingSoonWithin)
        let outcome = CheckAccounts.Outcome(account: record.id, provider: record.providerID, handle: AccountResolution.handle(record),
                                            verdict: verdict, reason: reason, refreshed: true, endsAt: CheckAccounts.endsAt(record))
        tell([outcome], check: false, hooks: configuration.hooks, notify: configuration.notify)
    }

    /// A refresh that failed with `error`: its state, when the error says one
    /// (``CheckAccounts/Verdict/init(refreshFailure:)``).
    func refreshFailed(_ record: AccountRecord, _ error: AppError) {
        guard let verdict = CheckAccounts.Verdict(refreshFailure: error) else { return }
        observe(CheckAccounts.Outcome(account: record.id, provider: record.providerID, handle: AccountResolution.handle(record),
                                      verdict: verdict, reason: error.title, refreshed: false, endsAt: CheckAccounts.endsAt(record)))
    }

    /// `signed_in` / `signed_out`, told to `check.json`'s hooks; a sign-out also drops the
    /// account's entry from the ledger.
    func signed(_ event: CheckLedger.Event, _ record: AccountRecord) {
        let events = env.events
        let configuration = events.configuration()
        if event == .signedOut, events.ledger().entries[record.id] != nil {
            try? events.updateLedger { $0.entries[record.id] = nil }
        }
        let told = CheckLedger.told(event, record)
        for hook in configuration.hooks { events.runHook(hook, told) }
    }
}
