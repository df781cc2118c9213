#ifndef AUTHDECK_CLIBSECRET_SHIM_H
#define AUTHDECK_CLIBSECRET_SHIM_H
/*
 * The part of libsecret-1 (and GLib) that authdeck calls, declared here instead of including
 * <libsecret/secret.h>.
 *
 * Why: <libsecret/secret.h> pulls in <glib.h>, whose include directories (one of them
 * architecture-specific, /usr/lib/<triplet>/glib-2.0/include) come only from pkg-config, and
 * SwiftPM's use of `pkg-config libsecret-1` also drops glib's `-pthread` with a
 * "prohibited flag(s)" warning on every build. Declaring the few stable C entry points we use
 * needs no include path at all, so the target works unchanged on any Debian architecture and the
 * build is warning-free. Only the non-variadic `*v` API is used (Swift cannot call C varargs).
 *
 * Every prototype below is checked against the real headers by the test
 * "CLibSecret shim prototypes match <libsecret/secret.h>" (CredentialStoreLiveTests), which
 * compiles this file after the real headers: a mismatch is a "conflicting types" error.
 * The type definitions are skipped when the real GLib headers are present.
 */
#include <stddef.h>
#include <stdint.h>

#ifndef __G_LIB_H__
typedef char gchar;
typedef int gint;
typedef unsigned int guint;
typedef gint gboolean;
typedef void *gpointer;
typedef const void *gconstpointer;
typedef uint32_t GQuark;
typedef struct _GHashTable GHashTable;
typedef struct _GCancellable GCancellable;
typedef struct _GList GList;
struct _GList {
    gpointer data;
    GList *next;
    GList *prev;
};
typedef struct _GError GError;
struct _GError {
    GQuark domain;
    gint code;
    gchar *message;
};
typedef guint (*GHashFunc)(gconstpointer key);
typedef gboolean (*GEqualFunc)(gconstpointer a, gconstpointer b);
typedef void (*GDestroyNotify)(gpointer data);
typedef struct _GMainContext GMainContext;
#endif

#ifndef __G_IO_H__
typedef enum { G_BUS_TYPE_STARTER = -1, G_BUS_TYPE_NONE = 0, G_BUS_TYPE_SYSTEM = 1, G_BUS_TYPE_SESSION = 2 } GBusType;
typedef enum {
    G_DBUS_CALL_FLAGS_NONE = 0,
    G_DBUS_CALL_FLAGS_NO_AUTO_START = 1 << 0,
    G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION = 1 << 1
} GDBusCallFlags;
typedef enum {
    G_DBUS_SIGNAL_FLAGS_NONE = 0,
    G_DBUS_SIGNAL_FLAGS_NO_MATCH_RULE = 1 << 0,
    G_DBUS_SIGNAL_FLAGS_MATCH_ARG0_NAMESPACE = 1 << 1,
    G_DBUS_SIGNAL_FLAGS_MATCH_ARG0_PATH = 1 << 2
} GDBusSignalFlags;
#endif

#ifndef __SECRET_H__
typedef unsigned long gsize;
typedef struct _GVariant GVariant;
typedef struct _GVariantType GVariantType;
typedef struct _GDBusConnection GDBusConnection;
typedef void (*GDBusSignalCallback)(GDBusConnection *connection, const gchar *sender_name, const gchar *object_path,
                                    const gchar *interface_name, const gchar *signal_name, GVariant *parameters,
                                    gpointer user_data);
typedef struct _SecretSchema SecretSchema;
typedef struct _SecretRetrievable SecretRetrievable;
typedef enum { SECRET_SCHEMA_NONE = 0, SECRET_SCHEMA_DONT_MATCH_NAME = 1 << 1 } SecretSchemaFlags;
typedef enum {
    SECRET_SCHEMA_ATTRIBUTE_STRING = 0,
    SECRET_SCHEMA_ATTRIBUTE_INTEGER = 1,
    SECRET_SCHEMA_ATTRIBUTE_BOOLEAN = 2
} SecretSchemaAttributeType;
typedef enum {
    SECRET_SEARCH_NONE = 0,
    SECRET_SEARCH_ALL = 1 << 1,
    SECRET_SEARCH_UNLOCK = 1 << 2,
    SECRET_SEARCH_LOAD_SECRETS = 1 << 3
} SecretSearchFlags;
#endif

/* GLib */
GHashTable *g_hash_table_new_full(GHashFunc hash_func, GEqualFunc key_equal_func,
                                  GDestroyNotify key_destroy_func, GDestroyNotify value_destroy_func);
