import CLibSecret
import CredentialStore
import Foundation
import Synchronization

/// The freedesktop Secret Service (gnome-keyring, KWallet) through libsecret.
///
/// One item per account secret set: the item's secret is the serialized ``AccountSecrets``
/// (``AccountSecretsEncoding``), its attributes are `application=authdeck`, `provider`, `account`
/// (schema ``schemaName``), its label `authdeck: <provider>/<account>`.
///
/// Every call runs the synchronous libsecret function on its own thread with a deadline
/// (``timeout``, 3 s by default as gh does); at the deadline the call's `GCancellable` is cancelled
/// and ``SecretStoreError/timeout(operation:seconds:)`` is thrown. "No Secret Service on the bus"
/// (or no bus) is ``SecretStoreError/unavailable(cause:)``; a locked collection is
/// ``SecretStoreError/locked(cause:)`` — also on lookup, where libsecret itself returns "nothing"
/// for a locked item (docs/PLATFORM.md, "libsecret"), so a miss checks whether the default collection is locked.
///
/// Per-account locks are flock files in `lockDirectory`.
public final class SecretServiceStore: SecretStore {
    public static let schemaName = "dev.authdeck.AccountSecrets"
    public static let applicationAttribute = "authdeck"

    public let timeout: Duration
    public let locks: AccountLockDirectory

    public var kind: SecretStoreKind { .secretService }

    public init(lockDirectory: String, timeout: Duration = .seconds(3)) {
        self.timeout = timeout
        locks = AccountLockDirectory(directory: lockDirectory)
    }

    // MARK: SecretStore

    public func load(_ key: AccountKey) throws(SecretStoreError) -> AccountSecrets {
        let found: String? = try Self.call("lookup", timeout: timeout) { lib, cancellable, error in
            Self.withSchemaAndAttributes(lib, key) { schema, attributes in
                guard let password = lib.secret_password_lookupv_sync(schema, attributes, cancellable, error) else {
                    return nil
                }
                defer { lib.secret_password_free(password) }
                return String(cString: password)
            }
        }
        guard let found else {
            if try Self.defaultCollectionState(timeout: timeout) == .locked {
                throw .locked(cause: .init("the default collection is locked; unlock the keyring"))
            }
            throw .notFound(key)
        }
        return try AccountSecretsEncoding.decode(Data(found.utf8), file: "Secret Service item \(key)")
    }

    public func save(_ secrets: AccountSecrets, for key: AccountKey) throws(SecretStoreError) {
        let secret = String(decoding: AccountSecretsEncoding.encode(secrets), as: UTF8.self)
        let label = "authdeck: \(key)"
        // Storing into a locked collection makes the daemon ask a prompter to unlock it. Without a
        // display no prompt can appear, so say "locked" at once instead of waiting for the deadline.
        let environment = ProcessInfo.processInfo.environment
        if environment["DISPLAY"] == nil, environment["WAYLAND_DISPLAY"] == nil,
            (try? Self.defaultCollectionState(timeout: timeout)) == .locked
        {
            throw .locked(cause: .init("the default collection is locked and no display is available to unlock it"))
        }
        let stored: Bool
        do {
            stored = try Self.call("store", timeout: timeout) { lib, cancellable, error in
                Self.withSchemaAndAttributes(lib, key) { schema, attributes in
                    lib.secret_password_storev_sync(schema, attributes, nil, label, secret, cancellable, error) != 0
                }
            }
        } catch .timeout(let operation, let seconds) {
            // The unlock prompt did not complete in time: say "locked" when that is why.
            if (try? Self.defaultCollectionState(timeout: timeout)) == .locked {
                throw .locked(cause: .init("the default collection is locked and was not unlocked within \(seconds) s"))
            }
            throw .timeout(operation: operation, seconds: seconds)
        }
        guard stored else { throw .unavailable(cause: .init("the Secret Service did not store the item")) }
    }

