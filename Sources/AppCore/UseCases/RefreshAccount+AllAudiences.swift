import AuthEngine
import FoundationEssentials

extension RefreshAccount {
    /// The TUI's refresh of an account: every access token it holds, the default one and one
    /// per resource / organization (RFC 8707 §2.2: one token per resource, each obtained by a
    /// refresh with its `resource`). `force` (`r`): all of them; scheduled: the default one
    /// when it is due (``run(_:resource:minimumValidity:force:notices:)`` skips a fresh one) and each
    /// other one whose ``ExpiryPolicy/refreshDue(for:)-(AccessTokenInfo)`` has come.
    /// `notices` as ``run(_:resource:minimumValidity:force:notices:)``.
    /// - Returns: the record after the last refresh.
    /// - Throws: the first ``AppError`` (a later token is not tried once the grant failed).
    public func runAll(_ id: AccountID, force: Bool,
                       notices: (@Sendable (RefreshNotice) -> Void)? = nil) async throws(AppError) -> AccountRecord {
        var record = try await run(id, force: force, notices: notices)
        let others = record.accessTokens.compactMap(\.resource)
        for resource in others {
            guard let info = record.accessTokens.first(where: { $0.resource == resource }) else { continue }
            let due = env.policy.refreshDue(for: info).map { $0 <= env.now() } ?? false
            guard force || due else { continue }
            record = try await run(record, resource: resource, force: force, notices: notices)
        }
        return record
    }
}
