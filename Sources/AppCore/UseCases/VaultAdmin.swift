import AuthEngine
import CredentialStore
import FoundationEssentials

/// `authdeck lock` and `authdeck passphrase`.
public struct VaultAdmin: Sendable {
    let env: AppEnvironment
    public init(_ env: AppEnvironment) { self.env = env }

    /// Forgets the vault's derived key here and in the key cache; false when the store is not a vault.
    public func lock() throws(AppError) -> Bool { try env.credentials.lockVault() }

    /// Re-encrypts the vault under a new passphrase (one atomic rename); false when not a vault.
    public func changePassphrase() throws(AppError) -> Bool { try env.credentials.changeVaultPassphrase() }
}
