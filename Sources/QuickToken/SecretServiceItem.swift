/// How authdeck names an account's item in the freedesktop Secret Service: the bus name and
/// object path of the service, and the item's attributes. One definition for the full program's
/// store (`SecretServiceStore`, through GDBus and libsecret) and the launcher's read
/// (``SessionBusSecret``).
public enum SecretServiceItem {
    /// The service's well-known bus name (Secret Service API §org.freedesktop.Secret.Service).
    public static let busName = "org.freedesktop.secrets"
    /// The service object.
    public static let servicePath = "/org/freedesktop/secrets"
    /// The `xdg:schema` attribute libsecret writes for authdeck's schema.
    public static let schemaName = "dev.authdeck.AccountSecrets"
    /// The `application` attribute.
    public static let applicationAttribute = "authdeck"

    /// The item's attributes for the secret set of `provider`/`account` (ids as stored, compared
    /// by the service byte for byte): `xdg:schema`, `application`, `provider`, `account`.
    public static func attributes(provider: String, account: String) -> [(String, String)] {
        [("xdg:schema", schemaName), ("application", applicationAttribute), ("provider", provider), ("account", account)]
    }
}
