import AuthEngine
import CredentialStore
import FoundationEssentials

/// DPoP (RFC 9449) for the use cases: whether a sign-in binds its tokens to a new key, and the
/// signer of an account that holds one. Nonces are kept per server, in the process and between
/// processes (``AppEnvironment/dpopNonces``).
enum DPoPAccess {
    /// The latest `DPoP-Nonce` of each server (RFC 9449 §8.2): this process's, backed by the
    /// environment's nonce cache, so a new process sends the nonce with its first request.
    static func nonces(_ env: AppEnvironment) -> DPoPNonceStore {
        env.memo.dpopNonces.withLock { store in
            if let store { return store }
            let cache = env.dpopNonces
            let made = DPoPNonceStore(persistence: cache)
            store = made
            return made
        }
    }

    /// A new key for a sign-in when the provider's setting and metadata call for DPoP, else nil.
    /// - Throws: `AuthError.unsupported(.dpopAlgorithmNotSupported / .dpopSigningFailed)`.
    static func signerForSignIn(env: AppEnvironment, provider: ProviderConfig,
                                metadata: AuthorizationServerMetadata) throws(AuthError) -> DPoPSigner? {
        guard let algorithm = try DPoP.algorithm(metadata: metadata, setting: provider.dpop ?? .auto) else { return nil }
        let key: JWSKeyPair
        do { key = try env.crypto.generateKeyPair(algorithm) } catch { throw .unsupported(.dpopSigningFailed(String(describing: error))) }
        return DPoPSigner(key: key, crypto: env.crypto, now: env.now, nonces: nonces(env))
    }

    /// The signer of an account with a stored key, or nil for a Bearer account.
    /// - Throws: `AuthError.unsupported(.dpopSigningFailed)` when the stored key is unreadable.
    static func signer(env: AppEnvironment, secrets: AccountSecrets) throws(AuthError) -> DPoPSigner? {
        guard let stored = secrets.dpopKey else { return nil }
        guard let json = try? parseJSONValue(Data(stored.exposedValue.utf8)), let key = try? JWSKeyPair(json: json) else {
            throw .unsupported(.dpopSigningFailed("the stored DPoP key is not a private JWK"))
        }
        return DPoPSigner(key: key, crypto: env.crypto, now: env.now, nonces: nonces(env))
    }

    /// A DPoP-bound account whose key is gone (a store that lost it): only a new sign-in helps.
    static func keyMissing(_ record: AccountRecord) -> AppError {
        AppError(title: "The DPoP key of \(record.displayName) is missing",
                 detail: "Its tokens are bound to a key that is no longer stored; they cannot be used or refreshed.",
                 specReference: "RFC 9449 §5", disposition: .needsSignIn)
    }

    /// The key as stored with the account's other secrets (a private JWK).
    static func stored(_ signer: DPoPSigner) -> StoredDPoPKey {
        StoredDPoPKey(String(decoding: signer.key.json.serialized(), as: UTF8.self))
    }
}