    public func delete(_ key: AccountKey) throws(SecretStoreError) {
        let _: Bool = try Self.call("clear", timeout: timeout) { lib, cancellable, error in
            Self.withSchemaAndAttributes(lib, key) { schema, attributes in
                lib.secret_password_clearv_sync(schema, attributes, cancellable, error) != 0
            }
        }
    }

    public func listAccounts() throws(SecretStoreError) -> [AccountKey] {
        let keys: [AccountKey] = try Self.call("search", timeout: timeout) { lib, cancellable, error in
            Self.withSchemaAndAttributes(lib, nil) { schema, attributes in
                let flags = SecretSearchFlags(rawValue: SECRET_SEARCH_ALL.rawValue)
                guard let list = lib.secret_password_searchv_sync(schema, attributes, flags, cancellable, error) else {
                    return []
                }
                defer { lib.g_list_free_full(list, lib.g_object_unref) }
                var keys: [AccountKey] = []
                var node: UnsafeMutablePointer<GList>? = list
                while let current = node {
                    if let item = current.pointee.data, let table = lib.secret_retrievable_get_attributes(OpaquePointer(item)) {
                        let provider = lib.g_hash_table_lookup(table, "provider").map { String(cString: $0.assumingMemoryBound(to: CChar.self)) }
                        let account = lib.g_hash_table_lookup(table, "account").map { String(cString: $0.assumingMemoryBound(to: CChar.self)) }
                        if let provider, let account { keys.append(AccountKey(provider: provider, account: account)) }
                        lib.g_hash_table_unref(table)
                    }
                    node = current.pointee.next
                }
                return keys
            }
        }
        return keys.sorted()
    }

    public func tryLockAccount(_ key: AccountKey) throws(SecretStoreError) -> (any AccountLockHandle)? {
        try locks.tryLock(key)
    }

    // MARK: Reachability

    public enum CollectionState: Sendable, Equatable {
        case unlocked, locked, missing
    }

    /// True when a Secret Service answers on the session bus and has a default collection
    /// (the store's selection probe). Never throws; a timeout counts as unreachable.
    public static func isReachable(timeout: Duration = .seconds(3)) -> Bool {
        (try? defaultCollectionState(timeout: timeout)).map { $0 != .missing } ?? false
    }

    /// The state of the default collection (alias `default`).
    /// - Throws: ``SecretStoreError/unavailable(cause:)`` without a bus or service; `timeout`.
    public static func defaultCollectionState(timeout: Duration) throws(SecretStoreError) -> CollectionState {
        try call("open default collection", timeout: timeout) { lib, cancellable, error in
            guard let service = lib.secret_service_get_sync(SecretServiceFlags(rawValue: 0), cancellable, error) else {
                return .missing
            }
            defer { lib.g_object_unref(UnsafeMutableRawPointer(service)) }
            guard let collection = lib.secret_collection_for_alias_sync(service, "default", SecretCollectionFlags(rawValue: 0), cancellable, error) else {
                return .missing
            }
            defer { lib.g_object_unref(UnsafeMutableRawPointer(collection)) }
            return lib.secret_collection_get_locked(collection) != 0 ? .locked : .unlocked
        }
    }

    // MARK: Calls with a deadline

    /// A GLib pointer handed to the worker thread (GObject reference counting is thread-safe).
    private struct Cancellable: @unchecked Sendable { let pointer: OpaquePointer }

    private final class Outcome<T: Sendable>: Sendable {
        let value = Mutex<Result<T, SecretStoreError>?>(nil)
        let done = DispatchSemaphore(value: 0)
    }

