#ifndef AUTHDECK_CKEYUTILS_SHIM_H
#define AUTHDECK_CKEYUTILS_SHIM_H
#include <keyutils.h>
#endif
