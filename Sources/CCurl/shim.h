#ifndef AUTHDECK_CCURL_SHIM_H
#define AUTHDECK_CCURL_SHIM_H
#include <curl/curl.h>

/* curl_easy_setopt / curl_easy_getinfo are variadic: one fixed-argument wrapper per argument type. */

static inline CURLcode authdeck_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode authdeck_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode authdeck_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode authdeck_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode authdeck_curl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

typedef size_t (*authdeck_curl_data_callback)(char *buffer, size_t size, size_t nitems, void *userdata);
typedef int (*authdeck_curl_xferinfo_callback)(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
                                               curl_off_t ultotal, curl_off_t ulnow);

/* CURLOPT_WRITEFUNCTION, CURLOPT_HEADERFUNCTION, CURLOPT_READFUNCTION. */
static inline CURLcode authdeck_curl_setopt_data_callback(CURL *handle, CURLoption option, authdeck_curl_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}

/* CURLOPT_XFERINFOFUNCTION. */
static inline CURLcode authdeck_curl_setopt_xferinfo_callback(CURL *handle, authdeck_curl_xferinfo_callback value) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, value);
}

static inline CURLcode authdeck_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode authdeck_curl_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode authdeck_curl_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode authdeck_curl_global_init_default(void) {
    return curl_global_init(CURL_GLOBAL_DEFAULT);
}

#endif
