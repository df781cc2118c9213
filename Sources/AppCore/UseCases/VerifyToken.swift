import AuthEngine
import FoundationEssentials

/// `authdeck decode --verify`: an ID token checked against an issuer's JWKS as OIDC Core
/// §3.1.3.7 says (signature, `iss`, `aud`, `azp`, `exp`, `iat` not in the future — its age is
/// not bounded, ``IssuedAtBound/skipCheck`` —, `nonce` when given).
public struct VerifyToken: Sendable {
    let env: AppEnvironment
    public init(_ env: AppEnvironment) { self.env = env }

    /// The nonce the token must carry.
    public enum Nonce: Sendable {
        case none
        /// The claim itself.
        case value(String)
        /// Sign in with Apple: the claim is the SHA-256 (lowercase hex) of this raw nonce.
        case sha256Of(String)
    }

    /// - Parameters:
    ///   - issuer: the expected `iss`; its discovery document names the JWKS.
    ///   - audience: the client id the token must be issued to.
    /// - Throws: the ``AuthError`` of the first rule that failed.
    public func run(_ token: String, issuer: String, audience: String, nonce: Nonce) async throws(AuthError) -> VerifiedIDToken {
        let http = env.http(nil)
        let metadata = try await fetchMetadata(issuer: issuer, http: http)
        let expected: ExpectedNonce
        switch nonce {
        case .none: expected = .skipCheck
        case .value(let value): expected = .value(value)
        case .sha256Of(let raw): expected = .value(sha256HexNonce(raw, crypto: env.crypto))
        }
        var options = IDTokenValidationOptions(issuer: metadata.issuer, clientID: audience, clientIsPublic: true, nonce: expected,
                                               accessTokenHash: .skipCheck, serverAlgorithms: metadata.idTokenSigningAlgValuesSupported)
        // A token given on the command line is checked whenever the user asks, not as it arrives
        // from the provider: its age is not a sign of replay here (exp still bounds it).
        options.issuedAt = .skipCheck
        return try await validateIDToken(RawIDToken(token), options: options, crypto: env.crypto, now: env.now(),
                                         jwksCache: JWKSCache(metadata: metadata, http: http))
    }
}