    /// Runs `body` (one libsecret call) on a new thread; waits up to `timeout`, then cancels it.
    static func call<T: Sendable>(
        _ operation: String, timeout: Duration,
        _ body: @escaping @Sendable (LibSecret, OpaquePointer, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> T
    ) throws(SecretStoreError) -> T {
        let lib = try LibSecret.loaded()
        guard let raw = lib.g_cancellable_new() else { throw .unavailable(cause: .init("g_cancellable_new failed")) }
        let cancellable = Cancellable(pointer: raw)
        _ = lib.g_object_ref(UnsafeMutableRawPointer(raw))  // one reference for the worker, one for us
        let outcome = Outcome<T>()
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let thread = Thread {
            var error: UnsafeMutablePointer<GError>?
            let value = body(lib, cancellable.pointer, &error)
            let result: Result<T, SecretStoreError>
            if let error {
                result = .failure(mapError(lib, error.pointee, operation: operation, seconds: seconds))
                lib.g_error_free(error)
            } else {
                result = .success(value)
            }
            outcome.value.withLock { $0 = result }
            outcome.done.signal()
            lib.g_object_unref(UnsafeMutableRawPointer(cancellable.pointer))
        }
        thread.name = "authdeck-secret-service"
        thread.start()
        defer { lib.g_object_unref(UnsafeMutableRawPointer(raw)) }
        if outcome.done.wait(timeout: .now() + .nanoseconds(Int(seconds * 1e9))) == .timedOut {
            lib.g_cancellable_cancel(raw)
            throw .timeout(operation: "Secret Service \(operation)", seconds: seconds)
        }
        switch outcome.value.withLock({ $0 }) {
        case .success(let value)?: return value
        case .failure(let error)?: throw error
        case nil: throw .unavailable(cause: .init("no result"))
        }
    }

    /// GLib error → typed error. Domains and codes: `secret-error` 2 = SECRET_ERROR_IS_LOCKED;
    /// `g-io-error-quark` 19 = G_IO_ERROR_CANCELLED (our deadline), 24 = G_IO_ERROR_TIMED_OUT;
    /// `g-dbus-error-quark` 4 = NO_REPLY, 12 = TIMEOUT, 9 = ACCESS_DENIED. Anything else means
    /// no usable Secret Service.
    static func mapError(_ lib: LibSecret, _ error: GError, operation: String, seconds: Double) -> SecretStoreError {
        let domain = lib.g_quark_to_string(error.domain).map { String(cString: $0) } ?? "unknown"
        let code = Int(error.code)
        let cause = SecretStoreError.Cause(
            error.message.map { String(cString: $0) } ?? "libsecret error", domain: domain, code: code)
        switch (domain, code) {
        case ("secret-error", 2): return .locked(cause: cause)
        case ("g-io-error-quark", 19), ("g-io-error-quark", 24), ("g-dbus-error-quark", 4), ("g-dbus-error-quark", 12):
            return .timeout(operation: "Secret Service \(operation)", seconds: seconds)
        case ("g-dbus-error-quark", 9): return .permissionDenied(file: "Secret Service", cause: cause)
        default: return .unavailable(cause: cause)
        }
    }

    /// Builds the schema and the attribute table for `key` (nil: only `application`), runs `body`, frees both.
    static func withSchemaAndAttributes<T>(_ lib: LibSecret, _ key: AccountKey?, _ body: (OpaquePointer, OpaquePointer) -> T) -> T {
        let types = lib.g_hash_table_new_full(lib.g_str_hash, lib.g_str_equal, lib.g_free, nil)!
        for name in ["application", "provider", "account"] {
            _ = lib.g_hash_table_insert(types, lib.g_strdup(name), authdeck_int_to_pointer(gint(SECRET_SCHEMA_ATTRIBUTE_STRING.rawValue)))
        }
        let schema = lib.secret_schema_newv(schemaName, SecretSchemaFlags(rawValue: 0), types)!
        lib.g_hash_table_unref(types)
        defer { lib.secret_schema_unref(schema) }
        let attributes = lib.g_hash_table_new_full(lib.g_str_hash, lib.g_str_equal, lib.g_free, lib.g_free)!
        defer { lib.g_hash_table_unref(attributes) }
        _ = lib.g_hash_table_insert(attributes, lib.g_strdup("application"), lib.g_strdup(applicationAttribute))
        if let key {
            _ = lib.g_hash_table_insert(attributes, lib.g_strdup("provider"), lib.g_strdup(key.provider))
            _ = lib.g_hash_table_insert(attributes, lib.g_strdup("account"), lib.g_strdup(key.account))
        }
        return body(schema, attributes)
    }
}
