import CLibSecret
import CredentialStore
import LibraryLoader

/// The libsecret (and GLib) functions the Secret Service store calls, resolved with `dlopen` /
/// `dlsym` the first time the store is used. The vault and plaintext stores never load
/// libsecret, gio, gobject or glib (about 2 ms of start-up, PERFORMANCE.md). Field names are the
/// C names, so a call reads `lib.secret_password_searchv_sync(…)`.
struct LibSecret: GLibCore, @unchecked Sendable {
    let g_hash_table_new_full: authdeck_g_hash_table_new_full_fn
    let g_hash_table_insert: authdeck_g_hash_table_insert_fn
    let g_hash_table_lookup: authdeck_g_hash_table_lookup_fn
    let g_hash_table_unref: authdeck_g_hash_table_unref_fn
    let g_str_hash: authdeck_g_str_hash_fn
    let g_str_equal: authdeck_g_str_equal_fn
    let g_strdup: authdeck_g_strdup_fn
    let g_free: authdeck_g_free_fn
    let g_error_free: authdeck_g_error_free_fn
    let g_quark_to_string: authdeck_g_quark_to_string_fn
    let g_quark_from_string: authdeck_g_quark_from_string_fn
    let g_list_free_full: authdeck_g_list_free_full_fn
    let g_object_unref: authdeck_g_object_unref_fn
    let g_object_ref: authdeck_g_object_ref_fn
    let g_cancellable_new: authdeck_g_cancellable_new_fn
    let g_cancellable_cancel: authdeck_g_cancellable_cancel_fn
    let secret_schema_newv: authdeck_secret_schema_newv_fn
    let secret_schema_unref: authdeck_secret_schema_unref_fn
    let secret_password_clearv_sync: authdeck_secret_password_clearv_sync_fn
    let secret_password_searchv_sync: authdeck_secret_password_searchv_sync_fn
    let secret_retrievable_get_attributes: authdeck_secret_retrievable_get_attributes_fn

    /// Opens `spec` (its dependencies gio, gobject and glib come with it) and resolves every function.
    static func load(_ spec: LibrarySpec = .secret) throws(LibraryLoadError) -> LibSecret {
        let library = try DynamicLibrary.open(spec)
        GLibMessages.toStandardError(library)
        return LibSecret(
            g_hash_table_new_full: try library.function("g_hash_table_new_full"),
            g_hash_table_insert: try library.function("g_hash_table_insert"),
            g_hash_table_lookup: try library.function("g_hash_table_lookup"),
            g_hash_table_unref: try library.function("g_hash_table_unref"),
            g_str_hash: try library.function("g_str_hash"),
            g_str_equal: try library.function("g_str_equal"),
            g_strdup: try library.function("g_strdup"),
            g_free: try library.function("g_free"),
            g_error_free: try library.function("g_error_free"),
            g_quark_to_string: try library.function("g_quark_to_string"),
            g_quark_from_string: try library.function("g_quark_from_string"),
            g_list_free_full: try library.function("g_list_free_full"),
            g_object_unref: try library.function("g_object_unref"),
            g_object_ref: try library.function("g_object_ref"),
            g_cancellable_new: try library.function("g_cancellable_new"),
            g_cancellable_cancel: try library.function("g_cancellable_cancel"),
            secret_schema_newv: try library.function("secret_schema_newv"),
            secret_schema_unref: try library.function("secret_schema_unref"),
            secret_password_clearv_sync: try library.function("secret_password_clearv_sync"),
            secret_password_searchv_sync: try library.function("secret_password_searchv_sync"),
            secret_retrievable_get_attributes: try library.function("secret_retrievable_get_attributes"))
    }

    /// The process's libsecret, loaded once.
    static let shared = Result { () throws(LibraryLoadError) -> LibSecret in try load() }

    /// ``shared``, or ``SecretStoreError/unavailable(cause:)`` naming the library and its Debian package.
    static func loaded() throws(SecretStoreError) -> LibSecret {
        switch shared {
        case .success(let lib): return lib
        case .failure(let error): throw .unavailable(cause: .init(error.description))
        }
    }
}

