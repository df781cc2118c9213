#ifndef AUTHDECK_CLIBSECRET_SHIM_H
#define AUTHDECK_CLIBSECRET_SHIM_H
#include <libsecret/secret.h>
#endif
