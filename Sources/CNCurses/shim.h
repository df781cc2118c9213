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

/* Crash path (SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE): restore the saved terminal
   modes and write the terminal's "leave alternate screen / show cursor" strings, using only
   async-signal-safe calls (tcsetattr, write), then re-raise with the default action. */
/* State lives in function-local statics: Swift's Clang importer does not emit file-scope static
   variables of a header (the link fails with undefined references). These functions have internal
   linkage, so EVERY SWIFT FILE THAT CALLS THEM GETS ITS OWN COPY OF THE STATE: call the signal and
   crash functions below from one Swift file only (TerminalUINCurses/TerminalSession.swift). */
enum { AUTHDECK_RESTORE_MAX = 256 };
static inline struct termios *authdeck_termios_slot(void) { static struct termios t; return &t; }
static inline int *authdeck_have_termios(void) { static int have = 0; return &have; }
static inline char *authdeck_restore_buf(void) { static char buf[AUTHDECK_RESTORE_MAX]; return buf; }
static inline size_t *authdeck_restore_len(void) { static size_t len = 0; return &len; }
static inline volatile sig_atomic_t *authdeck_quit_slot(void) { static volatile sig_atomic_t s = 0; return &s; }

static void authdeck_crash_handler(int sig) {
    if (*authdeck_have_termios()) tcsetattr(STDIN_FILENO, TCSANOW, authdeck_termios_slot());
    if (*authdeck_restore_len() > 0) {
        ssize_t ignored = write(STDOUT_FILENO, authdeck_restore_buf(), *authdeck_restore_len());
        (void)ignored;
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Call before newterm: remembers the terminal modes to restore on a crash. */
static inline void authdeck_save_termios(void) {
    if (tcgetattr(STDIN_FILENO, authdeck_termios_slot()) == 0) *authdeck_have_termios() = 1;
}

/* Call after newterm: installs the crash handlers with the terminal's rmcup + cnorm + sgr0. */
static inline void authdeck_install_crash_restore(void) {
    const char *parts[3];
    parts[0] = tigetstr("rmcup");
    parts[1] = tigetstr("cnorm");
    parts[2] = tigetstr("sgr0");
    char *buf = authdeck_restore_buf();
    size_t len = 0;
    for (int i = 0; i < 3; i++) {
        const char *p = parts[i];
        if (p == NULL || p == (const char *)-1) continue;
        size_t n = strlen(p);
        if (len + n >= AUTHDECK_RESTORE_MAX) break;
        memcpy(buf + len, p, n);
        len += n;
    }
    *authdeck_restore_len() = len;
    int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = authdeck_crash_handler;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND;
        sigaction(sigs[i], &sa, NULL);
    }
}

/* Undo authdeck_install_crash_restore (after endwin). */
static inline void authdeck_remove_crash_restore(void) {
    int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) signal(sigs[i], SIG_DFL);
}

/* SIGINT / SIGTERM / SIGHUP: set a flag that the main loop polls; poll() returns EINTR. */
static void authdeck_quit_handler(int sig) { *authdeck_quit_slot() = sig; }
static inline void authdeck_install_quit_handlers(void) {
    int sigs[] = { SIGINT, SIGTERM, SIGHUP };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = authdeck_quit_handler;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = 0; /* no SA_RESTART: poll() returns EINTR */
        sigaction(sigs[i], &sa, NULL);
    }
}
/* A parent may have started us with signals blocked (e.g. spawned from a libdispatch worker
   thread, whose mask is inherited across exec); the loop relies on these arriving. */
static inline void authdeck_unblock_ui_signals(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGWINCH);
    sigaddset(&set, SIGCONT);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static inline int authdeck_take_quit_signal(void) {
    int s = *authdeck_quit_slot();
    *authdeck_quit_slot() = 0;
    return s;
}
static inline void authdeck_restore_quit_handlers(void) {
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
}
#endif
