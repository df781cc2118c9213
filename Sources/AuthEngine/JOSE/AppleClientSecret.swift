import FoundationEssentials

/// Sign in with Apple's client secret: an ES256 JWT signed with the developer's key
/// (header `alg: ES256`, `kid`; claims `iss` team id, `iat`, `exp` at most 15 777 000 s after
/// `iat`, `aud: https://appleid.apple.com`, `sub` the Services ID), made with ``CompactJWSSigner``.
public enum AppleClientSecret {
    public static let audience = "https://appleid.apple.com"
    /// Apple's upper bound on `exp − iat`, in seconds (about six months).
    public static let maximumLifetimeSeconds: TimeInterval = 15_777_000
    /// Renew a kept secret when less than this is left, in seconds (7 days).
    public static let renewalMarginSeconds: TimeInterval = 7 * 86_400

    /// What was wrong with an input.
    public enum Failure: Error, Sendable, Equatable {
        /// The team id is not 10 characters of A–Z and 0–9.
        case invalidTeamID(String)
        /// The key id is not 10 characters of A–Z and 0–9.
        case invalidKeyID(String)
        /// The Services ID (client id) is empty or holds spaces or control characters.
        case invalidClientID(String)
        /// The lifetime is not between one second and ``maximumLifetimeSeconds``.
        case lifetimeOutOfRange(seconds: TimeInterval)
        /// The key cannot sign (not P-256, damaged).
        case key(JWSSigningError)
    }

    /// Apple's team and key ids: exactly 10 characters of A–Z and 0–9.
    public static func isAppleID(_ text: String) -> Bool {
        text.utf8.count == 10 && text.utf8.allSatisfy {
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
        }
    }

    /// Checks every input before anything is signed.
    /// - Throws: ``Failure`` naming the first bad input.
    public static func validate(teamID: String, keyID: String, clientID: String, lifetimeSeconds: TimeInterval) throws(Failure) {
        guard isAppleID(teamID) else { throw .invalidTeamID(teamID) }
        guard isAppleID(keyID) else { throw .invalidKeyID(keyID) }
        guard !clientID.isEmpty,
              !clientID.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control }) else {
            throw .invalidClientID(clientID)
        }
        guard lifetimeSeconds >= 1, lifetimeSeconds <= maximumLifetimeSeconds else { throw .lifetimeOutOfRange(seconds: lifetimeSeconds) }
    }

    /// The client secret, issued at `issuedAt` (whole seconds) for `lifetimeSeconds`.
    /// - Throws: ``Failure`` (inputs, or `.key` when the key is not ES256 or cannot sign).
    public static func make(key: JWSKeyPair, teamID: String, keyID: String, clientID: String, issuedAt: Date,
                            lifetimeSeconds: TimeInterval, crypto: CryptoProvider) throws(Failure) -> ClientSecret {
        try validate(teamID: teamID, keyID: keyID, clientID: clientID, lifetimeSeconds: lifetimeSeconds)
        guard key.algorithm == .es256 else { throw .key(.unsupportedAlgorithm(key.algorithm)) }
        let iat = issuedAt.timeIntervalSince1970.rounded(.down)
        do {
            return ClientSecret(try CompactJWSSigner.sign(
                header: ["kid": .string(keyID)],
                claims: ["iss": .string(teamID), "iat": .number(iat), "exp": .number(iat + lifetimeSeconds.rounded(.down)),
                         "aud": .string(audience), "sub": .string(clientID)],
                key: key, crypto: crypto))
        } catch {
            throw .key(error)
        }
    }

    /// Whether a kept secret expiring at `expiresAt` must be minted again at `now`.
    public static func needsRenewal(expiresAt: Date?, now: Date) -> Bool {
        guard let expiresAt else { return true }
        return expiresAt.timeIntervalSince(now) < renewalMarginSeconds
    }
}
