import Secrets

/// A secret held by the credential store (token, client secret, vault passphrase): the shared
/// redacting type (`Secrets.Redacted`) with the store's own kinds. This module does not depend
/// on `AuthEngine`; AppCoreLive converts between the engine's tokens and these values at the
/// boundary (both expose `exposedValue`).
public typealias StoredSecret<Kind: SecretKind> = Redacted<Kind>

/// Names the kind of a ``StoredSecret`` for its redacted description.
public typealias StoredSecretKind = SecretKind

public enum StoredAccessTokenKind: StoredSecretKind { public static let label = "AccessToken" }
public enum StoredRefreshTokenKind: StoredSecretKind { public static let label = "RefreshToken" }
public enum StoredIDTokenKind: StoredSecretKind { public static let label = "IDToken" }
public enum StoredClientSecretKind: StoredSecretKind { public static let label = "ClientSecret" }
public enum VaultPassphraseKind: StoredSecretKind { public static let label = "Passphrase" }
public enum StoredDPoPKeyKind: StoredSecretKind { public static let label = "DPoPKey" }
public enum StoredClientSigningKeyKind: StoredSecretKind { public static let label = "ClientSigningKey" }
public enum StoredRegistrationAccessTokenKind: StoredSecretKind { public static let label = "RegistrationAccessToken" }

/// RFC 6749 §1.4 `access_token`, as stored.
public typealias StoredAccessToken = StoredSecret<StoredAccessTokenKind>
/// RFC 6749 §1.5 `refresh_token`, as stored.
public typealias StoredRefreshToken = StoredSecret<StoredRefreshTokenKind>
/// OIDC Core §2 `id_token` (the compact JWS as received), as stored.
public typealias StoredIDToken = StoredSecret<StoredIDTokenKind>
/// RFC 6749 §2.3.1 `client_secret`, as stored.
public typealias StoredClientSecret = StoredSecret<StoredClientSecretKind>
/// RFC 9449: the account's DPoP key pair as a private JWK (JSON text with `d`), as stored.
public typealias StoredDPoPKey = StoredSecret<StoredDPoPKeyKind>
/// RFC 7523 §2.2 `private_key_jwt`: the client's signing key pair as a private JWK (JSON text with `d`), as stored.
public typealias StoredClientSigningKey = StoredSecret<StoredClientSigningKeyKind>
/// RFC 7592 §3 `registration_access_token`, as stored.
public typealias StoredRegistrationAccessToken = StoredSecret<StoredRegistrationAccessTokenKind>
/// The passphrase that unlocks the encrypted file vault.
public typealias VaultPassphrase = StoredSecret<VaultPassphraseKind>
