import FoundationEssentials

/// The per-audience access tokens an account holds besides the default one, keyed like
/// `AccountRecord.accessTokens[].resource`: an RFC 8707 resource indicator (one token per
/// resource, RFC 8707 §2.2), or a Logto organization, whose token audience is
/// `urn:logto:organization:{id}` and which is asked for with `organization_id` on a refresh
/// (Logto, "Organization token"; https://docs.logto.io/authorization/organization-template).
public enum TokenAudience {
    /// Logto's organization token audience prefix.
    public static let organizationPrefix = "urn:logto:organization:"

    /// The key an organization's token is stored under.
    public static func organizationKey(_ organizationID: String) -> String { organizationPrefix + organizationID }

    /// The organization id of a key made by ``organizationKey(_:)``; nil for a resource or the
    /// default token.
    public static func organizationID(ofKey key: String?) -> String? {
        guard let key, key.utf8.starts(with: organizationPrefix.utf8), key.utf8.count > organizationPrefix.utf8.count else { return nil }
        return String(key.dropFirst(organizationPrefix.count))
    }
}
