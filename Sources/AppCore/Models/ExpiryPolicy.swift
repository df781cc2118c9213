import FoundationEssentials

/// When to refresh and how to label a token's remaining life, as data (docs/ARCHITECTURE.md, "State store").
public struct ExpiryPolicy: Equatable, Sendable {
    /// Refresh this many seconds before `expiresAt` (Auth0's `minTTL`, AppAuth's 60 s tolerance).
    public var refreshLeeway: Double
    /// A token with less than this many seconds left is "expiring soon".
    public var expiringSoonThreshold: Double
    /// Allowed clock skew in seconds when checking `exp`/`iat`/`nbf` (oauth4webapi: 30 s).
    public var clockTolerance: Double
    /// Transient-failure retry delays in seconds (the last one repeats).
    public var retryBackoff: [Double]

    public init(refreshLeeway: Double = 60, expiringSoonThreshold: Double = 300, clockTolerance: Double = 30, retryBackoff: [Double] = [2, 4, 8, 16, 32, 60]) {
        self.refreshLeeway = refreshLeeway
        self.expiringSoonThreshold = expiringSoonThreshold
        self.clockTolerance = clockTolerance
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
        guard record.hasRefreshToken else { return nil }
        return record.accessTokens.compactMap(refreshDue(for:)).min()
    }

    /// When one access token should be refreshed: `expiresAt − min(leeway, lifetime / 2)`
    /// (short-lived tokens are never refreshed earlier than half their lifetime); nil without
    /// an expiry.
    public func refreshDue(for token: AccessTokenInfo) -> Date? {
        guard let expiresAt = token.expiresAt else { return nil }
        let lifetime = expiresAt.timeIntervalSince(token.issuedAt)
        return expiresAt.addingTimeInterval(-min(refreshLeeway, lifetime / 2))
    }
}
