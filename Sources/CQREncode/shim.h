#ifndef AUTHDECK_CQRENCODE_SHIM_H
#define AUTHDECK_CQRENCODE_SHIM_H
#include <qrencode.h>
#endif
