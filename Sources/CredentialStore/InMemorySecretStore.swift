import FoundationEssentials

import Synchronization

/// A ``SecretStore`` in process memory, for tests and previews. Locks are per process.
public final class InMemorySecretStore: SecretStore {
    private let state: Mutex<[AccountKey: Data]>
    private let held = Mutex<Set<AccountKey>>([])

    public var kind: SecretStoreKind { .memory }

    /// A store holding `initial`. Values are kept serialized, so a round trip exercises the
    /// same encoding as the file backends.
    public init(_ initial: [AccountKey: AccountSecrets] = [:]) {
        state = Mutex(initial.mapValues { AccountSecretsEncoding.encode($0) })
    }

    public func load(_ key: AccountKey) throws(SecretStoreError) -> AccountSecrets {
        guard let data = state.withLock({ $0[key] }) else { throw .notFound(key) }
        return try AccountSecretsEncoding.decode(data, file: nil)
    }

    public func save(_ secrets: AccountSecrets, for key: AccountKey) throws(SecretStoreError) {
        let data = AccountSecretsEncoding.encode(secrets)
        state.withLock { $0[key] = data }
    }

    public func delete(_ key: AccountKey) throws(SecretStoreError) {
        _ = state.withLock { $0.removeValue(forKey: key) }
    }

    public func listAccounts() throws(SecretStoreError) -> [AccountKey] {
        state.withLock { $0.keys.sorted() }
    }

    public func tryLockAccount(_ key: AccountKey) throws(SecretStoreError) -> (any AccountLockHandle)? {
        let taken = held.withLock { $0.insert(key).inserted }
        guard taken else { return nil }
        return Handle { [self] in _ = self.held.withLock { $0.remove(key) } }
    }

    private final class Handle: AccountLockHandle {
        private let onRelease: Mutex<(@Sendable () -> Void)?>
        init(_ onRelease: @escaping @Sendable () -> Void) { self.onRelease = Mutex(onRelease) }
        func release() {
            let action = onRelease.withLock { value -> (@Sendable () -> Void)? in
                defer { value = nil }
                return value
            }
            action?()
        }
        deinit { release() }
    }
}
