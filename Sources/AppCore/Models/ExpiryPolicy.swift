import FoundationEssentials

/// When to refresh and how to label a token's remaining life, as data (docs/ARCHITECTURE.md, "State store").
public struct ExpiryPolicy: Equatable, Sendable {
    /// Refresh this many seconds before `expiresAt` (Auth0's `minTTL`, AppAuth's 60 s tolerance).
    /// Not the clock skew allowed when checking `exp`/`iat` (``IDTokenValidationOptions/clockTolerance``).
    public var refreshMargin: Double
    /// A token with less than this many seconds left is "expiring soon".
    public var expiringSoonThreshold: Double
    /// Transient-failure retry delays in seconds (the last one repeats).
    public var retryBackoff: [Double]

    public init(refreshMargin: Double = 60, expiringSoonThreshold: Double = 300, retryBackoff: [Double] = [2, 4, 8, 16, 32, 60]) {
        self.refreshMargin = refreshMargin
        self.expiringSoonThreshold = expiringSoonThreshold
        self.retryBackoff = retryBackoff
    }

    public static let standard = ExpiryPolicy()

    /// The delay before retry number `attempt` (1-based), in seconds; a server's `Retry-After`
    /// wins when larger.
    public func retryDelay(attempt: Int, retryAfter: Double?) -> Double {
        let base = retryBackoff[min(max(attempt, 1), retryBackoff.count) - 1]
        return max(base, retryAfter ?? 0)
    }

    /// When the account should next be refreshed (absolute), or `nil`: the earliest due time of
    /// its access tokens, the default one and one per resource / organization (RFC 8707 §2.2),
    /// each refreshed by the scheduler like the default token.
    public func refreshDue(for record: AccountRecord) -> Date? {
        guard record.renewable else { return nil }
        return record.accessTokens.compactMap(refreshDue(for:)).min()
    }

    /// When one access token should be refreshed: `expiresAt − min(refreshMargin, lifetime / 2)`
    /// (short-lived tokens are never refreshed earlier than half their lifetime); nil without
    /// an expiry.
    public func refreshDue(for token: AccessTokenInfo) -> Date? {
        guard let expiresAt = token.expiresAt else { return nil }
        let lifetime = expiresAt.timeIntervalSince(token.issuedAt)
        return expiresAt.addingTimeInterval(-min(refreshMargin, lifetime / 2))
    }
}
