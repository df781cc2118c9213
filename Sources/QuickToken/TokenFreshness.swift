/// When a stored access token is handed out as it is (`authdeck token`, `TokenForScripts`, and
/// the launcher's ``QuickAnswer``), instead of refreshed first.
public enum TokenFreshness {
    /// The default `--min-valid` of `authdeck token`, in seconds.
    public static let defaultMinimumValidity: Double = 60

    /// Whether a stored token that expires at `expiresAt` (seconds since 1970; nil: no expiry
    /// known, as with GitHub's OAuth app tokens) is good at `now` for `validity` more seconds:
    /// strictly more than `validity` left.
    public static func isFresh(expiresAt: Double?, now: Double, validity: Double) -> Bool {
        guard let expiresAt else { return true }
        return expiresAt - now > validity
    }
}
