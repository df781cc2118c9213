#ifndef AUTHDECK_CNCURSES_SHIM_H
#define AUTHDECK_CNCURSES_SHIM_H
/* SwiftPM drops pkg-config -D flags; the wide-character API needs this define. */
#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <ncursesw/ncurses.h>
#endif
