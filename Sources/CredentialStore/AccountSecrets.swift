import FoundationEssentials
import StrictJSON

/// Identifies one account's secret set in a store: the provider it belongs to and the
/// account name chosen by AppCore (for example the ID Token `sub`, or a user label).
///
/// Not secret. Shown in errors and used as Secret Service attributes (`provider`, `account`).
public struct AccountKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The provider's configuration id (not the issuer URL).
    public var provider: String
    /// The account within the provider.
    public var account: String

    public init(provider: String, account: String) {
        self.provider = provider
        self.account = account
    }

    /// Code unit for code unit: two subjects that differ only in Unicode normalisation are two
    /// accounts (Swift's `String ==` would make them one).
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.provider.utf8.elementsEqual(rhs.provider.utf8) && lhs.account.utf8.elementsEqual(rhs.account.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        for byte in provider.utf8 { hasher.combine(byte) }
        hasher.combine(0xFF as UInt8)  // never a UTF-8 byte: separates the two parts
        for byte in account.utf8 { hasher.combine(byte) }
    }

    /// The reserved key under which a provider's shared client secret is stored
    /// (a secret set holding only ``AccountSecrets/clientSecret``).
    public static func providerClient(_ provider: String) -> AccountKey {
        AccountKey(provider: provider, account: "")
    }

    /// True for the reserved ``providerClient(_:)`` key.
    public var isProviderClient: Bool { account.isEmpty }

    public var description: String { "\(provider)/\(account)" }

    public static func < (lhs: AccountKey, rhs: AccountKey) -> Bool {
        (lhs.provider, lhs.account) < (rhs.provider, rhs.account)
    }
}

/// One stored access token with its expiry.
public struct StoredAccessTokenEntry: Sendable, Equatable, CustomStringConvertible {
    /// RFC 6749 §5.1 `access_token`.
    public var token: StoredAccessToken
    /// Absolute expiry (computed from `expires_in` with the injected clock); nil when the
    /// server gave no `expires_in`.
    public var expiresAt: Date?
    /// RFC 6749 §5.1 `token_type` (for example `Bearer`, `DPoP`).
    public var tokenType: String?
    /// RFC 6749 §3.3 granted `scope`, split on spaces; nil when unknown.
    public var scope: [String]?

    public init(token: StoredAccessToken, expiresAt: Date? = nil, tokenType: String? = nil, scope: [String]? = nil) {
        self.token = token
        self.expiresAt = expiresAt
        self.tokenType = tokenType
        self.scope = scope
    }

    public var description: String {
        "StoredAccessTokenEntry(token: \(token), expiresAt: \(expiresAt.map { "\($0)" } ?? "nil"))"
    }
}

/// The secret set of one account: everything secret, nothing else.
///
/// Non-secret metadata (provider id, subject, display name, expiries shown in lists, the
/// active account) lives in JSON under the XDG directories, not here.
public struct AccountSecrets: Sendable, Equatable, CustomStringConvertible {
    /// The access token obtained without a `resource`/`audience` parameter.
    public var defaultAccessToken: StoredAccessTokenEntry?
    /// Access tokens keyed by RFC 8707 `resource` (or a provider's `audience`), each with its
    /// own expiry.
    public var resourceAccessTokens: [String: StoredAccessTokenEntry]
    /// RFC 6749 §1.5 refresh token (the latest one after rotation).
    public var refreshToken: StoredRefreshToken?
    /// OIDC Core §2 ID Token, the compact JWS as last received.
    public var idToken: StoredIDToken?
    /// RFC 6749 §2.3.1 client secret when it is per account (see
    /// ``AccountKey/providerClient(_:)`` for a provider-wide one).
    public var clientSecret: StoredClientSecret?
    /// RFC 9449: the key pair the account's tokens are bound to (a private JWK); absent for
    /// Bearer accounts and in files written before DPoP.
    public var dpopKey: StoredDPoPKey?
    /// RFC 7592 §3 `registration_access_token` of a client authdeck registered (RFC 7591), kept
    /// under the provider's ``AccountKey/providerClient(_:)`` key with its `client_secret`.
    public var registrationAccessToken: StoredRegistrationAccessToken?
    /// RFC 7523 §2.2 `private_key_jwt`: the client's signing key (a private JWK), kept under the
    /// provider's ``AccountKey/providerClient(_:)`` key like a client secret.
    public var clientSigningKey: StoredClientSigningKey?

