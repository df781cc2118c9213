import AppCore
import AuthEngine
import CredentialStore
import CredentialStoreLive
import FoundationEssentials
import QuickToken

/// The non-secret files (JSON, 0600, atomic, under XDG directories):
/// - `$XDG_CONFIG_HOME/authdeck/providers.json`: the configured providers;
/// - `$XDG_CONFIG_HOME/authdeck/store.json`: the credential store backend chosen (and why);
/// - `$XDG_CONFIG_HOME/authdeck/bindings.json`: the directory rules (`authdeck bind`);
/// - `$XDG_STATE_HOME/authdeck/accounts.json`: account metadata (no tokens);
/// - `$XDG_STATE_HOME/authdeck/active.json`: the active account.
public struct ConfigFiles: Sendable {
    public let paths: XDGPaths

    public init(paths: XDGPaths) { self.paths = paths }

    /// `active.json`: `{"account":"<provider>/<subject>"}`, or `{}` for none.
    struct ActiveAccount: Sendable {
        var account: AccountID?

        init(account: AccountID?) { self.account = account }

        init(json: JSONValue) throws(JSONShapeError) { account = try JSONReader(json).optionalString("account").map(AccountID.init(rawValue:)) }

        var json: JSONValue { .object(omittingNil: ["account": account.map { .string($0.rawValue) }]) }
    }

    var providersFile: JSONFileStore<[ProviderConfig]> {
        MetadataFile.config("providers.json", paths: paths, read: { (json) throws(JSONShapeError) in try ProviderConfig.list(json: json) },
                            write: { ProviderConfig.json($0) })
    }
    var storeFile: JSONFileStore<StoreSelection> {
        MetadataFile.config("store.json", paths: paths, read: { (json) throws(JSONShapeError) in try StoreSelection(json: json) }, write: { $0.json })
    }
    var accountsFile: JSONFileStore<[AccountRecord]> {
        MetadataFile.state("accounts.json", paths: paths, read: { (json) throws(JSONShapeError) in try AccountRecord.list(json: json) },
                           write: { AccountRecord.json($0) })
    }
    var activeFile: JSONFileStore<ActiveAccount> {
        MetadataFile.state("active.json", paths: paths, read: { (json) throws(JSONShapeError) in try ActiveAccount(json: json) }, write: { $0.json })
    }

    var bindingsFile: JSONFileStore<[DirectoryBinding]> {
        MetadataFile.config("bindings.json", paths: paths, read: { (json) throws(JSONShapeError) in try DirectoryBinding.list(json: json) },
                            write: { DirectoryBinding.json($0) })
    }

    public func providers() throws(SecretStoreError) -> [ProviderConfig] { try providersFile.read() ?? [] }

    /// The directory rules; none when the file does not exist.
    public func bindings() throws(SecretStoreError) -> [DirectoryBinding] { try bindingsFile.read() ?? [] }

    /// One read-modify-write of the directory rules under the file's lock.
    public func updateBindings(_ change: (inout [DirectoryBinding]) -> Void) throws(SecretStoreError) {
        try bindingsFile.update { (list: inout [DirectoryBinding]?) in
            var rules = list ?? []
            change(&rules)
            list = rules
        }
    }

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

    /// Records the chosen backend. A damaged `store.json` is left as it is (for `authdeck
    /// doctor`), never overwritten.
    public func recordStore(_ selection: StoreSelection) throws(SecretStoreError) {
        switch storeFile.inspect() {
        case .success(let current)? where current == selection: return
        case .failure(let error)? where error.damage != nil: return
        default: try storeFile.write(selection)
        }
    }

    /// The path of a metadata file.
    public func path(_ kind: MetadataFileKind) -> String {
        switch kind {
        case .providers: providersFile.path
        case .storeChoice: storeFile.path
        case .accounts: accountsFile.path
        case .active: activeFile.path
        }
    }

    /// A metadata file's condition: ok, missing, damaged (how), unreadable. Reads only.
    public func check(_ kind: MetadataFileKind) -> FileHealth {
        let error: SecretStoreError?? = switch kind {
        case .providers: providersFile.inspect().map(Self.failure)
        case .storeChoice: storeFile.inspect().map(Self.failure)
        case .accounts: accountsFile.inspect().map(Self.failure)
        case .active: activeFile.inspect().map(Self.failure)
        }
        let healthKind: FileHealth.Kind = switch kind {
        case .providers: .providers
        case .storeChoice: .storeChoice
        case .accounts: .accounts
        case .active: .active
        }
        let condition: FileHealth.Condition = switch error {
        case nil: .missing
        case .some(nil): .ok
        case .some(let error?): error.damage.map { .damaged($0.description) } ?? .unreadable(error.description)
        }
        return FileHealth(kind: healthKind, path: path(kind), condition: condition)
    }

    private static func failure<T>(_ result: Result<T, SecretStoreError>) -> SecretStoreError? {
        if case .failure(let error) = result { return error }
        return nil
    }

    /// Moves a metadata file aside under its lock; the new path, nil when there was none.
    public func moveAside(_ kind: MetadataFileKind, now: Date) throws(SecretStoreError) -> String? {
        switch kind {
        case .providers: try providersFile.moveAside(now: now)
        case .storeChoice: try storeFile.moveAside(now: now)
        case .accounts: try accountsFile.moveAside(now: now)
        case .active: try activeFile.moveAside(now: now)
        }
    }
}
