import CredentialStore
import FoundationEssentials
import QuickToken

/// Builds the live backends and makes the selection decision.
public enum LiveSecretStores {
    /// Optional override of the vault key cache lifetime, in whole seconds; 0 disables the cache.
    public static let keyCacheSecondsVariable = "AUTHDECK_VAULT_CACHE_SECONDS"

    /// Test suites only. When it names exactly the file in `AUTHDECK_PASSPHRASE_FILE`, a new
    /// vault (and a passphrase change) gets libsodium's minimum Argon2id limits (1 pass, 8 KiB)
    /// instead of `vaultLimits`: a suite that makes dozens of vaults through the binary then does
    /// not spend half a second and 256 MiB of memory on each. Such a vault is no harder to guess
    /// than its passphrase, so it takes both variables naming the same file (neither alone, left
    /// in a shell or copied from a script, changes anything), and a vault that exists keeps the
    /// limits written in its header. (Its name says PASSPHRASE, so the browser's environment
    /// drops it with the other passphrase variables.)
    public static let testMinimumKDFVariable = "AUTHDECK_TEST_MINIMUM_KDF_PASSPHRASE_FILE"

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
    /// - Throws: ``SecretStoreError/invalidConfiguration(cause:)`` when the vault is chosen and
    ///   `AUTHDECK_VAULT_CACHE_SECONDS` is not a whole number of seconds, 0 or more.
    public static func make(
        _ kind: SecretStoreKind, paths: XDGPaths, environment: [String: String],
        vaultLimits: VaultSecretStore.KDFLimits = .moderate, keyCacheTTL: Duration = .seconds(900)
    ) throws(SecretStoreError) -> any SecretStore {
        switch kind {
        case .secretService:
            return SecretServiceStore(lockDirectory: paths.lockDirectory,
                                      interactive: environment[PassphraseSource.nonInteractiveVariable] != "1")
        case .vault:
            var ttl = keyCacheTTL
            if let text = environment[keyCacheSecondsVariable], !text.isEmpty {
                guard let seconds = Int64(text), seconds >= 0 else {
                    throw .invalidConfiguration(cause: .init("\(keyCacheSecondsVariable) is not a number of seconds; give 0 or more"
                        + " (0 keeps no key cached), or unset it for the default 900"))
                }
                ttl = .seconds(seconds)
            }
            return VaultSecretStore(
                path: paths.vaultFile, passphrase: .fromEnvironment(environment),
                newVaultLimits: newVaultLimits(environment: environment, otherwise: vaultLimits),
                keyCache: paths.defaultVaultKeyCache(), keyCacheTTL: ttl)
        case .plaintext:
            return PlaintextFileSecretStore(path: paths.plaintextFile)
        case .memory:
            return InMemorySecretStore()
        }
    }

    /// The Argon2id limits of a new vault: `limits`, or ``VaultSecretStore/KDFLimits/minimum``
    /// when ``testMinimumKDFVariable`` and `AUTHDECK_PASSPHRASE_FILE` name the same file (compared
    /// byte for byte).
    public static func newVaultLimits(environment: [String: String], otherwise limits: VaultSecretStore.KDFLimits) -> VaultSecretStore.KDFLimits {
        guard let named = environment[testMinimumKDFVariable], !named.isEmpty,
              let passphraseFile = environment[PassphraseSource.fileVariable],
              named.utf8.elementsEqual(passphraseFile.utf8) else { return limits }
        return .minimum
    }
}
