import CredentialStore
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
import Glibc
import TextSupport
#endif

/// A cross-process exclusive lock: `flock(LOCK_EX)` on a lock file (created 0600, never deleted,
/// so every process locks the same inode). The lock belongs to the open file description, so two
/// threads of one process also exclude each other, and a killed holder releases it at once.
public final class FileLock: AccountLockHandle {
    private let fd: Mutex<Int32>
    /// The lock file.
    public let path: String

    private init(fd: Int32, path: String) {
        self.fd = Mutex(fd)
        self.path = path
    }

    /// Takes the lock if it is free; nil when another holder has it.
    /// - Throws: ``SecretStoreError/io(file:operation:cause:)`` when the lock file cannot be opened.
    public static func tryLock(_ path: String) throws(SecretStoreError) -> FileLock? {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw .io(file: path, operation: "open lock file", cause: PrivateFiles.errnoCause("open")) }
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            let code = errno
            close(fd)
            if code == EWOULDBLOCK { return nil }
            throw .io(file: path, operation: "flock", cause: PrivateFiles.errnoCause("flock", code))
        }
        return FileLock(fd: fd, path: path)
    }

    /// Takes the lock, waiting (polling every 5 ms) up to `timeout`.
    /// - Throws: ``SecretStoreError/timeout(operation:seconds:)``, `io`.
    public static func lock(_ path: String, timeout: Duration = .seconds(30)) throws(SecretStoreError) -> FileLock {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            if let lock = try tryLock(path) { return lock }
            guard clock.now < deadline else {
                let (s, atto) = timeout.components
                throw .timeout(operation: "lock \(path)", seconds: Double(s) + Double(atto) / 1e18)
            }
            usleep(5_000)
        }
    }

    /// Runs `body` holding the lock of `path`.
    public static func withLock<T>(
        _ path: String, timeout: Duration = .seconds(30), _ body: () throws(SecretStoreError) -> T
    ) throws(SecretStoreError) -> T {
        let lock = try lock(path, timeout: timeout)
        defer { lock.release() }
        return try body()
    }

    /// Replaces the lock file's contents with `text` (who holds it: a pid), in place — the file
    /// is never replaced, so every process keeps locking the same inode. Best effort.
    public func record(_ text: String) {
        fd.withLock { fd in
            guard fd >= 0, ftruncate(fd, 0) == 0 else { return }
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        }
    }

    /// What the holder of the lock file at `path` recorded (``record(_:)``), nil when nothing
    /// can be read. Read without the lock: it may be a previous holder's.
    public static func recorded(_ path: String) -> String? {
        guard let data = try? PrivateFiles.read(path, check: .none), !data.isEmpty, data.count < 64 else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    public func release() {
        fd.withLock { fd in
            if fd >= 0 {
                close(fd)  // closing the only descriptor drops the flock
                fd = -1
            }
        }
    }

    deinit { release() }
}

/// Per-account lock files in one directory (created 0700). A file's name is a hash of the
/// account key, so any provider or account name is safe.
public struct AccountLockDirectory: Sendable {
    public let directory: String

    public init(directory: String) { self.directory = directory }

    /// The lock file of `key`.
    public func path(for key: AccountKey) -> String {
        let digest = Sodium.genericHash(Array("\(key.provider)\u{0}\(key.account)".utf8), length: 16)
        return "\(directory)/account-\(digest.lowercaseHex).lock"
    }

    /// - Throws: `permissionDenied` when the directory is writable by group or others (another
    ///   user could hold or replace the lock files); `io`.
    public func tryLock(_ key: AccountKey) throws(SecretStoreError) -> FileLock? {
        try PrivateFiles.ensureDirectory(directory)
        try PrivateFiles.checkNotWritableByOthers(directory)
        return try FileLock.tryLock(path(for: key))
    }
}

extension Sequence<UInt8> {
}
