import AuthEngine
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

    /// The prefix of a token exchange's key (RFC 8693): `PREFIX` `resource` or `audience`, `;`, the
    /// requested token type (may be empty), `;`, the resource or audience (last, so it may hold anything).
    public static let exchangePrefix = "urn:authdeck:token-exchange:"

    /// The key a token exchanged for `target` is stored under (its scopes are not part of it).
    public static func exchangeKey(_ target: TokenExchangeTarget) -> String {
        let (kind, value) = target.resource.map { ("resource", $0) } ?? ("audience", target.audience ?? "")
        return exchangePrefix + kind + ";" + (target.requestedTokenType ?? "") + ";" + value
    }

    /// The target of a key made by ``exchangeKey(_:)``; nil for any other key.
    public static func exchangeTarget(ofKey key: String?) -> TokenExchangeTarget? {
        guard let key, key.utf8.starts(with: exchangePrefix.utf8) else { return nil }
        let parts = key.dropFirst(exchangePrefix.count).split(separator: ";", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[2].isEmpty else { return nil }
        let type = parts[1].isEmpty ? nil : String(parts[1])
        switch parts[0] {
        case "resource": return TokenExchangeTarget(resource: String(parts[2]), requestedTokenType: type)
        case "audience": return TokenExchangeTarget(audience: String(parts[2]), requestedTokenType: type)
        default: return nil
        }
    }

    /// What `--exchange-for VALUE` names: a `resource` when VALUE is an absolute URI with `://`
    /// (RFC 8693 §2.1: "an absolute URI"), else a logical `audience`.
    public static func exchangeTarget(for value: String, requestedTokenType: String?) -> TokenExchangeTarget {
        value.contains("://")
            ? TokenExchangeTarget(resource: value, requestedTokenType: requestedTokenType)
            : TokenExchangeTarget(audience: value, requestedTokenType: requestedTokenType)
    }

    /// How a key is shown to a person: a token exchange's as `TARGET (token exchange[, TYPE])`,
    /// any other key as it is.
    public static func displayName(ofKey key: String) -> String {
        guard let target = exchangeTarget(ofKey: key) else { return key }
        let type = target.requestedTokenType.map { ", " + ($0.split(separator: ":").last.map(String.init) ?? $0) } ?? ""
        return (target.resource ?? target.audience ?? "") + " (token exchange\(type))"
    }
}
