#ifndef AUTHDECK_CJANSSON_SHIM_H
#define AUTHDECK_CJANSSON_SHIM_H
#include <jansson.h>

/* The strict JSON reader and the writer (StrictJSON). Macros and inline functions that do not
   import into Swift, as functions. */

/* Flags: reject duplicate member names (RFC 7515 §4, RFC 7519 §4, RFC 8259 §4), decode every
   number as a double (the engine's JSONValue is Double; an integer beyond long long would
   otherwise fail the whole document), and keep the default checks: top level an object or
   array, nothing after it, valid UTF-8, no \u0000 in strings, nesting at most
   JSON_PARSER_MAX_DEPTH. */
static inline size_t authdeck_json_decode_flags(void) { return JSON_REJECT_DUPLICATES | JSON_DECODE_INT_AS_REAL; }

/* Flags for writing: any value at the top, keys sorted (byte order), reals with `precision` significant digits (1-17),
   slashes not escaped; two-space indentation when pretty, else compact. */
static inline size_t authdeck_json_encode_flags(int pretty, int precision) {
    return JSON_ENCODE_ANY | JSON_SORT_KEYS | JSON_REAL_PRECISION(precision) | (pretty ? JSON_INDENT(2) : JSON_COMPACT);
}

/* Nesting accepted by authdeck's reading above jansson's own limit (StrictJSON's and the
   launcher's, QuickToken): a document from outside (a provider's, a resource's) at most 64 levels;
   authdeck's own files, which embed such documents (ID token claims in accounts.json, a discovery
   document in its cache file) a few levels down, 64 more. */
static inline int authdeck_json_maximum_depth(void) { return 64; }
static inline int authdeck_json_maximum_stored_depth(void) { return 128; }

static inline json_type authdeck_json_typeof(const json_t *json) { return json_typeof(json); }

static inline void authdeck_json_decref(json_t *json) { json_decref(json); }

static inline enum json_error_code authdeck_json_error_code(const json_error_t *error) { return json_error_code(error); }

#endif
