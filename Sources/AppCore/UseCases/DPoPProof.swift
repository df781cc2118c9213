import AuthEngine
import CredentialStore
import FoundationEssentials

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
