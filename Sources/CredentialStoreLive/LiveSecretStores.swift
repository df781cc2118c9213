import CredentialStore
import FoundationEssentials

/// Builds the live backends and makes the selection decision.
public enum LiveSecretStores {
    /// Optional override of the vault key cache lifetime, in whole seconds; 0 disables the cache.
    public static let keyCacheSecondsVariable = "AUTHDECK_VAULT_CACHE_SECONDS"

    /// Chooses the backend: `AUTHDECK_STORE`, else `configured`, else the Secret Service when it
    /// answers within `probeTimeout`, the vault when there is none, nothing when it did not
    /// answer (see ``StoreSelection/choose(environment:configured:secretServiceProbe:)``).
    /// Record the result in config when ``StoreSelection/isRecorded`` and show it in `status`.
    /// - Throws: `invalidConfiguration`; `timeout` when the probe timed out.
    public static func select(
        environment: [String: String], configured: SecretStoreKind? = nil, probeTimeout: Duration = .seconds(3)
    ) throws(SecretStoreError) -> StoreSelection {
        try StoreSelection.choose(environment: environment, configured: configured) {
            SecretServiceStore.probe(timeout: probeTimeout)
        }
    }

    /// The store for `kind` with the default locations under `paths`.
    /// - Parameters:
    ///   - keyCacheTTL: how long an unlocked vault key stays cached (overridden by
    ///     `AUTHDECK_VAULT_CACHE_SECONDS`); zero disables the cache.
    public static func make(
        _ kind: SecretStoreKind, paths: XDGPaths, environment: [String: String],
        vaultLimits: VaultSecretStore.KDFLimits = .moderate, keyCacheTTL: Duration = .seconds(900)
    ) -> any SecretStore {
        switch kind {
        case .secretService:
            return SecretServiceStore(lockDirectory: paths.lockDirectory)
        case .vault:
            let ttl = environment[keyCacheSecondsVariable].flatMap(Int64.init).map { Duration.seconds($0) } ?? keyCacheTTL
            return VaultSecretStore(
                path: paths.vaultFile, passphrase: .fromEnvironment(environment), newVaultLimits: vaultLimits,
                keyCache: paths.defaultVaultKeyCache(), keyCacheTTL: ttl)
        case .plaintext:
            return PlaintextFileSecretStore(path: paths.plaintextFile)
        case .memory:
            return InMemorySecretStore()
        }
    }
}
