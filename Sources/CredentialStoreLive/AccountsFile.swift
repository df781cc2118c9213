import CredentialStore
import FoundationEssentials
import TextSupport
import Glibc

/// A file holding every account's secret set (the vault or the plaintext file), with the
/// locking both share:
/// - a store-level lock (`.<name>.lock`) around every read-modify-write, so writers updating
///   different accounts never lose each other's updates;
/// - per-account lock files (`.<name>.locks/`) for ``SecretStore/tryLockAccount(_:)``;
/// - atomic replacement of the file (readers never need a lock: they see the old or the new file).
///
/// The file and its directory must be private (0600 / 0700, owned by the user).
struct AccountsFile: Sendable {
    let path: String

    var directory: String { PrivateFiles.directoryOf(path) }
    var name: String { PathText.lastComponent(path) }
    var storeLockPath: String { "\(directory)/.\(name).lock" }
    var accountLocks: AccountLockDirectory { AccountLockDirectory(directory: "\(directory)/.\(name).locks") }

    /// The file's bytes, or nil when it does not exist.
    func read() throws(SecretStoreError) -> [UInt8]? {
        try checkDirectory()
        return try PrivateFiles.read(path, requirePrivate: true).map { Array($0) }
    }

    /// The directory holding the file is private (owner only, no symlink), when it exists.
    func checkDirectory() throws(SecretStoreError) {
        var st = stat()
        if lstat(directory, &st) == 0 { try PrivateFiles.checkPrivate(st, path: directory) }
    }

    /// What ``read()`` would refuse for the permissions of the directory and the file (the
    /// same rules, ``PrivateFiles/checkPrivate(_:)``), found without reading or decrypting it:
    /// `status` and `doctor` ask it, so they say what `token` meets even when the vault is locked.
    func permissionProblem() -> SecretStoreError? {
        do throws(SecretStoreError) {
            try checkDirectory()
            var st = stat()
            if lstat(path, &st) == 0 { try PrivateFiles.checkPrivate(st, path: path) }
            return nil
        } catch {
            return error
        }
    }

    /// Under the store lock: reads the file (nil if absent), lets `body` compute the new bytes
    /// (nil: leave the file as it is), and replaces the file atomically.
    func update(_ body: ([UInt8]?) throws(SecretStoreError) -> [UInt8]?) throws(SecretStoreError) {
        try PrivateFiles.ensureDirectory(directory)
        try PrivateFiles.checkPrivate(directory)
        let lock = try FileLock.lock(storeLockPath)
        defer { lock.release() }
        PrivateFiles.removeStaleTempFiles(for: path)
        let current = try read()
        guard let next = try body(current) else { return }
        try PrivateFiles.writeAtomically(Data(next), to: path)
    }
}

extension AccountsFile {
    /// Moves the file aside under the store lock (``PrivateFiles/moveAside(_:now:)``): the new
    /// path, nil when there was none.
    func moveAside(now: Date) throws(SecretStoreError) -> String? {
        try PrivateFiles.ensureDirectory(directory)
        let lock = try FileLock.lock(storeLockPath)
        defer { lock.release() }
        return try PrivateFiles.moveAside(path, now: now)
    }
}

/// A store whose secrets are one file (the vault, the plaintext file): `authdeck doctor` names
/// it and can move it aside when it is damaged.
public protocol FileBackedSecretStore: SecretStore {
    var path: String { get }
    /// Moves the file aside under the store lock; the new path, nil when there was no file.
    func moveAside(now: Date) throws(SecretStoreError) -> String?
    /// What every read refuses about the permissions of the file and its directory, found
    /// without reading it (``AccountsFile/permissionProblem()``); nil when they are private.
    func permissionProblem() -> SecretStoreError?
}

extension VaultSecretStore: FileBackedSecretStore {
    public func moveAside(now: Date) throws(SecretStoreError) -> String? { try file.moveAside(now: now) }
    public func permissionProblem() -> SecretStoreError? { file.permissionProblem() }
}

extension PlaintextFileSecretStore: FileBackedSecretStore {
    public func moveAside(now: Date) throws(SecretStoreError) -> String? { try file.moveAside(now: now) }
    public func permissionProblem() -> SecretStoreError? { file.permissionProblem() }
}
