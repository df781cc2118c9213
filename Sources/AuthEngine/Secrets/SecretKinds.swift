import Secrets

public enum AccessTokenKind: SecretKind { public static let label = "AccessToken" }
public enum RefreshTokenKind: SecretKind { public static let label = "RefreshToken" }
public enum IDTokenKind: SecretKind { public static let label = "IDToken" }
public enum ClientSecretKind: SecretKind { public static let label = "ClientSecret" }
public enum AuthorizationCodeKind: SecretKind { public static let label = "AuthorizationCode" }
public enum CodeVerifierKind: SecretKind { public static let label = "CodeVerifier" }
public enum DeviceCodeKind: SecretKind { public static let label = "DeviceCode" }
public enum ClientAssertionKind: SecretKind { public static let label = "ClientAssertion" }

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
/// RFC 7521 §4.2 `client_assertion`: a JWT (RFC 7523 §2.2) authenticating the client for one request.
public typealias ClientAssertion = Redacted<ClientAssertionKind>
