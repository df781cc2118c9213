import AuthEngine
import FoundationEssentials

/// The unit of a numeric timestamp claim (``ProviderConfig/claimTimeUnits``): `s` (RFC 7519 §2
/// NumericDate, seconds since 1970-01-01T00:00:00Z UTC) or `ms` (milliseconds since then).
public enum ClaimTimeUnit: String, Equatable, Sendable, CaseIterable {
    case s
    case ms
}

/// The one reading of timestamp claims for every claim view (the TUI's claim table, the CLI's
/// `userinfo`, `introspect`, `decode` lines).
public enum ClaimTime {
    /// The time a numeric claim `claim` names, read in the unit `provider` declares for it
    /// (``ProviderConfig/claimTimeUnits``, names compared code unit for code unit).
    ///
    /// - Returns: the date and whether it was read as milliseconds; nil when `claim` is not a
    ///   timestamp claim (``TimeText/isTimestampClaim(_:)`` and not named in the setting) or the
    ///   value is negative or not finite.
    ///
    /// A claim the provider declares no unit for (no provider: `authdeck decode`; a provider
    /// added by hand; a provider stored before the setting existed, such as a Logto provider
    /// added from an older preset) falls back to ``TimeText/claimDate(_:)``: seconds unless the
    /// value is above 1e11, which as seconds would be after the year 5138 and so can only be
    /// milliseconds. The heuristic stays because removing it would show those providers'
    /// millisecond claims 1000 times too late; it never misreads a real seconds value. The
    /// registered NumericDate claims (`exp`, `nbf`, `iat`, `auth_time`) are always seconds.
    public static func date(claim: String, _ value: Double, provider: ProviderConfig?) -> (date: Date, isMilliseconds: Bool)? {
        let declared = provider?.claimTimeUnits?.first { $0.key.exactlyEquals(claim) }?.value
        guard declared != nil || TimeText.isTimestampClaim(claim), value.isFinite, value >= 0 else { return nil }
        switch declared {
        case .ms: return (Date(timeIntervalSince1970: value / 1000), true)
        case .s: return (Date(timeIntervalSince1970: value), false)
        // RFC 7519 §4.1.4–4.1.6 and OIDC Core §2 define these as NumericDate, seconds, always: a
        // verifier reads `exp: 1796165785000` as far in the future, so must the view.
        case nil where ["exp", "nbf", "iat", "auth_time"].containsExactly(claim): return (Date(timeIntervalSince1970: value), false)
        case nil: return TimeText.claimDate(value)
        }
    }
}
