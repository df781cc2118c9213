#ifndef AUTHDECK_CQRENCODE_SHIM_H
#define AUTHDECK_CQRENCODE_SHIM_H
#include <qrencode.h>

/*
 * libqrencode is not linked: TerminalUINCurses opens libqrencode.so.4 with dlopen the first time
 * it draws a QR code (LibraryLoader), typed by these typedefs from the real prototypes.
 */
typedef __typeof__(QRcode_encodeString) *authdeck_QRcode_encodeString_fn;
typedef __typeof__(QRcode_free) *authdeck_QRcode_free_fn;
#endif
