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

/*
 * ncurses and terminfo are not linked: TerminalUINCurses opens libncursesw.so.6 (which brings
 * libtinfo.so.6) with dlopen when the TUI starts (LibraryLoader), and resolves each function with
 * dlsym, typed by these typedefs from the real prototypes. Other commands never load them.
 */
typedef __typeof__(newterm) *authdeck_newterm_fn;
typedef __typeof__(set_term) *authdeck_set_term_fn;
typedef __typeof__(cbreak) *authdeck_cbreak_fn;
typedef __typeof__(noecho) *authdeck_noecho_fn;
typedef __typeof__(nonl) *authdeck_nonl_fn;
typedef __typeof__(keypad) *authdeck_keypad_fn;
typedef __typeof__(nodelay) *authdeck_nodelay_fn;
typedef __typeof__(curs_set) *authdeck_curs_set_fn;
typedef __typeof__(set_escdelay) *authdeck_set_escdelay_fn;
typedef __typeof__(mouseinterval) *authdeck_mouseinterval_fn;
typedef __typeof__(has_colors) *authdeck_has_colors_fn;
typedef __typeof__(start_color) *authdeck_start_color_fn;
typedef __typeof__(use_default_colors) *authdeck_use_default_colors_fn;
typedef __typeof__(endwin) *authdeck_endwin_fn;
typedef __typeof__(delscreen) *authdeck_delscreen_fn;
typedef __typeof__(getmaxx) *authdeck_getmaxx_fn;
typedef __typeof__(getmaxy) *authdeck_getmaxy_fn;
typedef __typeof__(init_extended_pair) *authdeck_init_extended_pair_fn;
typedef __typeof__(werase) *authdeck_werase_fn;
typedef __typeof__(wnoutrefresh) *authdeck_wnoutrefresh_fn;
typedef __typeof__(doupdate) *authdeck_doupdate_fn;
typedef __typeof__(clearok) *authdeck_clearok_fn;
typedef __typeof__(wget_wch) *authdeck_wget_wch_fn;
typedef __typeof__(def_prog_mode) *authdeck_def_prog_mode_fn;
typedef __typeof__(reset_prog_mode) *authdeck_reset_prog_mode_fn;
typedef __typeof__(refresh) *authdeck_refresh_fn;
typedef __typeof__(setcchar) *authdeck_setcchar_fn;
typedef __typeof__(mvwadd_wch) *authdeck_mvwadd_wch_fn;
typedef __typeof__(mousemask) *authdeck_mousemask_fn;
typedef __typeof__(getmouse) *authdeck_getmouse_fn;
typedef __typeof__(tigetstr) *authdeck_tigetstr_fn;

/* ncurses' globals (stdscr, COLORS, COLOR_PAIRS) read through their dlsym addresses; C globals
   are not concurrency-safe in Swift 6, so they are read here, not held in Swift. */
static inline WINDOW *authdeck_window_at(const void *address) { return *(WINDOW *const *)address; }
static inline int authdeck_int_at(const void *address) { return *(const int *)address; }
static inline FILE *authdeck_stdout(void) { return stdout; }
static inline FILE *authdeck_stdin(void) { return stdin; }

/* Puts one grapheme (up to CCHARW_MAX wide chars, NUL-terminated) at (y, x) with attributes and an
   extended colour pair. */
static inline int authdeck_put_cell(authdeck_setcchar_fn fn_setcchar, authdeck_mvwadd_wch_fn fn_mvwadd_wch,
                                    WINDOW *w, int y, int x, const wchar_t *wstr, attr_t attrs, int pair) {
    cchar_t cc;
    if (fn_setcchar(&cc, wstr, attrs, 0, &pair) != OK) return ERR;
    return fn_mvwadd_wch(w, y, x, &cc);
}

static inline mmask_t authdeck_enable_clicks(authdeck_mousemask_fn fn_mousemask) {
    return fn_mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED, NULL);
}

/* Reads a mouse event; returns OK with x, y of a button-1 press or click. */
static inline int authdeck_get_click(authdeck_getmouse_fn fn_getmouse, int *x, int *y) {
    MEVENT ev;
    if (fn_getmouse(&ev) != OK) return ERR;
    if (!(ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED))) return ERR;
    *x = ev.x;
    *y = ev.y;
    return OK;
}

/* No mutable state in this header: a `static` here (file scope, or a local of a `static inline`
   function) gets one copy per place the header is compiled into. The signal flag and the crash
   path's saved terminal modes live once, in the CTerminalSignals C target. */

/* The terminal's capability string `name` (e.g. "rmcup"), or NULL when absent or not a string. */
static inline const char *authdeck_tigetstr(authdeck_tigetstr_fn fn_tigetstr, const char *name) {
    const char *p = fn_tigetstr(name);
    return (p == NULL || p == (const char *)-1) ? NULL : p;
}
#endif
