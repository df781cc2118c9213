import AuthEngine
import CredentialStore
import FoundationEssentials

/// The client's own signing key for `private_key_jwt` (RFC 7523 §2.2, OIDC Core §9): made by
/// authdeck or read from a PKCS#8 PEM file, kept in the credential store under the provider's
/// ``AccountKey/providerClient(_:)`` key (never in `providers.json`), and a fresh assertion
/// signed with it for every request.
public struct ClientKeys: Sendable {
    let env: AppEnvironment
    public init(_ env: AppEnvironment) { self.env = env }

    /// A new ES256 key pair (P-256), from libcrypto.
    /// - Throws: signing errors from the crypto provider.
    public func generate() throws(AppError) -> JWSKeyPair {
        do { return try env.crypto.generateKeyPair(.es256) } catch {
            throw AppError(title: "Could not make a signing key", detail: String(describing: error), specReference: "RFC 7518 §3.4")
        }
    }

    /// A P-256 key from a PKCS#8 PEM file's bytes (`-----BEGIN PRIVATE KEY-----`, RFC 5958).
    /// - Throws: `.usage` naming `path` for anything else (never the key's bytes).
    public func read(pem: Data, path: String) throws(AppError) -> JWSKeyPair {
        do { return try env.crypto.readPKCS8P256(pem) } catch {
            throw AppError(title: "\(path) is not a usable private key", detail: "\(error). Give a PKCS#8 PEM P-256 key"
                               + " (openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256), or use --generate-key.",
                           specReference: "RFC 5958", disposition: .usage)
        }
    }

    /// The public JWK to register with the provider, as one line of JSON (no `d`).
    public func publicJWK(_ key: JWSKeyPair) -> String {
        String(decoding: ClientAssertionJWT.publicJWK(key, crypto: env.crypto).serialized(), as: UTF8.self)
    }

    /// The stored key as kept in the secret set.
    static func stored(_ key: JWSKeyPair) -> StoredClientSigningKey {
        StoredClientSigningKey(String(decoding: key.json.serialized(), as: UTF8.self))
    }

    /// A fresh assertion for `provider`'s client at `metadata`'s server, signed with the key in
    /// `stored` (the provider's client secret set): `aud` as ``ClientCredentialsSettings/audience(_:)``.
    /// - Throws: no key stored (what to run); no `metadata`; an unreadable key; signing errors.
    func assertion(_ stored: AccountSecrets?, provider: ProviderConfig,
                   metadata: AuthorizationServerMetadata?) throws(AppError) -> ClientAssertion {
        guard let text = stored?.clientSigningKey?.exposedValue else {
            throw AppError(title: "No client key stored for '\(provider.id)'",
                           detail: "Add the provider again with --generate-key (then register the printed public key) or --private-key-file.",
                           specReference: "RFC 7523 §2.2")
        }
        guard let metadata else {
            throw AppError(title: "No server to sign a client assertion for", detail: "The provider's metadata was not read.")
        }
        do {
            guard let json = try? parseJSONValue(Data(text.utf8)), let key = try? JWSKeyPair(json: json) else {
                throw AuthError.unsupported(.clientAssertionSigningFailed("the stored key is not a private JWK"))
            }
            let audience = try (provider.clientCredentials ?? ClientCredentialsSettings()).audience(metadata)
            return try ClientAssertionJWT.sign(clientID: provider.clientID, audience: audience, key: key, now: env.now(), crypto: env.crypto)
        } catch {
            throw ErrorMapping.appError(error)
        }
    }
}
