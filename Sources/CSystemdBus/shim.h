#ifndef AUTHDECK_CSYSTEMDBUS_SHIM_H
#define AUTHDECK_CSYSTEMDBUS_SHIM_H
/*
 * The part of sd-bus (libsystemd's D-Bus client) that the launcher calls to read one item from
 * the Secret Service, declared here instead of including <systemd/sd-bus.h>: the library is
 * opened with dlopen on use, and the build needs no libsystemd-dev. Only non-variadic functions
 * (Swift cannot call C varargs).
 *
 * Every prototype is checked against the real header by the test "CSystemdBus shim prototypes
 * match <systemd/sd-bus.h>" (QuickTokenTests), which compiles this file after it: a mismatch is
 * a "conflicting types" error. The type definitions are skipped when the real header is present.
 */
#include <stddef.h>
#include <stdint.h>

#ifndef foosdbushfoo
typedef struct sd_bus sd_bus;
typedef struct sd_bus_message sd_bus_message;
typedef struct {
    const char *name;
    const char *message;
    int _need_free;
} sd_bus_error;
#endif

int sd_bus_new(sd_bus **ret);
int sd_bus_set_address(sd_bus *bus, const char *address);
int sd_bus_set_bus_client(sd_bus *bus, int b);
int sd_bus_is_ready(sd_bus *bus);
int sd_bus_process(sd_bus *bus, sd_bus_message **r);
int sd_bus_wait(sd_bus *bus, uint64_t timeout_usec);
int sd_bus_start(sd_bus *bus);
sd_bus *sd_bus_close_unref(sd_bus *bus);
int sd_bus_message_new_method_call(sd_bus *bus, sd_bus_message **m, const char *destination, const char *path,
                                   const char *interface, const char *member);
int sd_bus_message_set_auto_start(sd_bus_message *m, int b);
int sd_bus_message_append_basic(sd_bus_message *m, char type, const void *p);
int sd_bus_message_open_container(sd_bus_message *m, char type, const char *contents);
int sd_bus_message_close_container(sd_bus_message *m);
int sd_bus_call(sd_bus *bus, sd_bus_message *m, uint64_t usec, sd_bus_error *ret_error, sd_bus_message **reply);
int sd_bus_message_enter_container(sd_bus_message *m, char type, const char *contents);
int sd_bus_message_exit_container(sd_bus_message *m);
int sd_bus_message_read_basic(sd_bus_message *m, char type, void *p);
int sd_bus_message_read_array(sd_bus_message *m, char type, const void **ptr, size_t *size);
const char *sd_bus_message_get_signature(sd_bus_message *m, int complete);
sd_bus_message *sd_bus_message_unref(sd_bus_message *m);
void sd_bus_error_free(sd_bus_error *e);

typedef __typeof__(sd_bus_new) *authdeck_sd_bus_new_fn;
typedef __typeof__(sd_bus_set_address) *authdeck_sd_bus_set_address_fn;
typedef __typeof__(sd_bus_set_bus_client) *authdeck_sd_bus_set_bus_client_fn;
typedef __typeof__(sd_bus_is_ready) *authdeck_sd_bus_is_ready_fn;
typedef __typeof__(sd_bus_process) *authdeck_sd_bus_process_fn;
typedef __typeof__(sd_bus_wait) *authdeck_sd_bus_wait_fn;
typedef __typeof__(sd_bus_start) *authdeck_sd_bus_start_fn;
typedef __typeof__(sd_bus_close_unref) *authdeck_sd_bus_close_unref_fn;
typedef __typeof__(sd_bus_message_new_method_call) *authdeck_sd_bus_message_new_method_call_fn;
typedef __typeof__(sd_bus_message_set_auto_start) *authdeck_sd_bus_message_set_auto_start_fn;
typedef __typeof__(sd_bus_message_append_basic) *authdeck_sd_bus_message_append_basic_fn;
typedef __typeof__(sd_bus_message_open_container) *authdeck_sd_bus_message_open_container_fn;
typedef __typeof__(sd_bus_message_close_container) *authdeck_sd_bus_message_close_container_fn;
typedef __typeof__(sd_bus_call) *authdeck_sd_bus_call_fn;
typedef __typeof__(sd_bus_message_enter_container) *authdeck_sd_bus_message_enter_container_fn;
typedef __typeof__(sd_bus_message_exit_container) *authdeck_sd_bus_message_exit_container_fn;
typedef __typeof__(sd_bus_message_read_basic) *authdeck_sd_bus_message_read_basic_fn;
typedef __typeof__(sd_bus_message_read_array) *authdeck_sd_bus_message_read_array_fn;
typedef __typeof__(sd_bus_message_get_signature) *authdeck_sd_bus_message_get_signature_fn;
typedef __typeof__(sd_bus_message_unref) *authdeck_sd_bus_message_unref_fn;
typedef __typeof__(sd_bus_error_free) *authdeck_sd_bus_error_free_fn;

#endif
