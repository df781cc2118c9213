import CredentialStore
import FoundationEssentials

/// `authdeck check`: the backstop that finds a grant that died quietly. Each account whose last
/// refresh (or sign-in) is older than the backstop is refreshed — the same refresh as everywhere
/// (``RefreshAccount``: lock, single flight, rotation persisted first) — and every account is
/// classified (``Verdict``). It never opens a browser and never prompts; a locked or damaged
/// store ends the whole check (thrown once, not per account).
public struct CheckAccounts: Sendable {
    let env: AppEnvironment
    public init(_ env: AppEnvironment) { self.env = env }

    /// What an account needs, most urgent first.
    public enum Verdict: String, Sendable, CaseIterable {
        /// The provider ended the grant (persisted "needs sign-in": `invalid_grant`, a refreshed
        /// ID token for another subject, …).
        case needsSignIn = "needs_signin"
        /// The refresh token (or, without one, the access token) ends within the threshold: sign
        /// in again at a time of the person's choosing.
        case endingSoon = "ending_soon"
        /// Network, timeout, 5xx, 429: retried by the next run, never "needs sign-in".
        case transient
        /// The refresh failed for a reason that is neither the grant's end nor temporary (a
        /// failed protocol check, a provider error such as `invalid_client`): a person must look.
        case failed = "error"
        case ok

        /// The state a failed refresh shows: needs sign-in, transient, or error; nil for a
        /// failure that says nothing about the account (a locked or damaged store, a
        /// cancellation, a wrong request).
        public init?(refreshFailure error: AppError) {
            switch error.disposition {
            case .storeLocked, .fileDamaged, .cancelled, .usage: return nil
            case .needsSignIn: self = .needsSignIn
            case .transient: self = .transient
            case .securityRelevant, .other: self = .failed
            }
        }
    }

    /// The thresholds, in seconds.
    public struct Settings: Sendable, Equatable {
        /// Refresh an account whose last refresh (or sign-in) is older than this (default 90 min;
        /// 0 refreshes every account now).
        public var backstop: TimeInterval
        /// Per provider, replacing ``backstop`` for its accounts.
        public var providerBackstops: [ProviderID: TimeInterval]
        /// "Ending soon" when the grant ends within this (default 3 days).
        public var endingSoonWithin: TimeInterval

        public static let defaultBackstop: TimeInterval = 90 * 60
        public static let defaultEndingSoonWithin: TimeInterval = 3 * 24 * 3600

        public init(backstop: TimeInterval = Self.defaultBackstop, providerBackstops: [ProviderID: TimeInterval] = [:],
                    endingSoonWithin: TimeInterval = Self.defaultEndingSoonWithin) {
            self.backstop = backstop
            self.providerBackstops = providerBackstops
            self.endingSoonWithin = endingSoonWithin
        }

        /// The backstop for `provider`.
        public func backstop(for provider: ProviderID) -> TimeInterval {
            providerBackstops.first { $0.key.rawValue.utf8.elementsEqual(provider.rawValue.utf8) }?.value ?? backstop
        }
    }

    /// One account's result.
    public struct Outcome: Sendable, Equatable {
        public var account: AccountID
        public var provider: ProviderID
        /// `provider/username`, for messages.
        public var handle: String
        public var verdict: Verdict
        /// Why, in words (the error's title, or when the grant ends).
        public var reason: String
        /// Whether this run refreshed it (successfully).
        public var refreshed: Bool
        /// When the grant ends, when known.
        public var endsAt: Date?

        public init(account: AccountID, provider: ProviderID, handle: String, verdict: Verdict, reason: String, refreshed: Bool, endsAt: Date?) {
            self.account = account
            self.provider = provider
            self.handle = handle
            self.verdict = verdict
            self.reason = reason
            self.refreshed = refreshed
            self.endsAt = endsAt
        }
    }

    /// Whether `record` is due for a refresh at `now` (its last refresh, else its sign-in, at
    /// least `backstop` ago). An account that needs sign-in never is.
    public static func isDue(_ record: AccountRecord, now: Date, backstop: TimeInterval) -> Bool {
        guard record.needsSignInSince == nil else { return false }
        return now.timeIntervalSince(record.lastRefreshAt ?? record.signedInAt) >= backstop
    }

