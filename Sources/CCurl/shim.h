#ifndef AUTHDECK_CCURL_SHIM_H
#define AUTHDECK_CCURL_SHIM_H
#include <curl/curl.h>
#endif