/// GLib's log messages, which its default writer puts on stdout below warnings (`g_debug` and
/// `g_info`, shown when `G_MESSAGES_DEBUG` is set): stdout is the token's (`authdeck token`, the
/// credential helpers), so every message goes to stderr. GLib 2.68 and later; without the
/// function (an older GLib) nothing changes.
enum GLibMessages {
    static func toStandardError(_ library: DynamicLibrary) {
        let useStandardError = try? library.function("g_log_writer_default_set_use_stderr", as: authdeck_g_log_writer_default_set_use_stderr_fn.self)
        useStandardError?(1)
    }
}

/// The GLib functions ``SecretServiceStore/call(_:timeout:_:)`` itself needs (a cancellable,
/// references, errors), found in both function tables.
protocol GLibCore: Sendable {
    var g_error_free: authdeck_g_error_free_fn { get }
    var g_quark_to_string: authdeck_g_quark_to_string_fn { get }
    var g_quark_from_string: authdeck_g_quark_from_string_fn { get }
    var g_object_unref: authdeck_g_object_unref_fn { get }
    var g_object_ref: authdeck_g_object_ref_fn { get }
    var g_cancellable_new: authdeck_g_cancellable_new_fn { get }
    var g_cancellable_cancel: authdeck_g_cancellable_cancel_fn { get }
    static func loaded() throws(SecretStoreError) -> Self
}

/// GDBus and GVariant (gio, with gobject and glib), for the Secret Service on D-Bus: the lookup
/// (``SecretServiceStore/lookup(_:timeout:)``), the store, the default collection's state, its
/// unlock and the prompts (``SecretServiceStore/Conversation``); and for desktop notifications
/// (``DesktopNotifications``): `authdeck token` opens libgio
/// alone, not libsecret with libgcrypt and libgpg-error (about 0.9 M instructions fewer to load
/// and relocate).
struct GDBus: GLibCore, @unchecked Sendable {
    let g_error_free: authdeck_g_error_free_fn
    let g_quark_to_string: authdeck_g_quark_to_string_fn
    let g_quark_from_string: authdeck_g_quark_from_string_fn
    let g_object_unref: authdeck_g_object_unref_fn
    let g_object_ref: authdeck_g_object_ref_fn
    let g_cancellable_new: authdeck_g_cancellable_new_fn
    let g_cancellable_cancel: authdeck_g_cancellable_cancel_fn
    let g_bus_get_sync: authdeck_g_bus_get_sync_fn
    let g_dbus_connection_call_sync: authdeck_g_dbus_connection_call_sync_fn
    let g_variant_new_string: authdeck_g_variant_new_string_fn
    let g_variant_new_object_path: authdeck_g_variant_new_object_path_fn
    let g_variant_new_variant: authdeck_g_variant_new_variant_fn
    let g_variant_new_tuple: authdeck_g_variant_new_tuple_fn
    let g_variant_new_array: authdeck_g_variant_new_array_fn
    let g_variant_new_dict_entry: authdeck_g_variant_new_dict_entry_fn
    let g_variant_n_children: authdeck_g_variant_n_children_fn
    let g_variant_get_child_value: authdeck_g_variant_get_child_value_fn
    let g_variant_get_string: authdeck_g_variant_get_string_fn
    let g_variant_get_fixed_array: authdeck_g_variant_get_fixed_array_fn
    let g_variant_unref: authdeck_g_variant_unref_fn
    let g_variant_ref: authdeck_g_variant_ref_fn
    let g_variant_new_boolean: authdeck_g_variant_new_boolean_fn
    let g_variant_new_fixed_array: authdeck_g_variant_new_fixed_array_fn
    let g_variant_get_boolean: authdeck_g_variant_get_boolean_fn
    let g_variant_get_variant: authdeck_g_variant_get_variant_fn
    let g_variant_new_uint32: authdeck_g_variant_new_uint32_fn
    let g_variant_new_int32: authdeck_g_variant_new_int32_fn
    let g_variant_new_byte: authdeck_g_variant_new_byte_fn
    let g_variant_get_uint32: authdeck_g_variant_get_uint32_fn
    let g_dbus_connection_signal_subscribe: authdeck_g_dbus_connection_signal_subscribe_fn
    let g_dbus_connection_signal_unsubscribe: authdeck_g_dbus_connection_signal_unsubscribe_fn
    let g_cancellable_is_cancelled: authdeck_g_cancellable_is_cancelled_fn
    let g_main_context_new: authdeck_g_main_context_new_fn
    let g_main_context_unref: authdeck_g_main_context_unref_fn
    let g_main_context_push_thread_default: authdeck_g_main_context_push_thread_default_fn
    let g_main_context_pop_thread_default: authdeck_g_main_context_pop_thread_default_fn
    let g_main_context_iteration: authdeck_g_main_context_iteration_fn

