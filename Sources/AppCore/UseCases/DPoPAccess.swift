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
    static func signerForSignIn(env: AppEnvironment, provider: ProviderConfig, metadata: AuthorizationServerMetadata) throws(AuthError) -> DPoPSigner? {
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

/// `authdeck proof METHOD URL [ACCOUNT]` and `authdeck api`: a fresh DPoP proof (RFC 9449 §4.2)
/// of a DPoP account for one request, with `ath` for its access token (§4.3).
public struct DPoPProof: Sendable {
    let env: AppEnvironment
    public init(_ env: AppEnvironment) { self.env = env }

    /// A proof and the access token it goes with.
    public struct Issued: Sendable {
        /// The compact JWS for the `DPoP` header.
        public var proof: String
        public var accessToken: AccessToken
        public var tokenType: String
        /// RFC 7638 thumbprint of the account's key.
        public var thumbprint: String
    }

    /// The signer of account `id`.
    /// - Throws: `.usage` for a Bearer account (no key); store errors.
    func signer(_ id: AccountID) throws(AppError) -> DPoPSigner {
        let record = try Accounts(env: env).record(id)
        let secrets: AccountSecrets
        do { secrets = try env.credentials.store().load(Accounts.key(record)) } catch { throw ErrorMapping.appError(error) }
        let found: DPoPSigner?
        do { found = try DPoPAccess.signer(env: env, secrets: secrets) } catch { throw ErrorMapping.appError(error) }
        guard let found else {
            throw AppError(title: "\(record.displayName) holds Bearer tokens, not DPoP-bound ones",
                           detail: "There is no key to sign a proof with; the provider did not use DPoP at sign-in.",
                           specReference: "RFC 9449 §4", disposition: .usage)
        }
        return found
    }

    /// A proof for `method` `url` with the account's access token (refreshed when it expires within 30 s).
    /// - Throws: as ``TokenForScripts/accessToken(_:minimumValidity:resource:)`` and ``signer(_:)``.
    public func run(_ id: AccountID, method: String, url: URL) async throws(AppError) -> Issued {
        let signer = try signer(id)
        let token = try await TokenForScripts(env).accessToken(id, minimumValidity: .seconds(30))
        do {
            let proof = try DPoP.proof(key: signer.key, method: method, url: url, issuedAt: env.now(),
                                       nonce: signer.nonces.nonce(for: url), accessToken: token.value, crypto: env.crypto)
            return Issued(proof: proof, accessToken: token.value, tokenType: token.tokenType, thumbprint: signer.thumbprint)
        } catch {
            throw ErrorMapping.appError(error)
        }
    }
}
