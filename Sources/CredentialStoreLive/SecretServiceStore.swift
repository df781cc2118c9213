import CLibSecret
import CredentialStore
import Dispatch
import FoundationEssentials
import QuickToken
import Synchronization

/// The freedesktop Secret Service (gnome-keyring, KWallet) on the session bus.
///
/// One item per account secret set: the item's secret is the serialized ``AccountSecrets``
/// (``AccountSecretsEncoding``), its attributes are `application=authdeck`, `provider`, `account`
/// and `xdg:schema` = ``schemaName`` (as libsecret writes them), its label
/// `authdeck: <provider>/<account>`.
///
/// `load`, `save`, ``prepareForWrite()`` and the default collection's state talk to the service
/// on D-Bus directly, with GDBus and a "plain" session (``Conversation``); `delete` and
/// `listAccounts` go through libsecret. Every method call has a deadline (``timeout``, 3 s by
/// default as gh does); at the deadline it is cancelled and
/// ``SecretStoreError/timeout(operation:seconds:)`` is thrown. A prompt (Secret Service API
/// §Prompts: unlocking the default collection, or a service that asks before it creates an item)
/// waits for a person instead, up to ``promptTimeout`` (5 minutes), and ends at once when the
/// calling task is cancelled (Ctrl-C): ``SecretStoreError/cancelled(operation:)``, the prompt
/// dismissed. A dismissed prompt, or one that cannot appear (no display), is
/// ``SecretStoreError/locked(cause:)``, and nothing is stored. A save is confirmed by reading
/// the item back.
///
/// "No Secret Service on the bus" (or no bus) is ``SecretStoreError/unavailable(cause:)``; a
/// locked collection is ``SecretStoreError/locked(cause:)`` — also on load: an item found only in
/// locked collections, or a miss while the default collection is locked (which may hide the
/// item, docs/PLATFORM.md).
///
/// Per-account locks are flock files in `lockDirectory`.
public final class SecretServiceStore: SecretStore {
    public static let schemaName = SecretServiceItem.schemaName
    public static let applicationAttribute = SecretServiceItem.applicationAttribute

    /// The deadline of one D-Bus method call.
    public let timeout: Duration
    /// How long a prompt is waited for: someone reading it and typing a password.
    public let promptTimeout: Duration
    public let locks: AccountLockDirectory
    /// Whether a prompt may be shown; false for unattended runs (`authdeck check`,
    /// `AUTHDECK_NONINTERACTIVE=1`): a locked collection is then ``SecretStoreError/locked(cause:)``
    /// at once, with no prompt on anyone's screen.
    public let interactive: Bool

    public var kind: SecretStoreKind { .secretService }

    public init(lockDirectory: String, timeout: Duration = .seconds(3), promptTimeout: Duration = .seconds(300), interactive: Bool = true) {
        self.timeout = timeout
        self.promptTimeout = promptTimeout
        self.interactive = interactive
        locks = AccountLockDirectory(directory: lockDirectory)
    }

    // MARK: SecretStore

    public func load(_ key: AccountKey) throws(SecretStoreError) -> AccountSecrets {
        switch try Self.lookup(key, timeout: timeout) {
        case .found(let secret):
            return try AccountSecretsEncoding.decode(Data(secret.utf8), file: "Secret Service item \(key)")
        case .onlyLocked:
            throw .locked(cause: .init("the item is in a locked collection"))
        case .none:
            // A miss: say "locked" when the default collection is (a locked collection may hide it).
            if try Self.defaultCollectionState(timeout: timeout) == .locked {
                throw .locked(cause: .init("the default collection is locked (it may hide the item)"))
            }
            throw .notFound(key)
        }
    }

    /// The default collection made writable now: unlocked (its prompt answered, up to
    /// ``promptTimeout``), or created when there is none. Called before a sign-in opens a browser.
    /// - Throws: `locked` (a dismissed prompt, none possible without a display, not answered in
    ///   time), `cancelled`, `timeout` of a call, `unavailable`.
    public func prepareForWrite() throws(SecretStoreError) {
        try Self.converse("unlock", callTimeout: timeout, promptTimeout: promptTimeout,
                          interactive: interactive) { conversation throws(SecretStoreError) in
            _ = try conversation.writableCollection()
        }
    }

