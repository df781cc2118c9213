import AppCore
import CredentialStore
import CredentialStoreLive
import Foundation

/// The non-secret files (JSON, 0600, atomic, under XDG directories):
/// - `$XDG_CONFIG_HOME/authdeck/providers.json`: the configured providers;
/// - `$XDG_CONFIG_HOME/authdeck/store.json`: the credential store backend chosen (and why);
/// - `$XDG_STATE_HOME/authdeck/accounts.json`: account metadata (no tokens);
/// - `$XDG_STATE_HOME/authdeck/active.json`: the active account.
public struct ConfigFiles: Sendable {
    public let paths: XDGPaths

    public init(paths: XDGPaths) { self.paths = paths }

    struct ActiveAccount: Codable, Sendable { var account: AccountID? }

    var providersFile: JSONFileStore<[ProviderConfig]> { MetadataFile.config("providers.json", paths: paths) }
    var storeFile: JSONFileStore<StoreSelection> { MetadataFile.config("store.json", paths: paths) }
    var accountsFile: JSONFileStore<[AccountRecord]> { MetadataFile.state("accounts.json", paths: paths) }
    var activeFile: JSONFileStore<ActiveAccount> { MetadataFile.state("active.json", paths: paths) }

    public func providers() throws(SecretStoreError) -> [ProviderConfig] { try providersFile.read() ?? [] }

    /// Adds or replaces a provider (by id) under the file's lock.
    public func saveProvider(_ provider: ProviderConfig) throws(SecretStoreError) {
        try providersFile.update { (list: inout [ProviderConfig]?) in
            var all = (list ?? []).filter { $0.id != provider.id }
            all.append(provider)
            list = all.sorted { $0.id < $1.id }
        }
    }

    /// Removes a provider; returns whether it existed.
    @discardableResult
    public func removeProvider(_ id: ProviderID) throws(SecretStoreError) -> Bool {
        var existed = false
        try providersFile.update { (list: inout [ProviderConfig]?) in
            existed = list?.contains { $0.id == id } ?? false
            list = (list ?? []).filter { $0.id != id }
        }
        return existed
    }

    public func accounts() throws(SecretStoreError) -> [AccountRecord] { try accountsFile.read() ?? [] }

    /// Adds or replaces an account's metadata (by id) under the file's lock.
    public func saveAccount(_ record: AccountRecord) throws(SecretStoreError) {
        try accountsFile.update { (list: inout [AccountRecord]?) in
            var all = (list ?? []).filter { $0.id != record.id }
            all.append(record)
            list = all.sorted { $0.id < $1.id }
        }
    }

    public func removeAccount(_ id: AccountID) throws(SecretStoreError) {
        try accountsFile.update { (list: inout [AccountRecord]?) in list = (list ?? []).filter { $0.id != id } }
    }

    public func activeAccount() throws(SecretStoreError) -> AccountID? { try activeFile.read()?.account }

    public func saveActiveAccount(_ id: AccountID?) throws(SecretStoreError) {
        try activeFile.write(ActiveAccount(account: id))
    }

    public func recordedStore() -> StoreSelection? { try? storeFile.read() }

    public func recordStore(_ selection: StoreSelection) throws(SecretStoreError) {
        if (try? storeFile.read()) != selection { try storeFile.write(selection) }
    }
}
