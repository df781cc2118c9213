import CLibSecret
import CredentialStore
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

extension SecretServiceStore {
    /// Runs `body` with a ``Conversation`` on the session bus, on the worker thread of
    /// ``call(_:timeout:using:_:)``. Each method call gets `callTimeout` (or what is left);
    /// with a `promptTimeout`, a prompt may take that long, and the whole conversation that plus
    /// a few calls. Cancelling the calling task ends it at once (``SecretStoreError/cancelled(operation:)``).
    /// `interactive` false (`authdeck check`): no prompt is ever shown, display or not; one the
    /// service returns is dismissed and the call is `locked`.
    /// - Throws: what `body` throws; `unavailable` without a bus; `timeout`; `cancelled`.
    static func converse<T: Sendable>(
        _ operation: String, callTimeout: Duration, promptTimeout: Duration?, interactive: Bool = true,
        _ body: @escaping @Sendable (Conversation) throws(SecretStoreError) -> T
    ) throws(SecretStoreError) -> T {
        // The whole conversation outlasts the prompt by a few calls, so that the prompt's own
        // deadline (a clearer error) comes first.
        let overall = promptTimeout.map { $0 + callTimeout * 4 } ?? callTimeout
        let environment = ProcessInfo.processInfo.environment
        let canPrompt = interactive && (environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil)
        let result: Result<T, SecretStoreError> = try call(operation, timeout: overall, using: GDBus.self) { lib, cancellable, error in
            guard let bus = lib.g_bus_get_sync(G_BUS_TYPE_SESSION, cancellable, error) else {
                return .failure(.unavailable(cause: .init("no session bus")))
            }
            defer { lib.g_object_unref(UnsafeMutableRawPointer(bus)) }
            let conversation = Conversation(lib: lib, bus: bus, cancellable: cancellable, callTimeout: callTimeout,
                                            promptTimeout: promptTimeout ?? .zero, canPrompt: canPrompt, deadline: .now + overall)
            do throws(SecretStoreError) {
                return .success(try body(conversation))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Method calls to the Secret Service (API 0.2) on one bus connection, from one thread.
    struct Conversation {
        static let service = "org.freedesktop.Secret.Service"
        static let collection = "org.freedesktop.Secret.Collection"
        static let item = "org.freedesktop.Secret.Item"
        static let prompt = "org.freedesktop.Secret.Prompt"
        static let properties = "org.freedesktop.DBus.Properties"

        let lib: GDBus
        let bus: OpaquePointer
        let cancellable: OpaquePointer
        let callTimeout: Duration
        let promptTimeout: Duration
        /// Whether a prompt can appear: a display (`DISPLAY`, `WAYLAND_DISPLAY`) is there and the
        /// run is interactive.
        let canPrompt: Bool
        let deadline: ContinuousClock.Instant

        /// One method call; the reply of type `reply`.
        /// - Throws: the mapped GLib error (``mapError(_:_:operation:seconds:)``); `timeout` when
        ///   the conversation's deadline has passed.
        func invoke(_ path: String, _ interface: String, _ method: String, _ parameters: [OpaquePointer?],
                    reply: String) throws(SecretStoreError) -> Variant {
            let operation = "\(interface.split(separator: ".").last ?? "").\(method)"
            let left = min(callTimeout, deadline - .now)
            guard left > .zero else { throw .timeout(operation: "Secret Service \(operation)", seconds: callTimeout.seconds) }
            var error: UnsafeMutablePointer<GError>?
            let arguments = lib.g_variant_new_tuple(parameters, gsize(parameters.count))
            let result = reply.withCString { type in
                lib.g_dbus_connection_call_sync(bus, SecretServiceStore.busName, path, interface, method, arguments, authdeck_variant_type(type),
                                                G_DBUS_CALL_FLAGS_NONE, left.milliseconds, cancellable, &error)
            }
            if let error {
                defer { lib.g_error_free(error) }
                throw SecretServiceStore.mapError(lib, error.pointee, operation: operation, seconds: callTimeout.seconds)
            }
            guard let result else { throw .unavailable(cause: .init("\(operation) returned nothing")) }
            return Variant(lib, result)
        }

        /// `Properties.Get`: the value of a property.
        func property(_ path: String, _ interface: String, _ name: String) throws(SecretStoreError) -> Variant {
            try invoke(path, Self.properties, "Get", [lib.g_variant_new_string(interface), lib.g_variant_new_string(name)], reply: "(v)")[0].unboxed
        }

        /// `Service.OpenSession("plain")`: the session's path (secrets cross the bus as they are;
        /// see ``SecretServiceStore/lookup(_:timeout:)`` for why that is acceptable).
        func openPlainSession() throws(SecretStoreError) -> String {
            let opened = try invoke(SecretServiceStore.servicePath, Self.service, "OpenSession",
                                    [lib.g_variant_new_string("plain"), lib.g_variant_new_variant(lib.g_variant_new_string(""))], reply: "(vo)")
            guard let session = opened[1].string else { throw .unavailable(cause: .init("OpenSession returned no session")) }
            return session
        }

        /// The default collection (`Service.ReadAlias("default")`) and its `Locked` property;
        /// nil when there is none.
        func defaultCollection() throws(SecretStoreError) -> (path: String, locked: Bool)? {
            let alias = try invoke(SecretServiceStore.servicePath, Self.service, "ReadAlias", [lib.g_variant_new_string("default")], reply: "(o)")
            guard let path = alias[0].string, path != "/" else { return nil }
            return (path, try property(path, Self.collection, "Locked").bool)
        }

        /// The default collection, ready for an item: unlocked (`Service.Unlock` and its prompt)
        /// when locked, created (`Service.CreateCollection` with the alias `default`, and its
        /// prompt) when there is none, as libsecret's store does.
        /// - Throws: `locked` when the prompt was dismissed, cannot appear or was not answered in
        ///   time, or the collection stayed locked; what the calls throw.
        func writableCollection() throws(SecretStoreError) -> String {
            guard let found = try defaultCollection() else {
                let properties = Self.dictionary(lib, [("org.freedesktop.Secret.Collection.Label", lib.g_variant_new_string("Default keyring"))])
                let created = try invoke(SecretServiceStore.servicePath, Self.service, "CreateCollection",
                                         [properties, lib.g_variant_new_string("default")], reply: "(oo)")
                var path = created[0].string ?? "/"
                if let prompt = created[1].string, prompt != "/" { path = try self.prompt(prompt, to: "create the default keyring").string ?? "/" }
                guard path != "/" else { throw .unavailable(cause: .init("the Secret Service has no default collection and created none")) }
                return path
            }
            guard found.locked else { return found.path }
            let paths = lib.g_variant_new_array(nil, [lib.g_variant_new_object_path(found.path)], 1)
            let unlocked = try invoke(SecretServiceStore.servicePath, Self.service, "Unlock", [paths], reply: "(aoo)")
            if let prompt = unlocked[1].string, prompt != "/" { _ = try self.prompt(prompt, to: "unlock the keyring") }
            guard try !property(found.path, Self.collection, "Locked").bool else {
                throw .locked(cause: .init("the Secret Service did not unlock the default collection; nothing was stored"))
            }
            return found.path
        }

        /// Secret Service API §Prompts: `Prompt.Prompt`, then waits for its `Completed(dismissed,
        /// result)` signal — up to ``promptTimeout`` (a person), while the call is not cancelled.
        /// A prompt that ends otherwise is dismissed (`Prompt.Dismiss`), so it does not stay on screen.
        /// - Returns: the prompt's result (its type depends on the call that returned the prompt).
        /// - Throws: `locked` (dismissed, no display to show it, not answered in time); the calls' errors.
        func prompt(_ path: String, to purpose: String) throws(SecretStoreError) -> Variant {
            guard canPrompt else {
                dismiss(path)
                throw .locked(cause: .init("the Secret Service needs a prompt to \(purpose), and no prompt can be shown"
                    + " (no display: DISPLAY, WAYLAND_DISPLAY; or an unattended run: AUTHDECK_NONINTERACTIVE); nothing was stored"))
            }
            // The signal is delivered to the thread-default main context of this thread at
            // subscription, which is iterated below (no other thread touches it).
            guard let context = lib.g_main_context_new() else { throw .unavailable(cause: .init("g_main_context_new failed")) }
            lib.g_main_context_push_thread_default(context)
            defer {
                lib.g_main_context_pop_thread_default(context)
                lib.g_main_context_unref(context)
            }
            let completion = PromptCompletion(lib)
            let box = Unmanaged.passRetained(completion)
            let subscription = lib.g_dbus_connection_signal_subscribe(
                bus, nil, Self.prompt, "Completed", path, nil, G_DBUS_SIGNAL_FLAGS_NONE, promptCompleted, box.toOpaque(), nil)
            defer {
                lib.g_dbus_connection_signal_unsubscribe(bus, subscription)
                box.release()
            }
            _ = try invoke(path, Self.prompt, "Prompt", [lib.g_variant_new_string("")], reply: "()")
            let promptDeadline = ContinuousClock.now + promptTimeout
            while !completion.done {
                if lib.g_cancellable_is_cancelled(cancellable) != 0 {
                    dismiss(path)
                    throw .cancelled(operation: "Secret Service prompt to \(purpose)")
                }
                if ContinuousClock.now >= promptDeadline {
                    dismiss(path)
                    throw .locked(cause: .init("the Secret Service's prompt to \(purpose) was not answered"
                        + " within \(Int(promptTimeout.seconds)) s; nothing was stored"))
                }
                if lib.g_main_context_iteration(context, 0) == 0 { usleep(10_000) }
            }
            guard !completion.dismissed, let result = completion.result else {
                throw .locked(cause: .init("the Secret Service's prompt to \(purpose) was dismissed; nothing was stored"))
            }
            return result
        }

        /// `Prompt.Dismiss`, best effort: its own short deadline, not cancellable (the
        /// conversation's cancellable may be cancelled already).
        func dismiss(_ path: String) {
            var error: UnsafeMutablePointer<GError>?
            let result = "()".withCString { type in
                lib.g_dbus_connection_call_sync(bus, SecretServiceStore.busName, path, Self.prompt, "Dismiss", lib.g_variant_new_tuple(nil, 0),
                                                authdeck_variant_type(type), G_DBUS_CALL_FLAGS_NONE, 1000, nil, &error)
            }
            if let error { lib.g_error_free(error) }
            if let result { lib.g_variant_unref(result) }
        }

        // MARK: Values

        /// `a{sv}` of `entries` (values are wrapped in variants).
        static func dictionary(_ lib: GDBus, _ entries: [(String, OpaquePointer?)]) -> OpaquePointer? {
            let children = entries.map { name, value in
                lib.g_variant_new_dict_entry(lib.g_variant_new_string(name), lib.g_variant_new_variant(value))
            }
            return lib.g_variant_new_array(nil, children, gsize(children.count))
        }

        /// `a{ss}` of `entries` (non-empty).
        static func stringDictionary(_ lib: GDBus, _ entries: [(String, String)]) -> OpaquePointer? {
            let children = entries.map { name, value in
                lib.g_variant_new_dict_entry(lib.g_variant_new_string(name), lib.g_variant_new_string(value))
            }
            return lib.g_variant_new_array(nil, children, gsize(children.count))
        }

        /// A Secret (`(oayays)`) of a "plain" session: no parameters, the value as it is, `text/plain`.
        static func secretStruct(_ lib: GDBus, session: String, value: [UInt8]) -> OpaquePointer? {
            let none: [UInt8] = [0]
            let (parameters, bytes) = "y".withCString { type in
                (none.withUnsafeBytes { lib.g_variant_new_fixed_array(authdeck_variant_type(type), $0.baseAddress, 0, 1) },
                 value.withUnsafeBytes { lib.g_variant_new_fixed_array(authdeck_variant_type(type), $0.baseAddress, gsize(value.count), 1) })
            }
            return lib.g_variant_new_tuple([lib.g_variant_new_object_path(session), parameters, bytes, lib.g_variant_new_string("text/plain")], 4)
        }
    }

    /// What a prompt's `Completed` signal said; written by ``promptCompleted`` on the thread
    /// that iterates the main context, read there too.
    final class PromptCompletion {
        let lib: GDBus
        var done = false
        var dismissed = false
        var result: Variant?

        init(_ lib: GDBus) { self.lib = lib }

        /// `(bv)`: dismissed, result.
        func complete(_ parameters: OpaquePointer) {
            // The signal's parameters are borrowed: a reference of our own for the Variant.
            guard let reference = lib.g_variant_ref(parameters) else { return }
            let signal = Variant(lib, reference)
            dismissed = signal[0].bool
            result = signal[1].unboxed
            done = true
        }
    }
}

/// The `Completed` signal's callback (GDBusSignalCallback); `userData` is the ``SecretServiceStore/PromptCompletion``.
private let promptCompleted: GDBusSignalCallback = { _, _, _, _, _, parameters, userData in
    guard let parameters, let userData else { return }
    Unmanaged<SecretServiceStore.PromptCompletion>.fromOpaque(userData).takeUnretainedValue().complete(parameters)
}

extension SecretServiceStore.Variant {
    /// A `b`.
    var bool: Bool { lib.g_variant_get_boolean(pointer) != 0 }
    /// The value inside a `v`.
    var unboxed: SecretServiceStore.Variant { SecretServiceStore.Variant(lib, lib.g_variant_get_variant(pointer)!) }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }

    /// Whole milliseconds, at least 1, for a GDBus timeout.
    var milliseconds: Int32 {
        max(1, Int32(clamping: components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000))
    }
}
