import FoundationEssentials

/// Timestamp claims sent as strings: Auth0's `updated_at` is ISO 8601 / RFC 3339
/// (`2026-01-02T03:04:05.678Z`), not seconds since the epoch
/// (https://auth0.com/docs/manage-users/user-accounts/user-profiles/user-profile-structure).
public enum ISOClaimTime {
    /// The date of an RFC 3339 string, with or without fractional seconds; nil for other text.
    public static func date(_ text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        return try? Date.ISO8601FormatStyle().parse(text)
    }
}
