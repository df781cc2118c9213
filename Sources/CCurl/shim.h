#ifndef AUTHDECK_CCURL_SHIM_H
#define AUTHDECK_CCURL_SHIM_H
#include <curl/curl.h>

/*
 * libcurl is not linked: AuthEngineLive resolves these functions with dlsym on first use
 * (LibraryLoader), so a command that never touches the network never loads libcurl and its
 * dependency tree (gnutls, krb5, ldap, ssh2, rtmp, … about 8 ms of start-up).
 *
 * The typedefs take each function's type from <curl/curl.h> itself (__typeof__ is not a use
 * of the symbol), so a signature cannot drift from the header.
 */
typedef __typeof__(curl_global_init) *authdeck_curl_global_init_fn;
typedef __typeof__(curl_easy_init) *authdeck_curl_easy_init_fn;
typedef __typeof__(curl_easy_cleanup) *authdeck_curl_easy_cleanup_fn;
typedef __typeof__(curl_easy_perform) *authdeck_curl_easy_perform_fn;
typedef __typeof__(curl_easy_strerror) *authdeck_curl_easy_strerror_fn;
typedef __typeof__(curl_free) *authdeck_curl_free_fn;
typedef __typeof__(curl_slist_append) *authdeck_curl_slist_append_fn;
typedef __typeof__(curl_slist_free_all) *authdeck_curl_slist_free_all_fn;
typedef __typeof__(curl_url) *authdeck_curl_url_fn;
typedef __typeof__(curl_url_cleanup) *authdeck_curl_url_cleanup_fn;
typedef __typeof__(curl_url_get) *authdeck_curl_url_get_fn;
typedef __typeof__(curl_url_set) *authdeck_curl_url_set_fn;

static inline long authdeck_curl_global_default(void) { return CURL_GLOBAL_DEFAULT; }

/*
 * curl_easy_setopt / curl_easy_getinfo are variadic, which Swift cannot call: one fixed-argument
 * wrapper per argument type, calling the resolved function (passed as `fn`) through its
 * variadic type, as the header declares it.
 */
typedef CURLcode (*authdeck_curl_setopt_variadic)(CURL *, CURLoption, ...);
typedef CURLcode (*authdeck_curl_getinfo_variadic)(CURL *, CURLINFO, ...);

static inline CURLcode authdeck_curl_setopt_long(void *fn, CURL *handle, CURLoption option, long value) {
    return ((authdeck_curl_setopt_variadic)fn)(handle, option, value);
}

static inline CURLcode authdeck_curl_setopt_string(void *fn, CURL *handle, CURLoption option, const char *value) {
    return ((authdeck_curl_setopt_variadic)fn)(handle, option, value);
}

static inline CURLcode authdeck_curl_setopt_pointer(void *fn, CURL *handle, CURLoption option, void *value) {
    return ((authdeck_curl_setopt_variadic)fn)(handle, option, value);
}

static inline CURLcode authdeck_curl_setopt_slist(void *fn, CURL *handle, CURLoption option, struct curl_slist *value) {
    return ((authdeck_curl_setopt_variadic)fn)(handle, option, value);
}

static inline CURLcode authdeck_curl_setopt_off_t(void *fn, CURL *handle, CURLoption option, curl_off_t value) {
    return ((authdeck_curl_setopt_variadic)fn)(handle, option, value);
}

typedef size_t (*authdeck_curl_data_callback)(char *buffer, size_t size, size_t nitems, void *userdata);
typedef int (*authdeck_curl_xferinfo_callback)(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
                                               curl_off_t ultotal, curl_off_t ulnow);

/* CURLOPT_WRITEFUNCTION, CURLOPT_HEADERFUNCTION, CURLOPT_READFUNCTION. */
static inline CURLcode authdeck_curl_setopt_data_callback(void *fn, CURL *handle, CURLoption option, authdeck_curl_data_callback value) {
    return ((authdeck_curl_setopt_variadic)fn)(handle, option, value);
}

/* CURLOPT_XFERINFOFUNCTION. */
static inline CURLcode authdeck_curl_setopt_xferinfo_callback(void *fn, CURL *handle, authdeck_curl_xferinfo_callback value) {
    return ((authdeck_curl_setopt_variadic)fn)(handle, CURLOPT_XFERINFOFUNCTION, value);
}

static inline CURLcode authdeck_curl_getinfo_long(void *fn, CURL *handle, CURLINFO info, long *value) {
    return ((authdeck_curl_getinfo_variadic)fn)(handle, info, value);
}

static inline CURLcode authdeck_curl_getinfo_string(void *fn, CURL *handle, CURLINFO info, char **value) {
    return ((authdeck_curl_getinfo_variadic)fn)(handle, info, value);
}

static inline CURLcode authdeck_curl_getinfo_off_t(void *fn, CURL *handle, CURLINFO info, curl_off_t *value) {
    return ((authdeck_curl_getinfo_variadic)fn)(handle, info, value);
}

#endif
