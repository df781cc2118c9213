/// A secret held by the credential store (token, client secret, vault passphrase) whose
/// `description`, `debugDescription` and mirror never show the value.
///
/// The raw value is reachable only through ``exposedValue`` so that a grep finds every use.
/// This module does not depend on `AuthEngine`; AppCore converts between the engine's
/// `Redacted<…>` tokens and these values at the boundary (both expose `exposedValue`).
public struct StoredSecret<Kind: StoredSecretKind>: Sendable, Hashable, Codable,
    CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable
{
    /// The secret itself. Every read of it is deliberate; never log or format it.
    public let exposedValue: String

    public init(_ value: String) { exposedValue = value }

    public init(from decoder: any Decoder) throws {
        exposedValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(exposedValue)
    }

    public var description: String { "\(Kind.label)(redacted, \(exposedValue.utf8.count) bytes)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
    public var isEmpty: Bool { exposedValue.isEmpty }
}

/// Names the kind of a ``StoredSecret`` for its redacted description.
public protocol StoredSecretKind: Sendable { static var label: String { get } }

public enum StoredAccessTokenKind: StoredSecretKind { public static let label = "AccessToken" }
public enum StoredRefreshTokenKind: StoredSecretKind { public static let label = "RefreshToken" }
public enum StoredIDTokenKind: StoredSecretKind { public static let label = "IDToken" }
public enum StoredClientSecretKind: StoredSecretKind { public static let label = "ClientSecret" }
public enum VaultPassphraseKind: StoredSecretKind { public static let label = "Passphrase" }

/// RFC 6749 §1.4 `access_token`, as stored.
public typealias StoredAccessToken = StoredSecret<StoredAccessTokenKind>
/// RFC 6749 §1.5 `refresh_token`, as stored.
public typealias StoredRefreshToken = StoredSecret<StoredRefreshTokenKind>
/// OIDC Core §2 `id_token` (the compact JWS as received), as stored.
public typealias StoredIDToken = StoredSecret<StoredIDTokenKind>
/// RFC 6749 §2.3.1 `client_secret`, as stored.
public typealias StoredClientSecret = StoredSecret<StoredClientSecretKind>
/// The passphrase that unlocks the encrypted file vault.
public typealias VaultPassphrase = StoredSecret<VaultPassphraseKind>