    /// When the account's grant ends: its refresh token's expiry (`refresh_expires_in`, a JWT
    /// refresh token's `exp`), else — without a refresh token — its access token's; nil when
    /// nothing says.
    public static func endsAt(_ record: AccountRecord) -> Date? {
        if record.hasRefreshToken { return record.refreshTokenExpiresAt }
        // A machine account's grant does not end: each token is a new client-credentials request.
        if record.isMachine == true { return nil }
        return record.accessTokenExpiresAt
    }

    /// The verdict of an account that did not fail this run.
    public static func verdict(_ record: AccountRecord, now: Date, endingSoonWithin: TimeInterval) -> (Verdict, String) {
        if record.needsSignInSince != nil { return (.needsSignIn, record.idTokenProblem ?? "the provider ended the grant") }
        if let ends = endsAt(record), ends.timeIntervalSince(now) <= endingSoonWithin {
            let what = record.hasRefreshToken ? "the refresh token" : "the access token (no refresh token)"
            return ends <= now ? (.needsSignIn, "\(what) has expired") : (.endingSoon, "\(what) ends soon")
        }
        return (.ok, "")
    }

    /// The store is read on every run, whether or not an account is due: a locked (or damaged)
    /// store is `.storeLocked` (`.fileDamaged`) every time, never "ok" until the backstop comes
    /// round. One account's secrets are read (the vault decrypted, the keyring asked without a
    /// prompt); any other trouble is left to the refreshes that meet it.
    func readStore(_ records: [AccountRecord]) throws(AppError) {
        guard let first = records.first else { return }
        func stopsEveryCheck(_ error: AppError) -> Bool {
            switch error.disposition {
            case .storeLocked, .fileDamaged: true
            default: false
            }
        }
        let store: any SecretStore
        do { store = try env.credentials.store() } catch {
            if stopsEveryCheck(error) { throw error }
            return
        }
        do { _ = try store.loadIfPresent(Accounts.key(first)) } catch {
            let mapped = ErrorMapping.appError(error)
            if stopsEveryCheck(mapped) { throw mapped }
        }
    }

    /// Checks `records` one after another; `notices`: what a refresh on the way says (a provider
    /// that is slow, ``RefreshNotice``), as for `token` and `refresh`.
    /// - Throws: ``AppError`` with `.storeLocked` or `.fileDamaged` (nothing can be checked
    ///   unattended then; said once).
    public func run(_ records: [AccountRecord], settings: Settings,
                    notices: (@Sendable (RefreshNotice) -> Void)? = nil) async throws(AppError) -> [Outcome] {
        try readStore(records)
        var outcomes: [Outcome] = []
        for record in records {
            var current = record
            var refreshed = false
            if Self.isDue(record, now: env.now(), backstop: settings.backstop(for: record.providerID)) {
                do {
                    // What this run finds is told by check itself (its hooks, --notify), once.
                    current = try await RefreshAccount(env, tellsEvents: false).run(record, force: true, notices: notices)
                    refreshed = true
                } catch {
                    switch error.disposition {
                    case .storeLocked, .fileDamaged, .cancelled: throw error
                    default:
                        let verdict = Verdict(refreshFailure: error) ?? .failed
                        outcomes.append(Outcome(account: record.id, provider: record.providerID, handle: AccountResolution.handle(record),
                                                verdict: verdict, reason: error.title, refreshed: false,
                                                endsAt: verdict == .needsSignIn ? nil : Self.endsAt(record)))
                    }
                    continue
                }
            }
            let (verdict, reason) = Self.verdict(current, now: env.now(), endingSoonWithin: settings.endingSoonWithin)
            outcomes.append(Outcome(account: current.id, provider: current.providerID, handle: AccountResolution.handle(current),
                                    verdict: verdict, reason: reason, refreshed: refreshed, endsAt: Self.endsAt(current)))
        }
        return outcomes
    }
}
