/// The outcome of choosing a backend: which one, and why (recorded in config, shown by `status`).
public struct StoreSelection: Sendable, Equatable {
    public enum Reason: String, Sendable, Equatable {
        /// `AUTHDECK_STORE` named the backend.
        case environment
        /// The configuration file named the backend (the only way besides the environment to get plaintext).
        case configuration
        /// No explicit choice; a Secret Service answered on the session bus.
        case secretServiceReachable
        /// No explicit choice; no usable Secret Service, so the encrypted vault.
        case secretServiceUnreachable
    }

    public var kind: SecretStoreKind
    public var reason: Reason

    public init(kind: SecretStoreKind, reason: Reason) {
        self.kind = kind
        self.reason = reason
    }

    /// The environment variable that forces a backend.
    public static let environmentVariable = "AUTHDECK_STORE"

    /// Chooses the backend: `AUTHDECK_STORE` if set, else the configured kind, else the Secret
    /// Service when `secretServiceReachable()` says so, else the vault. Never plaintext unless
    /// it was named explicitly. `secretServiceReachable` is called only when needed.
    /// - Throws: ``SecretStoreError/invalidConfiguration(cause:)`` for an unknown `AUTHDECK_STORE` value.
    public static func choose(
        environment: [String: String],
        configured: SecretStoreKind? = nil,
        secretServiceReachable: () -> Bool
    ) throws(SecretStoreError) -> StoreSelection {
        if let forced = environment[environmentVariable], !forced.isEmpty {
            guard let kind = SecretStoreKind(rawValue: forced) else {
                let allowed = SecretStoreKind.allCases.map(\.rawValue).joined(separator: "|")
                throw .invalidConfiguration(cause: .init("\(environmentVariable)=\(forced) is not a store; must be one of \(allowed)"))
            }
            return StoreSelection(kind: kind, reason: .environment)
        }
        if let configured { return StoreSelection(kind: configured, reason: .configuration) }
        return secretServiceReachable()
            ? StoreSelection(kind: .secretService, reason: .secretServiceReachable)
            : StoreSelection(kind: .vault, reason: .secretServiceUnreachable)
    }
}
