// The window a kept `status --json` is good for (QuickStatus): the status computed at `now` holds
// at every instant before `statusUnchangedUntil`, and differs at or just after it where the rule
// says it changes.
import AppCore
import Foundation
import Testing

@Suite("AccountState.statusUnchangedUntil: the status holds until then, for every lifetime and refresh token")
struct StatusWindowTests {
    static let lifetimes: [Double] = [60, 120, 1_199, 1_200, 3_600, 36_000]

    /// Records of each lifetime, with and without a refresh token, the refresh token expiring before, at and after the access token.
    static var records: [AccountRecord] {
        var records: [AccountRecord] = []
        for lifetime in lifetimes {
            records.append(record("a", expiresIn: lifetime, refresh: false))
            for refreshExpiry in [nil, lifetime / 2, lifetime, lifetime * 3] as [Double?] {
                var withRefresh = record("b", expiresIn: lifetime, refresh: true)
                withRefresh.refreshTokenExpiresAt = refreshExpiry.map { t0.addingTimeInterval($0) }
                records.append(withRefresh)
            }
        }
        return records
    }

    @Test("From points across a token's life and beyond, the status at `now` holds at each instant before the window's end")
    func statusHoldsInsideTheWindow() {
        let policy = ExpiryPolicy.standard
        for record in Self.records {
            let account = AccountState(record: record)
            let life = record.accessTokenExpiresAt!.timeIntervalSince(t0)
            for offset in stride(from: -10.0, through: life * 4, by: max(1, life / 97)) {
                let now = t0.addingTimeInterval(offset)
                let status = account.status(now: now, policy: policy, storeLocked: false)
                guard let until = account.statusUnchangedUntil(now: now, policy: policy) else {
                    // Nothing ahead: the status is the same however late.
                    #expect(account.status(now: now.addingTimeInterval(1e7), policy: policy, storeLocked: false) == status)
                    continue
                }
                #expect(until >= now)
                let span = until.timeIntervalSince(now)
                for fraction in [0.0, 0.25, 0.5, 0.999] where span > 0 {
                    let at = now.addingTimeInterval(span * fraction)
                    #expect(account.status(now: at, policy: policy, storeLocked: false) == status,
                            "lifetime \(life), refresh until \(String(describing: record.refreshTokenExpiresAt)), now +\(offset), at +\(at.timeIntervalSince(t0))")
                }
            }
        }
    }

    @Test("The window ends where the status does change: at the expiring-soon threshold, at the expiry, at the refresh token's expiry")
    func windowEndsAtAChange() {
        let policy = ExpiryPolicy.standard
        let account = AccountState(record: record("a", expiresIn: 3_600, refresh: false))
        let soon = account.statusUnchangedUntil(now: t0, policy: policy)
        #expect(soon == t0.addingTimeInterval(3_300))
        #expect(account.status(now: soon!.addingTimeInterval(0.001), policy: policy, storeLocked: false) == .expiringSoon)
        let expiry = account.statusUnchangedUntil(now: soon!.addingTimeInterval(1), policy: policy)
        #expect(expiry == t0.addingTimeInterval(3_600))
        #expect(account.status(now: expiry!, policy: policy, storeLocked: false) == .needsSignIn)
        #expect(account.statusUnchangedUntil(now: expiry!.addingTimeInterval(1), policy: policy) == nil)
    }
}