    /// Opens `spec` (gobject and glib come with it) and resolves every function.
    static func load(_ spec: LibrarySpec = .gio) throws(LibraryLoadError) -> GDBus {
        let library = try DynamicLibrary.open(spec)
        GLibMessages.toStandardError(library)
        return GDBus(
            g_error_free: try library.function("g_error_free"),
            g_quark_to_string: try library.function("g_quark_to_string"),
            g_quark_from_string: try library.function("g_quark_from_string"),
            g_object_unref: try library.function("g_object_unref"),
            g_object_ref: try library.function("g_object_ref"),
            g_cancellable_new: try library.function("g_cancellable_new"),
            g_cancellable_cancel: try library.function("g_cancellable_cancel"),
            g_bus_get_sync: try library.function("g_bus_get_sync"),
            g_dbus_connection_call_sync: try library.function("g_dbus_connection_call_sync"),
            g_variant_new_string: try library.function("g_variant_new_string"),
            g_variant_new_object_path: try library.function("g_variant_new_object_path"),
            g_variant_new_variant: try library.function("g_variant_new_variant"),
            g_variant_new_tuple: try library.function("g_variant_new_tuple"),
            g_variant_new_array: try library.function("g_variant_new_array"),
            g_variant_new_dict_entry: try library.function("g_variant_new_dict_entry"),
            g_variant_n_children: try library.function("g_variant_n_children"),
            g_variant_get_child_value: try library.function("g_variant_get_child_value"),
            g_variant_get_string: try library.function("g_variant_get_string"),
            g_variant_get_fixed_array: try library.function("g_variant_get_fixed_array"),
            g_variant_unref: try library.function("g_variant_unref"),
            g_variant_ref: try library.function("g_variant_ref"),
            g_variant_new_boolean: try library.function("g_variant_new_boolean"),
            g_variant_new_fixed_array: try library.function("g_variant_new_fixed_array"),
            g_variant_get_boolean: try library.function("g_variant_get_boolean"),
            g_variant_get_variant: try library.function("g_variant_get_variant"),
            g_variant_new_uint32: try library.function("g_variant_new_uint32"),
            g_variant_new_int32: try library.function("g_variant_new_int32"),
            g_variant_new_byte: try library.function("g_variant_new_byte"),
            g_variant_get_uint32: try library.function("g_variant_get_uint32"),
            g_dbus_connection_signal_subscribe: try library.function("g_dbus_connection_signal_subscribe"),
            g_dbus_connection_signal_unsubscribe: try library.function("g_dbus_connection_signal_unsubscribe"),
            g_cancellable_is_cancelled: try library.function("g_cancellable_is_cancelled"),
            g_main_context_new: try library.function("g_main_context_new"),
            g_main_context_unref: try library.function("g_main_context_unref"),
            g_main_context_push_thread_default: try library.function("g_main_context_push_thread_default"),
            g_main_context_pop_thread_default: try library.function("g_main_context_pop_thread_default"),
            g_main_context_iteration: try library.function("g_main_context_iteration"))
    }

    /// The process's gio, loaded once.
    static let shared = Result { () throws(LibraryLoadError) -> GDBus in try load() }

    /// ``shared``, or ``SecretStoreError/unavailable(cause:)`` naming the library and its Debian package.
    static func loaded() throws(SecretStoreError) -> GDBus {
        switch shared {
        case .success(let lib): return lib
        case .failure(let error): throw .unavailable(cause: .init(error.description))
        }
    }
}