gboolean g_hash_table_insert(GHashTable *hash_table, gpointer key, gpointer value);
gpointer g_hash_table_lookup(GHashTable *hash_table, gconstpointer key);
void g_hash_table_unref(GHashTable *hash_table);
guint g_str_hash(gconstpointer v);
gboolean (g_str_equal)(gconstpointer v1, gconstpointer v2);
gchar *g_strdup(const gchar *str);
void g_free(gpointer mem);
void g_log_writer_default_set_use_stderr(gboolean use_stderr);
void g_error_free(GError *error);
const gchar *g_quark_to_string(GQuark quark);
GQuark g_quark_from_string(const gchar *string);
void g_list_free_full(GList *list, GDestroyNotify free_func);
void g_object_unref(gpointer object);
gpointer (g_object_ref)(gpointer object);
GCancellable *g_cancellable_new(void);
void g_cancellable_cancel(GCancellable *cancellable);
gboolean g_cancellable_is_cancelled(GCancellable *cancellable);
GMainContext *g_main_context_new(void);
void g_main_context_unref(GMainContext *context);
void g_main_context_push_thread_default(GMainContext *context);
void g_main_context_pop_thread_default(GMainContext *context);
gboolean g_main_context_iteration(GMainContext *context, gboolean may_block);

/* GVariant, GDBus and a main context for signals (gio), for the Secret Service on D-Bus (SecretServiceStore)
 * and desktop notifications (DesktopNotifications) */
GDBusConnection *g_bus_get_sync(GBusType bus_type, GCancellable *cancellable, GError **error);
GVariant *g_dbus_connection_call_sync(GDBusConnection *connection, const gchar *bus_name, const gchar *object_path,
                                      const gchar *interface_name, const gchar *method_name, GVariant *parameters,
                                      const GVariantType *reply_type, GDBusCallFlags flags, gint timeout_msec,
                                      GCancellable *cancellable, GError **error);
GVariant *g_variant_new_string(const gchar *string);
GVariant *g_variant_new_object_path(const gchar *object_path);
GVariant *g_variant_new_variant(GVariant *value);
GVariant *g_variant_new_tuple(GVariant *const *children, gsize n_children);
GVariant *g_variant_new_array(const GVariantType *child_type, GVariant *const *children, gsize n_children);
GVariant *g_variant_new_dict_entry(GVariant *key, GVariant *value);
gsize g_variant_n_children(GVariant *value);
GVariant *g_variant_get_child_value(GVariant *value, gsize index_);
const gchar *g_variant_get_string(GVariant *value, gsize *length);
gconstpointer g_variant_get_fixed_array(GVariant *value, gsize *n_elements, gsize element_size);
void g_variant_unref(GVariant *value);
GVariant *g_variant_ref(GVariant *value);
GVariant *g_variant_new_boolean(gboolean value);
GVariant *g_variant_new_fixed_array(const GVariantType *element_type, gconstpointer elements, gsize n_elements,
                                    gsize element_size);
gboolean g_variant_get_boolean(GVariant *value);
GVariant *g_variant_get_variant(GVariant *value);
GVariant *g_variant_new_uint32(uint32_t value);
GVariant *g_variant_new_int32(int32_t value);
GVariant *g_variant_new_byte(unsigned char value);
uint32_t g_variant_get_uint32(GVariant *value);
guint g_dbus_connection_signal_subscribe(GDBusConnection *connection, const gchar *sender, const gchar *interface_name,
                                         const gchar *member, const gchar *object_path, const gchar *arg0,
                                         GDBusSignalFlags flags, GDBusSignalCallback callback, gpointer user_data,
                                         GDestroyNotify user_data_free_func);
void g_dbus_connection_signal_unsubscribe(GDBusConnection *connection, guint subscription_id);

/* libsecret */
SecretSchema *secret_schema_newv(const gchar *name, SecretSchemaFlags flags, GHashTable *attribute_names_and_types);
void secret_schema_unref(SecretSchema *schema);
gboolean secret_password_clearv_sync(const SecretSchema *schema, GHashTable *attributes, GCancellable *cancellable,
                                     GError **error);
GList *secret_password_searchv_sync(const SecretSchema *schema, GHashTable *attributes, SecretSearchFlags flags,
                                    GCancellable *cancellable, GError **error);
GHashTable *secret_retrievable_get_attributes(SecretRetrievable *self);


/*
 * Nothing here is linked: CredentialStoreLive opens libsecret-1.so.0 with dlopen when the Secret
 * Service store is first used (LibraryLoader) and resolves each function with dlsym, typed by
 * these typedefs (taken from the prototypes above, so they cannot drift). Commands on the vault
 * or plaintext store never load libsecret, gio, gobject or glib.
 */
