#ifndef AUTHDECK_CNCURSES_SHIM_H
#define AUTHDECK_CNCURSES_SHIM_H
/* SwiftPM drops pkg-config -D flags; the wide-character API needs this define. */
#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <ncursesw/ncurses.h>
#include <ncursesw/term.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <wchar.h>
#include <fcntl.h>

/* A non-blocking, close-on-exec pipe (pipe2 needs _GNU_SOURCE; fcntl is variadic). */
static inline int authdeck_pipe_nonblock(int fds[2]) {
    if (pipe(fds) != 0) return -1;
    for (int i = 0; i < 2; i++) {
        fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
        fcntl(fds[i], F_SETFD, FD_CLOEXEC);
    }
    return 0;
}

/* Attribute macros are built from NCURSES_BITS and do not import into Swift. */
static inline attr_t authdeck_a_normal(void) { return A_NORMAL; }
static inline attr_t authdeck_a_bold(void) { return A_BOLD; }
static inline attr_t authdeck_a_dim(void) { return A_DIM; }
static inline attr_t authdeck_a_reverse(void) { return A_REVERSE; }
static inline attr_t authdeck_a_underline(void) { return A_UNDERLINE; }
static inline attr_t authdeck_a_italic(void) { return A_ITALIC; }

/* wcwidth is declared only under _XOPEN_SOURCE, which SwiftPM drops. */
extern int wcwidth(wchar_t c);
static inline int authdeck_wcwidth(wchar_t c) { return wcwidth(c); }

/* C globals are not concurrency-safe in Swift 6; read them through functions. */
static inline WINDOW *authdeck_stdscr(void) { return stdscr; }
static inline int authdeck_colors(void) { return COLORS; }
static inline int authdeck_color_pairs(void) { return COLOR_PAIRS; }
static inline FILE *authdeck_stdout(void) { return stdout; }
static inline FILE *authdeck_stdin(void) { return stdin; }

/* Puts one grapheme (up to CCHARW_MAX wide chars, NUL-terminated) at (y, x) with attributes and an
   extended colour pair. */
static inline int authdeck_put_cell(WINDOW *w, int y, int x, const wchar_t *wstr, attr_t attrs, int pair) {
    cchar_t cc;
    if (setcchar(&cc, wstr, attrs, 0, &pair) != OK) return ERR;
    return mvwadd_wch(w, y, x, &cc);
}

static inline mmask_t authdeck_enable_clicks(void) {
    return mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED, NULL);
}

/* Reads a mouse event; returns OK with x, y of a button-1 press or click. */
static inline int authdeck_get_click(int *x, int *y) {
    MEVENT ev;
    if (getmouse(&ev) != OK) return ERR;
    if (!(ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED))) return ERR;
    *x = ev.x;
    *y = ev.y;
    return OK;
}

/* No mutable state in this header: a `static` here (file scope, or a local of a `static inline`
   function) gets one copy per place the header is compiled into. The signal flag and the crash
   path's saved terminal modes live once, in the CTerminalSignals C target (issue 16). */

/* The terminal's capability string `name` (e.g. "rmcup"), or NULL when absent or not a string. */
static inline const char *authdeck_tigetstr(const char *name) {
    const char *p = tigetstr(name);
    return (p == NULL || p == (const char *)-1) ? NULL : p;
}
#endif
