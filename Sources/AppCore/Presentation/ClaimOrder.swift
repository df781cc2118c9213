/// The one claim order of both front ends (the TUI's claims tables, the CLI's `decode` and
/// `userinfo`).
public enum ClaimOrder {
    /// RFC 7519 §4.1 registered claims, in the RFC's order.
    public static let registered = ["iss", "sub", "aud", "exp", "nbf", "iat", "jti"]
    /// OIDC Core §2 (ID token) and §5.1 (standard claims), in the spec's order.
    public static let oidc = [
        "auth_time", "nonce", "acr", "amr", "azp", "at_hash", "c_hash", "sid",
        "name", "given_name", "family_name", "middle_name", "nickname", "preferred_username", "profile", "picture",
        "website", "email", "email_verified", "gender", "birthdate", "zoneinfo", "locale", "phone_number",
        "phone_number_verified", "address", "updated_at",
    ]
    /// Top-level claim order: registered first, then OIDC, then the rest alphabetically.
    public static func sorted(_ keys: [String]) -> [String] {
        func rank(_ k: String) -> (Int, Int, String) {
            if let i = registered.firstIndex(of: k) { return (0, i, k) }
            if let i = oidc.firstIndex(of: k) { return (1, i, k) }
            return (2, 0, k)
        }
        return keys.sorted { rank($0) < rank($1) }
    }
}
