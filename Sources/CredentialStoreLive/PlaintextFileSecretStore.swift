import CredentialStore
import FoundationEssentials

/// Every account's secret set as **unencrypted** JSON in one 0600 file. Used only when the user
/// chose it explicitly (`AUTHDECK_STORE=plaintext` or the config); ``isInsecure`` is always true
/// and the front ends show it. Same locking and atomic writes as the vault.
public final class PlaintextFileSecretStore: SecretStore {
    public let path: String
    let file: AccountsFile

    public var kind: SecretStoreKind { .plaintext }
    public var isInsecure: Bool { true }

    public init(path: String) {
        self.path = path
        file = AccountsFile(path: path)
    }

    private func document() throws(SecretStoreError) -> AccountsDocument {
        guard let bytes = try file.read() else { return AccountsDocument() }
        return try AccountsDocument.decode(bytes, path: path)
    }

    public func load(_ key: AccountKey) throws(SecretStoreError) -> AccountSecrets {
        guard let secrets = try document()[key] else { throw .notFound(key) }
        return secrets
    }

    public func save(_ secrets: AccountSecrets, for key: AccountKey) throws(SecretStoreError) {
        try file.update { (bytes) throws(SecretStoreError) in
            var document = try bytes.map { (b) throws(SecretStoreError) in try AccountsDocument.decode(b, path: path) } ?? AccountsDocument()
            document[key] = secrets
            return document.encoded()
        }
    }

    public func delete(_ key: AccountKey) throws(SecretStoreError) {
        try file.update { (bytes) throws(SecretStoreError) in
            guard let bytes else { return nil }
            var document = try AccountsDocument.decode(bytes, path: path)
            guard document[key] != nil else { return nil }
            document[key] = nil
            return document.encoded()
        }
    }

    public func listAccounts() throws(SecretStoreError) -> [AccountKey] { try document().keys }

    public func tryLockAccount(_ key: AccountKey) throws(SecretStoreError) -> (any AccountLockHandle)? {
        try PrivateFiles.ensureDirectory(file.directory)
        return try file.accountLocks.tryLock(key)
    }
}
