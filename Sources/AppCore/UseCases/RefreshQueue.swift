import FoundationEssentials

/// One account waiting for a refresh slot (``RefreshQueue``).
public struct QueuedRefresh: Equatable, Sendable {
    public var id: AccountID
    /// Asked for by the user (`r`): ahead of every scheduled one.
    public var force: Bool
    /// Transient failures before this attempt (0 = first), carried into ``RefreshPhase/inFlight(attempt:)``.
    public var attempt: Int
    /// The soonest `expiresAt` of the account's access tokens when it was queued (nil: unknown,
    /// last); the scheduled ones wait in this order.
    public var expiresAt: Date?

    public init(id: AccountID, force: Bool, attempt: Int, expiresAt: Date?) {
        self.id = id
        self.force = force
        self.attempt = attempt
        self.expiresAt = expiresAt
    }
}

/// The refresh scheduler's bound: how many refreshes run at once, and in which order the rest
/// wait. The rule lives here, under both front ends (the TUI's ``AppReducer``; any command that
/// refreshes several accounts uses the same bound).
public enum RefreshQueue {
    /// At most this many refreshes are in flight in one process (a refresh storm: many accounts due at once, `scripts/bench`).
    ///
    /// Why 4: every refresh ends in a write of the secrets' file under the store's lock (the
    /// vault rewrites one file), so more parallel requests only queue on that lock; a provider's
    /// token endpoint is rate-limited per client (Auth0, Entra, Google answer 429 to bursts), and
    /// 200 accounts expiring together must not look like an attack. Four keeps the provider's
    /// round-trip time overlapped (a refresh is mostly waiting for the network) while the
    /// 2-core machine the TUI shares stays responsive; a forced refresh waits for at most one of
    /// four slots.
    public static let maxInFlight = 4

    /// Where `entry` goes in `queue`: forced ones after the forced ones already waiting (first
    /// asked, first served), ahead of every scheduled one; scheduled ones by `expiresAt`, the
    /// soonest first (unknown last), after those expiring at the same time.
    /// - Returns: an index into `queue` (`queue.count` for the end).
    public static func insertionIndex(of entry: QueuedRefresh, in queue: [QueuedRefresh]) -> Int {
        if entry.force { return queue.firstIndex { !$0.force } ?? queue.count }
        let expiry = entry.expiresAt ?? .distantFuture
        return queue.firstIndex { !$0.force && ($0.expiresAt ?? .distantFuture) > expiry } ?? queue.count
    }
}
