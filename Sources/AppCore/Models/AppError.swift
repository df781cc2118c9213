import FoundationEssentials

/// An error as the store keeps and shows it: Equatable, never holding a token. Made from the
/// engine's and credential store's typed errors by ``ErrorMapping`` (one mapping).
public struct AppError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What the store does about it.
    public enum Disposition: Equatable, Sendable {
        /// The grant is gone (`invalid_grant`, revoked, reused): sign in again, never retry.
        case needsSignIn
        /// Network or 5xx: retry, after `retryAfter` seconds when the server said so.
        case transient(retryAfter: Double?)
        /// A failed protocol check: never retried automatically, always shown.
        case securityRelevant
        /// The credential store is locked (vault passphrase or keyring).
        case storeLocked
        /// A file authdeck keeps (metadata, the vault, the plaintext store) is damaged: nothing
        /// was changed; `authdeck doctor` names the damage and `doctor --repair` moves it aside.
        case fileDamaged(file: String)
        /// The user cancelled.
        case cancelled
        /// The request itself was wrong (unknown provider or account, bad option): nothing was done.
        case usage
        case other
    }

    public var title: String
    public var detail: String
    /// The clause that was violated or the spec section of the error response, e.g. "RFC 6749 §5.2".
    public var specReference: String?
    public var disposition: Disposition
    /// The damaged file and what is wrong with it (with ``Disposition/fileDamaged(file:)``).
    public var damage: FileDamage?
    /// What to do next when it depends on the cause rather than the disposition (a locked
    /// keyring is not a vault without its passphrase); the front ends show it instead of their
    /// disposition's default advice.
    public var nextStep: String?
    /// What failed when `provider add`'s discovery probe refused a provider (the front end words
    /// what to do about it).
    public var probe: ProviderProbeFailure?

    public init(title: String, detail: String = "", specReference: String? = nil, disposition: Disposition = .other, damage: FileDamage? = nil,
                nextStep: String? = nil) {
        self.title = title
        self.detail = detail
        self.specReference = specReference
        self.disposition = disposition
        self.damage = damage
        self.nextStep = nextStep
    }

    /// "title: detail (spec)", without doubled punctuation.
    public var description: String {
        var text = title
        if !detail.isEmpty { text += (title.hasSuffix(".") || title.hasSuffix(":") ? " " : ": ") + detail }
        if let specReference { text += " (\(specReference))" }
        return text
    }

    public static let cancelled = AppError(title: "Cancelled", disposition: .cancelled)
}
