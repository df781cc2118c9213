import FoundationEssentials

/// `code_challenge_method` (RFC 7636 §4.3). Only S256: `plain` is never offered (docs/ARCHITECTURE.md, "Refusals").
public enum CodeChallengeMethod: String, Sendable, Equatable {
    case s256 = "S256"
}

/// `code_challenge` (RFC 7636 §4.2): BASE64URL(SHA-256(ASCII(code_verifier))), 43 characters.
public struct CodeChallenge: Sendable, Equatable {
    public var value: String
    public var method: CodeChallengeMethod
    public init(value: String, method: CodeChallengeMethod = .s256) {
        self.value = value
        self.method = method
    }
}

/// Proof Key for Code Exchange (RFC 7636).
public enum PKCE {
    /// A fresh `code_verifier` (RFC 7636 §4.1): 32 random bytes (256 bits) as base64url, 43 characters.
    public static func makeCodeVerifier(crypto: CryptoProvider) -> CodeVerifier {
        CodeVerifier(Base64URL.encode(crypto.randomBytes(32)))
    }

    /// The S256 challenge of `verifier` (RFC 7636 §4.2), hashed with `crypto.digest(.sha256, …)`.
    public static func makeCodeChallenge(for verifier: CodeVerifier, crypto: CryptoProvider) -> CodeChallenge {
        CodeChallenge(value: Base64URL.encode(crypto.digest(.sha256, Data(verifier.exposedValue.utf8))))
    }
}
