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

    /// Whether the choice is recorded in `store.json`: one the probe made (a Secret Service
    /// answered, or there is none). Not `AUTHDECK_STORE`'s (it holds for its process only), not
    /// the file's own (rewriting it would lose why it was made), and never a choice on a
    /// timeout (``choose(environment:configured:secretServiceProbe:)`` makes none).
    public var isRecorded: Bool { reason == .secretServiceReachable || reason == .secretServiceUnreachable }

    public init(kind: SecretStoreKind, reason: Reason) {
        self.kind = kind
        self.reason = reason
    }

    /// The environment variable that forces a backend.
    public static let environmentVariable = "AUTHDECK_STORE"

    /// Chooses the backend: `AUTHDECK_STORE` if set, else the configured kind, else the Secret
    /// Service when the probe finds one, the vault when it finds none. Never plaintext unless it
    /// was named explicitly. `secretServiceProbe` is called only when needed.
    ///
    /// A probe that timed out chooses nothing: whether a Secret Service exists is not known, and a
    /// vault chosen for this run would take secrets that the next run (the service answering)
    /// does not look for.
    /// - Throws: ``SecretStoreError/invalidConfiguration(cause:)`` for an unknown `AUTHDECK_STORE`
    ///   value; ``SecretStoreError/timeout(operation:seconds:)`` when the probe timed out.
    public static func choose(
        environment: [String: String],
        configured: SecretStoreKind? = nil,
        secretServiceProbe: () -> SecretServiceProbe
    ) throws(SecretStoreError) -> StoreSelection {
        if let forced = environment[environmentVariable], !forced.isEmpty {
            guard let kind = SecretStoreKind(rawValue: forced) else {
                let allowed = SecretStoreKind.allCases.map(\.rawValue).joined(separator: "|")
                throw .invalidConfiguration(cause: .init("\(environmentVariable)=\(forced) is not a store; must be one of \(allowed)"))
            }
            return StoreSelection(kind: kind, reason: .environment)
        }
        if let configured { return StoreSelection(kind: configured, reason: .configuration) }
        switch secretServiceProbe() {
        case .answered: return StoreSelection(kind: .secretService, reason: .secretServiceReachable)
        case .absent: return StoreSelection(kind: .vault, reason: .secretServiceUnreachable)
        case .timedOut(let seconds):
            throw .timeout(operation: "Secret Service probe (no store chosen, nothing recorded)", seconds: seconds)
        }
    }
}

extension StoreSelection.Reason {
    /// Why the backend is the one in use, as `status` and `login` say it.
    public var explanation: String {
        switch self {
        case .environment: "AUTHDECK_STORE names it"
        case .configuration: "recorded in store.json"
        case .secretServiceReachable: "a Secret Service answered on the session bus"
        case .secretServiceUnreachable: "no Secret Service on the session bus"
        }
    }
}

/// What asking the session bus for a Secret Service found (the store selection's probe).
public enum SecretServiceProbe: Sendable, Equatable {
    /// A Secret Service answered and has a default collection.
    case answered
    /// No session bus, no Secret Service on it, or one without a default collection.
    case absent
    /// Nothing answered within `seconds`: whether there is a Secret Service is not known.
    case timedOut(seconds: Double)
}
