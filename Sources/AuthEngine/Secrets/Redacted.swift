import Foundation

/// A secret string whose `description`, `debugDescription` and mirror never show the value.
/// The raw value is reachable only through ``exposedValue`` so that a grep finds every use.
///
/// Use the typealiases (``AccessToken``, ``RefreshToken`` …) rather than this type directly.
public struct Redacted<Kind: SecretKind>: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
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

/// Names the kind of a ``Redacted`` value for its redacted description.
public protocol SecretKind: Sendable { static var label: String { get } }

public enum AccessTokenKind: SecretKind { public static let label = "AccessToken" }
public enum RefreshTokenKind: SecretKind { public static let label = "RefreshToken" }
public enum IDTokenKind: SecretKind { public static let label = "IDToken" }
public enum ClientSecretKind: SecretKind { public static let label = "ClientSecret" }
public enum AuthorizationCodeKind: SecretKind { public static let label = "AuthorizationCode" }
public enum CodeVerifierKind: SecretKind { public static let label = "CodeVerifier" }
public enum DeviceCodeKind: SecretKind { public static let label = "DeviceCode" }

/// RFC 6749 §1.4 `access_token`.
public typealias AccessToken = Redacted<AccessTokenKind>
/// RFC 6749 §1.5 `refresh_token`.
public typealias RefreshToken = Redacted<RefreshTokenKind>
/// OIDC Core §2 `id_token`, the compact JWS as received.
public typealias RawIDToken = Redacted<IDTokenKind>
/// RFC 6749 §2.3.1 `client_secret`.
public typealias ClientSecret = Redacted<ClientSecretKind>
/// RFC 6749 §4.1.2 `code`.
public typealias AuthorizationCode = Redacted<AuthorizationCodeKind>
/// RFC 7636 §4.1 `code_verifier`.
public typealias CodeVerifier = Redacted<CodeVerifierKind>
/// RFC 8628 §3.2 `device_code`.
public typealias DeviceCode = Redacted<DeviceCodeKind>