    /// `Collection.CreateItem` (replacing the item with the same attributes) in the default
    /// collection, unlocked first if it is locked; a prompt the service returns is answered (or
    /// the save fails); the item is read back (`Item.GetSecret`) before the save counts.
    /// - Throws: as ``prepareForWrite()``; `unavailable` when the service did not create the item
    ///   or it does not hold what was sent.
    public func save(_ secrets: AccountSecrets, for key: AccountKey) throws(SecretStoreError) {
        let secret = Array(AccountSecretsEncoding.encode(secrets))
        let label = "authdeck: \(key)"
        let attributes = Self.attributes(key)
        try Self.converse("store", callTimeout: timeout, promptTimeout: promptTimeout,
                          interactive: interactive) { conversation throws(SecretStoreError) in
            let lib = conversation.lib
            let session = try conversation.openPlainSession()
            let collection = try conversation.writableCollection()
            let properties = Conversation.dictionary(lib, [
                ("org.freedesktop.Secret.Item.Label", lib.g_variant_new_string(label)),
                ("org.freedesktop.Secret.Item.Attributes", Conversation.stringDictionary(lib, attributes)),
            ])
            // (oayays): (session, parameters, value, content type); "plain": the value as it is.
            let value = Conversation.secretStruct(lib, session: session, value: secret)
            let created = try conversation.invoke(collection, Conversation.collection, "CreateItem",
                                                  [properties, value, lib.g_variant_new_boolean(1)], reply: "(oo)")
            var item = created[0].string ?? "/"
            if let prompt = created[1].string, prompt != "/" {
                item = try conversation.prompt(prompt, to: "store the item").string ?? "/"
            }
            guard item != "/" else { throw .unavailable(cause: .init("the Secret Service did not create the item; nothing was stored")) }
            let stored = try conversation.invoke(item, Conversation.item, "GetSecret", [lib.g_variant_new_object_path(session)], reply: "((oayays))")
            guard stored[0][2].bytes.utf8.elementsEqual(secret) else {
                throw .unavailable(cause: .init("the Secret Service's item does not hold what was stored"))
            }
        }
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

    /// The store selection's probe: whether a Secret Service answers on the session bus with a
    /// default collection (answered), does not exist there (absent), or did not answer in time.
    public static func probe(timeout: Duration = .seconds(3)) -> SecretServiceProbe {
        do {
            return try defaultCollectionState(timeout: timeout) == .missing ? .absent : .answered
        } catch .timeout(_, let seconds) {
            return .timedOut(seconds: seconds)
        } catch {
            return .absent
        }
    }

    /// The state of the default collection (alias `default`): `Service.ReadAlias`, then its
    /// `Locked` property. Never prompts.
    /// - Throws: ``SecretStoreError/unavailable(cause:)`` without a bus or service; `timeout`.
    public static func defaultCollectionState(timeout: Duration) throws(SecretStoreError) -> CollectionState {
        try converse("open default collection", callTimeout: timeout, promptTimeout: nil) { conversation throws(SecretStoreError) in
            guard let found = try conversation.defaultCollection() else { return .missing }
            return found.locked ? .locked : .unlocked
        }
    }

    /// The attributes of `key`'s item as `secret_password_storev_sync` wrote them (ours and `xdg:schema`).
    static func attributes(_ key: AccountKey) -> [(String, String)] {
        SecretServiceItem.attributes(provider: key.provider, account: key.account)
    }

    // MARK: The lookup, on D-Bus

    /// What ``lookup(_:timeout:)`` found.
    enum Lookup: Sendable, Equatable {
        /// The secret of the first unlocked item with the account's attributes.
        case found(String)
        /// Items with the attributes, all in locked collections.
        case onlyLocked
        case none
    }

    static let busName = SecretServiceItem.busName
    static let servicePath = SecretServiceItem.servicePath

    /// The account's secret, asked of the Secret Service on the session bus directly (Secret
    /// Service API 0.2): `Service.OpenSession("plain")`, `Service.SearchItems` with the attributes
    /// `secret_password_storev_sync` stored (ours and `xdg:schema`), `Item.GetSecret` of the first
    /// unlocked item: four method calls with the bus's Hello. libsecret's
    /// `secret_password_lookupv_sync` made eleven (AddMatch ×3, GetNameOwner ×2,
    /// StartServiceByName, Properties.GetAll, …) and opened a
    /// `dh-ietf1024-sha256-aes128-cbc-pkcs7` session: two 1024-bit modular exponentiations in this
    /// process and two in the daemon, half the CPU time of `authdeck token` (PERFORMANCE.md). With
    /// "plain" the secret crosses the session bus's socket unencrypted, as with gh and other
    /// go-keyring clients: only processes of this user can connect to that socket, and each of
    /// them may ask the Secret Service for the same item anyway.
    ///
    /// Runs on one worker thread (``call(_:timeout:_:)``); each method call is also given what
    /// is left of `timeout`, so it ends by itself at the deadline.
    /// - Throws: as ``call(_:timeout:_:)``: `unavailable` (no bus, no service), `timeout`.
    static func lookup(_ key: AccountKey, timeout: Duration) throws(SecretStoreError) -> Lookup {
        let deadline = ContinuousClock.now + timeout
        let attributes = attributes(key)
        return try call("lookup", timeout: timeout, using: GDBus.self) { lib, cancellable, error in
            guard let bus = lib.g_bus_get_sync(G_BUS_TYPE_SESSION, cancellable, error) else { return .none }
            defer { lib.g_object_unref(UnsafeMutableRawPointer(bus)) }
            /// One method call of the Secret Service; nil with `error` set when it failed.
            func invoke(_ path: String, _ interface: String, _ method: String, _ parameters: [OpaquePointer?], reply: String) -> Variant? {
                let left = deadline - ContinuousClock.now
                let milliseconds = max(1, Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
                let arguments = lib.g_variant_new_tuple(parameters, gsize(parameters.count))
                return reply.withCString { type in
                    lib.g_dbus_connection_call_sync(
                        bus, busName, path, "org.freedesktop.Secret.\(interface)", method, arguments,
                        authdeck_variant_type(type), G_DBUS_CALL_FLAGS_NONE, milliseconds, cancellable, error)
                }.map { Variant(lib, $0) }
            }
            guard let opened = invoke(servicePath, "Service", "OpenSession", [
                lib.g_variant_new_string("plain"), lib.g_variant_new_variant(lib.g_variant_new_string("")),
            ], reply: "(vo)"), let session = opened[1].string else { return .none }
            let entries = attributes.map { name, value in
                lib.g_variant_new_dict_entry(lib.g_variant_new_string(name), lib.g_variant_new_string(value))
            }
            guard let found = invoke(servicePath, "Service", "SearchItems", [
                lib.g_variant_new_array(nil, entries, gsize(entries.count)),
            ], reply: "(aoao)") else { return .none }
            let unlocked = found[0], locked = found[1]
            guard unlocked.count > 0, let item = unlocked[0].string else { return locked.count > 0 ? .onlyLocked : .none }
            // ((oayays)): (session, parameters, value, content type); "plain": the value as stored.
            guard let reply = invoke(item, "Item", "GetSecret", [lib.g_variant_new_object_path(session)], reply: "((oayays))") else {
                return .none
            }
            return .found(reply[0][2].bytes)
        }
    }

    /// A `GVariant` reference, released with the value (children are references of their own).
    final class Variant {
        let lib: GDBus
        let pointer: OpaquePointer

        init(_ lib: GDBus, _ pointer: OpaquePointer) {
            self.lib = lib
            self.pointer = pointer
        }

        deinit { lib.g_variant_unref(pointer) }

        var count: Int { Int(lib.g_variant_n_children(pointer)) }
        subscript(index: Int) -> Variant { Variant(lib, lib.g_variant_get_child_value(pointer, gsize(index))!) }
        /// A string or object path.
        var string: String? { lib.g_variant_get_string(pointer, nil).map { String(cString: $0) } }
        /// An `ay` as UTF-8 text.
        var bytes: String {
            var length: gsize = 0
            guard let base = lib.g_variant_get_fixed_array(pointer, &length, 1) else { return "" }
            return String(decoding: UnsafeRawBufferPointer(start: base, count: Int(length)), as: UTF8.self)
        }
    }

    // MARK: Calls with a deadline

    /// A GLib pointer handed to the worker thread (GObject reference counting is thread-safe).
    private struct Cancellable: @unchecked Sendable { let pointer: OpaquePointer }

    private final class Outcome<T: Sendable>: Sendable {
        let value = Mutex<Result<T, SecretStoreError>?>(nil)
        let done = DispatchSemaphore(value: 0)
    }

    /// Runs `body` (one libsecret call) on a worker thread; waits up to `timeout`, then cancels it.
    static func call<T: Sendable>(
        _ operation: String, timeout: Duration,
        _ body: @escaping @Sendable (LibSecret, OpaquePointer, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> T
    ) throws(SecretStoreError) -> T {
        try call(operation, timeout: timeout, using: LibSecret.self, body)
    }

    /// ``call(_:timeout:_:)`` with the function table `Lib` (libsecret's, or gio's alone).
    static func call<T: Sendable, Lib: GLibCore>(
        _ operation: String, timeout: Duration, using _: Lib.Type,
        _ body: @escaping @Sendable (Lib, OpaquePointer, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> T
    ) throws(SecretStoreError) -> T {
        let lib = try Lib.loaded()
        guard let raw = lib.g_cancellable_new() else { throw .unavailable(cause: .init("g_cancellable_new failed")) }
        let cancellable = Cancellable(pointer: raw)
        _ = lib.g_object_ref(UnsafeMutableRawPointer(raw))  // one reference for the worker, one for us
        let outcome = Outcome<T>()
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        // A Dispatch worker: the call may block for as long as the bus does; the caller waits at
        // most `timeout` and then cancels it.
        DispatchQueue.global(qos: .userInitiated).async {
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
        defer { lib.g_object_unref(UnsafeMutableRawPointer(raw)) }
        // Waits in slices, so that a cancelled task (Ctrl-C at a prompt) ends the wait at once.
        let deadline = DispatchTime.now() + .nanoseconds(Int(seconds * 1e9))
        while outcome.done.wait(timeout: min(deadline, .now() + .milliseconds(50))) == .timedOut {
            // After cancelling, the worker is given a moment to end its call (a cancelled GDBus
            // call returns at once) and to dismiss a prompt, so that none stays on screen.
            if Task.isCancelled {
                lib.g_cancellable_cancel(raw)
                _ = outcome.done.wait(timeout: .now() + .seconds(1))
                throw .cancelled(operation: "Secret Service \(operation)")
            }
            if DispatchTime.now() >= deadline {
                lib.g_cancellable_cancel(raw)
                _ = outcome.done.wait(timeout: .now() + .seconds(1))
                throw .timeout(operation: "Secret Service \(operation)", seconds: seconds)
            }
        }
        switch outcome.value.withLock({ $0 }) {
        case .success(let value)?: return value
        case .failure(let error)?: throw error
        case nil: throw .unavailable(cause: .init("no result"))
        }
    }

    /// GLib error → typed error. Domains and codes: `secret-error` 2 = SECRET_ERROR_IS_LOCKED,
    /// or on GDBus the remote error `org.freedesktop.Secret.Error.IsLocked` (`g-io-error-quark`
    /// 36 = G_IO_ERROR_DBUS_ERROR, the name in the message);
    /// `g-io-error-quark` 19 = G_IO_ERROR_CANCELLED (our deadline), 24 = G_IO_ERROR_TIMED_OUT;
    /// `g-dbus-error-quark` 4 = NO_REPLY, 12 = TIMEOUT, 9 = ACCESS_DENIED. Anything else means
    /// no usable Secret Service.
    static func mapError(_ lib: some GLibCore, _ error: GError, operation: String, seconds: Double) -> SecretStoreError {
        let domain = lib.g_quark_to_string(error.domain).map { String(cString: $0) } ?? "unknown"
        let code = Int(error.code)
        let cause = SecretStoreError.Cause(
            error.message.map { String(cString: $0) } ?? "libsecret error", domain: domain, code: code)
        switch (domain, code) {
        case ("secret-error", 2): return .locked(cause: cause)
        case ("g-io-error-quark", 36) where cause.message.contains("org.freedesktop.Secret.Error.IsLocked"): return .locked(cause: cause)
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
