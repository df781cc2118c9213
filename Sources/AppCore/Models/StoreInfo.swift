import CredentialStore
import FoundationEssentials

/// The credential store as the app sees it.
public struct StoreInfo: Equatable, Sendable {
    /// The backend; nil when none could be selected (or before the first load).
    public var backend: SecretStoreKind?
    public var isLocked: Bool
    /// The secrets' file cannot be read: it is damaged (the vault's header or authentication
    /// tag fails, the plaintext file is not what authdeck wrote).
    public var damage: FileDamage?
    /// Why this backend is the one in use ("a Secret Service answered on the session bus;
    /// recorded in …/store.json"), or why there is none; `status` and `login` say it.
    public var reason: String?
    /// Why the store could not be asked ("… did not answer within 3 s"): its state is unknown.
    public var problem: String?
    public init(backend: SecretStoreKind?, isLocked: Bool = false, damage: FileDamage? = nil, reason: String? = nil, problem: String? = nil) {
        self.backend = backend
        self.isLocked = isLocked
        self.damage = damage
        self.reason = reason
        self.problem = problem
    }
    /// The store in a sentence ("the Secret Service (keyring)").
    public var label: String {
        switch backend {
        case .secretService?: "the Secret Service (keyring)"
        case .vault?: "the encrypted vault"
        case .plaintext?: "the PLAINTEXT file (insecure)"
        case .memory?: "process memory (gone when authdeck exits)"
        case nil: "no credential store"
        }
    }
    /// Plaintext: shown as a permanent warning badge.
    public var isInsecure: Bool { backend?.isInsecure ?? false }
    /// `secret-service`, `vault`, `plaintext`, `memory`, or `unavailable`.
    public var name: String { backend?.rawValue ?? "unavailable" }
}
