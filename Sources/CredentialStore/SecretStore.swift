#if canImport(Glibc)
import Glibc
#endif

/// Which backend holds the secrets. Raw values are the `AUTHDECK_STORE` spellings.
public enum SecretStoreKind: String, Sendable, CaseIterable {
    /// The freedesktop Secret Service (gnome-keyring, KWallet) through libsecret.
    case secretService = "secret-service"
    /// The passphrase-encrypted file vault (Argon2id + XChaCha20-Poly1305).
    case vault
    /// An unencrypted 0600 JSON file. Only when chosen explicitly; always reported insecure.
    case plaintext
    /// In-process memory (tests).
    case memory

    /// True for the backends that keep secrets unencrypted on disk.
    public var isInsecure: Bool { self == .plaintext }
}

/// A held per-account lock. Released by ``release()`` or when the last reference goes away.
public protocol AccountLockHandle: AnyObject, Sendable {
    func release()
}

/// The keyring-like store where every secret lives (one secret set per ``AccountKey``).
///
/// All operations are synchronous and may block (file I/O, D-Bus calls with a timeout);
/// call them off the UI thread. Errors are ``SecretStoreError``.
///
/// Refreshing an account: take ``withAccountLock(_:timeout:_:)-sync``, **re-read** with
/// ``load(_:)`` inside it (another process may have refreshed already), and ``save(_:for:)``
/// the rotated tokens before telling anyone the refresh succeeded.
public protocol SecretStore: Sendable {
    /// The backend.
    var kind: SecretStoreKind { get }
    /// True when secrets are stored unencrypted (the UI shows a badge, `status` a warning).
    var isInsecure: Bool { get }

    /// The secret set stored under `key`.
    /// - Throws: ``SecretStoreError/notFound(_:)`` when there is none; backend errors otherwise.
    func load(_ key: AccountKey) throws(SecretStoreError) -> AccountSecrets
    /// Stores `secrets` under `key`, replacing what was there. Atomic: on failure the previous
    /// value (and every other account) is unchanged.
    func save(_ secrets: AccountSecrets, for key: AccountKey) throws(SecretStoreError)
    /// Removes the secret set under `key`. Removing an absent key is not an error.
    func delete(_ key: AccountKey) throws(SecretStoreError)
    /// Every key with a stored secret set, sorted.
    func listAccounts() throws(SecretStoreError) -> [AccountKey]
    /// Takes the cross-process lock of `key` if it is free; nil when someone else holds it.
    func tryLockAccount(_ key: AccountKey) throws(SecretStoreError) -> (any AccountLockHandle)?
    /// Makes sure that a ``save(_:for:)`` can succeed now, before anything that cannot be done
    /// again starts (a browser sign-in): a vault is unlocked or created (its passphrase set), a
    /// keyring's collection unlocked (its prompt answered). May ask the user; never stores a
    /// secret. The default reads the list of accounts.
    /// - Throws: what stands in the way (`locked`, `wrongPassphrase`, `timeout`, `cancelled`, …).
    func prepareForWrite() throws(SecretStoreError)
}

extension SecretStore {
    public var isInsecure: Bool { kind.isInsecure }

    public func prepareForWrite() throws(SecretStoreError) { _ = try listAccounts() }

    /// The secret set under `key`, or nil when there is none.
    public func loadIfPresent(_ key: AccountKey) throws(SecretStoreError) -> AccountSecrets? {
        do {
            return try load(key)
        } catch .notFound {
            return nil
        }
    }

    /// Runs `body` holding the cross-process lock of `key` (polling every 10 ms).
    /// - Parameter timeout: how long to wait for the lock.
    /// - Throws: ``SecretStoreError/timeout(operation:seconds:)`` when the lock stays busy; what
    ///   `body` throws.
    public func withAccountLock<T>(
        _ key: AccountKey, timeout: Duration = .seconds(30), _ body: () throws -> T
    ) throws -> T {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            if let handle = try tryLockAccount(key) {
                defer { handle.release() }
                return try body()
            }
            guard clock.now < deadline else {
                throw SecretStoreError.timeout(operation: "lock \(key)", seconds: timeout.seconds)
            }
            usleep(10_000)
        }
    }

    /// The async form of ``withAccountLock(_:timeout:_:)-sync`` for bodies that await (a refresh
    /// request). The lock belongs to an open file, not a thread, so suspension is fine.
    /// - Parameter clock: measures the wait and sleeps between polls (10 ms); the live one is
    ///   `ContinuousClock`, a test's can run a long wait (a refresh's 130 s) at once.
    public func withAccountLock<T: Sendable>(
        _ key: AccountKey, timeout: Duration = .seconds(30), clock: any Clock<Duration> = ContinuousClock(), _ body: () async throws -> T
    ) async throws -> T {
        try await withAccountLock(key, timeout: timeout, on: clock, body)
    }

    private func withAccountLock<T: Sendable, C: Clock<Duration>>(
        _ key: AccountKey, timeout: Duration, on clock: C, _ body: () async throws -> T
    ) async throws -> T {
        let deadline = clock.now.advanced(by: timeout)
        while true {
            if let handle = try tryLockAccount(key) {
                defer { handle.release() }
                return try await body()
            }
            guard clock.now < deadline else {
                throw SecretStoreError.timeout(operation: "lock \(key)", seconds: timeout.seconds)
            }
            try await clock.sleep(for: .milliseconds(10))
        }
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }
}
