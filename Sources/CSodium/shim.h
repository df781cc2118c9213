#ifndef AUTHDECK_CSODIUM_SHIM_H
#define AUTHDECK_CSODIUM_SHIM_H
#include <sodium.h>
#endif
