import CredentialStore
import Synchronization

/// A ``SecretStore`` for tests that records every call (Auth0's spy) and can be told to fail.
/// Backed by an ``InMemorySecretStore``.
public final class SpySecretStore: SecretStore {
    /// One recorded call.
    public enum Call: Sendable, Equatable {
        case load(AccountKey), save(AccountKey), delete(AccountKey), list, lock(AccountKey)
    }

    public let backing: InMemorySecretStore
    private let state = Mutex<(calls: [Call], failures: [String: SecretStoreError])>(([], [:]))
    public let kind: SecretStoreKind

    /// - Parameter kind: the kind to report (e.g. `.plaintext` to test the insecure badge).
    public init(_ initial: [AccountKey: AccountSecrets] = [:], reportingKind kind: SecretStoreKind = .memory) {
        backing = InMemorySecretStore(initial)
        self.kind = kind
    }

    /// Every call so far, in order.
    public var calls: [Call] { state.withLock { $0.calls } }

    /// Makes every later call of `operation` ("load", "save", "delete", "list", "lock") throw `error`
    /// (nil: stop failing).
    public func fail(_ operation: String, with error: SecretStoreError?) {
        state.withLock { $0.failures[operation] = error }
    }

    private func record(_ call: Call, _ operation: String) throws(SecretStoreError) {
        let failure = state.withLock { s -> SecretStoreError? in
            s.calls.append(call)
            return s.failures[operation]
        }
        if let failure { throw failure }
    }

    public func load(_ key: AccountKey) throws(SecretStoreError) -> AccountSecrets {
        try record(.load(key), "load")
        return try backing.load(key)
    }

    public func save(_ secrets: AccountSecrets, for key: AccountKey) throws(SecretStoreError) {
        try record(.save(key), "save")
        try backing.save(secrets, for: key)
    }

    public func delete(_ key: AccountKey) throws(SecretStoreError) {
        try record(.delete(key), "delete")
        try backing.delete(key)
    }

    public func listAccounts() throws(SecretStoreError) -> [AccountKey] {
        try record(.list, "list")
        return try backing.listAccounts()
    }

    public func tryLockAccount(_ key: AccountKey) throws(SecretStoreError) -> (any AccountLockHandle)? {
        try record(.lock(key), "lock")
        return try backing.tryLockAccount(key)
    }
}