    public init(
        defaultAccessToken: StoredAccessTokenEntry? = nil,
        resourceAccessTokens: [String: StoredAccessTokenEntry] = [:],
        refreshToken: StoredRefreshToken? = nil,
        idToken: StoredIDToken? = nil,
        clientSecret: StoredClientSecret? = nil,
        dpopKey: StoredDPoPKey? = nil
    ) {
        self.defaultAccessToken = defaultAccessToken
        self.resourceAccessTokens = resourceAccessTokens
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.clientSecret = clientSecret
        self.dpopKey = dpopKey
    }

    /// The access token for `resource`, or the default one when `resource` is nil.
    public func accessToken(for resource: String?) -> StoredAccessTokenEntry? {
        guard let resource else { return defaultAccessToken }
        return resourceAccessTokens[resource]
    }

    /// Sets (or removes, with nil) the access token for `resource` (nil: the default one).
    public mutating func setAccessToken(_ entry: StoredAccessTokenEntry?, for resource: String?) {
        if let resource { resourceAccessTokens[resource] = entry } else { defaultAccessToken = entry }
    }

    public var description: String {
        "AccountSecrets(defaultAccessToken: \(defaultAccessToken.map { "\($0)" } ?? "nil"), "
            + "resources: \(resourceAccessTokens.keys.sorted()), "
            + "refreshToken: \(refreshToken.map { "\($0)" } ?? "nil"), "
            + "idToken: \(idToken.map { "\($0)" } ?? "nil"), "
            + "clientSecret: \(clientSecret.map { "\($0)" } ?? "nil"), "
            + "dpopKey: \(dpopKey.map { "\($0)" } ?? "nil"), "
            + "registrationAccessToken: \(registrationAccessToken.map { "\($0)" } ?? "nil"), "
            + "clientSigningKey: \(clientSigningKey.map { "\($0)" } ?? "nil"))"
    }
}

/// The serialized form of a secret set (the Secret Service item's secret, an entry of the
/// vault and plaintext files): `{"secrets":{…},"version":1}`, compact UTF-8 JSON with sorted
/// member names, dates as seconds since 1970-01-01T00:00:00Z (a JSON number). Read and written
/// through StrictJSON (jansson), not Codable: the mapping is `AccountSecrets(json:path:)` /
/// `AccountSecrets.json` (AccountSecrets+JSON.swift).
public enum AccountSecretsEncoding {
    /// Version written by this build.
    public static let currentVersion = 1

    /// Encodes `secrets` as UTF-8 JSON (sorted keys, compact).
    public static func encode(_ secrets: AccountSecrets) -> Data {
        envelope(secrets).serialized()
    }

    /// `{"secrets": secrets.json, "version": currentVersion}`, for documents that embed secret sets.
    public static func envelope(_ secrets: AccountSecrets) -> JSONValue {
        .object(["secrets": secrets.json, "version": .int(currentVersion)])
    }

    /// Decodes what ``encode(_:)`` wrote (and what the earlier Codable encoder wrote).
    /// - Throws: ``SecretStoreError/corrupt(file:reason:)`` (`file` as given):
    ///   `.malformedRecord` naming what is wrong (not JSON, a member named twice, or the path of
    ///   the member that has the wrong shape, e.g. `secrets.defaultAccessToken.expiresAt: expected
    ///   a number of seconds`; never a value), or `.unsupportedVersion` for a newer version.
    public static func decode(_ data: Data, file: String?) throws(SecretStoreError) -> AccountSecrets {
        let value: JSONValue
        do throws(JSONSyntaxError) { value = try parseJSONValue(data, maximumDepth: maximumStoredJSONDepth) } catch {
            throw .corrupt(file: file, reason: .malformedRecord(error.description))
        }
        let reader: JSONReader
        let version: Int
        do throws(JSONShapeError) {
            reader = try JSONReader(value)
            version = try reader.int("version")
        } catch {
            throw .corrupt(file: file, reason: .malformedRecord(error.description))
        }
        guard version <= currentVersion else { throw .corrupt(file: file, reason: .unsupportedVersion(version)) }
        do throws(JSONShapeError) {
            return try AccountSecrets(json: reader.value("secrets") ?? .null, path: [.member("secrets")])
        } catch {
            throw .corrupt(file: file, reason: .malformedRecord(error.description))
        }
    }
}