typedef __typeof__(g_hash_table_new_full) *authdeck_g_hash_table_new_full_fn;
typedef __typeof__(g_hash_table_insert) *authdeck_g_hash_table_insert_fn;
typedef __typeof__(g_hash_table_lookup) *authdeck_g_hash_table_lookup_fn;
typedef __typeof__(g_hash_table_unref) *authdeck_g_hash_table_unref_fn;
typedef __typeof__(g_str_hash) *authdeck_g_str_hash_fn;
typedef __typeof__(g_str_equal) *authdeck_g_str_equal_fn;
typedef __typeof__(g_strdup) *authdeck_g_strdup_fn;
typedef __typeof__(g_free) *authdeck_g_free_fn;
typedef __typeof__(g_log_writer_default_set_use_stderr) *authdeck_g_log_writer_default_set_use_stderr_fn;
typedef __typeof__(g_error_free) *authdeck_g_error_free_fn;
typedef __typeof__(g_quark_to_string) *authdeck_g_quark_to_string_fn;
typedef __typeof__(g_quark_from_string) *authdeck_g_quark_from_string_fn;
typedef __typeof__(g_list_free_full) *authdeck_g_list_free_full_fn;
typedef __typeof__(g_object_unref) *authdeck_g_object_unref_fn;
typedef __typeof__(g_object_ref) *authdeck_g_object_ref_fn;
typedef __typeof__(g_cancellable_new) *authdeck_g_cancellable_new_fn;
typedef __typeof__(g_cancellable_cancel) *authdeck_g_cancellable_cancel_fn;
typedef __typeof__(g_bus_get_sync) *authdeck_g_bus_get_sync_fn;
typedef __typeof__(g_dbus_connection_call_sync) *authdeck_g_dbus_connection_call_sync_fn;
typedef __typeof__(g_variant_new_string) *authdeck_g_variant_new_string_fn;
typedef __typeof__(g_variant_new_object_path) *authdeck_g_variant_new_object_path_fn;
typedef __typeof__(g_variant_new_variant) *authdeck_g_variant_new_variant_fn;
typedef __typeof__(g_variant_new_tuple) *authdeck_g_variant_new_tuple_fn;
typedef __typeof__(g_variant_new_array) *authdeck_g_variant_new_array_fn;
typedef __typeof__(g_variant_new_dict_entry) *authdeck_g_variant_new_dict_entry_fn;
typedef __typeof__(g_variant_n_children) *authdeck_g_variant_n_children_fn;
typedef __typeof__(g_variant_get_child_value) *authdeck_g_variant_get_child_value_fn;
typedef __typeof__(g_variant_get_string) *authdeck_g_variant_get_string_fn;
typedef __typeof__(g_variant_get_fixed_array) *authdeck_g_variant_get_fixed_array_fn;
typedef __typeof__(g_variant_unref) *authdeck_g_variant_unref_fn;
typedef __typeof__(g_variant_ref) *authdeck_g_variant_ref_fn;
typedef __typeof__(g_variant_new_boolean) *authdeck_g_variant_new_boolean_fn;
typedef __typeof__(g_variant_new_fixed_array) *authdeck_g_variant_new_fixed_array_fn;
typedef __typeof__(g_variant_get_boolean) *authdeck_g_variant_get_boolean_fn;
typedef __typeof__(g_variant_get_variant) *authdeck_g_variant_get_variant_fn;
typedef __typeof__(g_variant_new_uint32) *authdeck_g_variant_new_uint32_fn;
typedef __typeof__(g_variant_new_int32) *authdeck_g_variant_new_int32_fn;
typedef __typeof__(g_variant_new_byte) *authdeck_g_variant_new_byte_fn;
typedef __typeof__(g_variant_get_uint32) *authdeck_g_variant_get_uint32_fn;
typedef __typeof__(g_dbus_connection_signal_subscribe) *authdeck_g_dbus_connection_signal_subscribe_fn;
typedef __typeof__(g_dbus_connection_signal_unsubscribe) *authdeck_g_dbus_connection_signal_unsubscribe_fn;
typedef __typeof__(g_cancellable_is_cancelled) *authdeck_g_cancellable_is_cancelled_fn;
typedef __typeof__(g_main_context_new) *authdeck_g_main_context_new_fn;
typedef __typeof__(g_main_context_unref) *authdeck_g_main_context_unref_fn;
typedef __typeof__(g_main_context_push_thread_default) *authdeck_g_main_context_push_thread_default_fn;
typedef __typeof__(g_main_context_pop_thread_default) *authdeck_g_main_context_pop_thread_default_fn;
typedef __typeof__(g_main_context_iteration) *authdeck_g_main_context_iteration_fn;
typedef __typeof__(secret_schema_newv) *authdeck_secret_schema_newv_fn;
typedef __typeof__(secret_schema_unref) *authdeck_secret_schema_unref_fn;
typedef __typeof__(secret_password_clearv_sync) *authdeck_secret_password_clearv_sync_fn;
typedef __typeof__(secret_password_searchv_sync) *authdeck_secret_password_searchv_sync_fn;
typedef __typeof__(secret_retrievable_get_attributes) *authdeck_secret_retrievable_get_attributes_fn;

/* Passing a small integer as a gpointer, as GINT_TO_POINTER does (schema attribute types). */
/* G_VARIANT_TYPE("…"): a type string is its own GVariantType. */
static inline const GVariantType *authdeck_variant_type(const gchar *type_string) { return (const GVariantType *)type_string; }

static inline gpointer authdeck_int_to_pointer(gint value) { return (gpointer)(intptr_t)value; }

#endif
