#ifndef AUTHDECK_CTERMINALSIGNALS_H
#define AUTHDECK_CTERMINALSIGNALS_H
/*
 * The terminal's signal state: the SIGINT/SIGTERM/SIGHUP quit flag and its wake pipe, and the
 * crash path's saved terminal modes and restore string.
 *
 * Why a C target and not the CNCurses shim: this state must exist exactly once in the process
 * (the handler writes it, the UI loop reads it). A `static` in a header (file scope, or a local in
 * a `static inline` function) gets one copy per place the header is compiled into, so in a
 * release build, where the UI loop is specialised into the executable, the handler set one copy
 * and the loop read another. The variables below are defined once, in
 * TerminalSignals.c; this header declares functions only. Every function is async-signal-safe
 * where its comment says a handler uses it.
 */
#include <stddef.h>

/* Installs SIGINT, SIGTERM and SIGHUP handlers that record the signal and write one byte to a
   non-blocking, close-on-exec pipe (created on first use, kept for the process's lifetime), so a
   loop sleeping in poll(2) wakes whichever thread the kernel delivers the signal to. Clears any
   earlier recorded signal. Returns the pipe's read end for poll(2), or -1 without a pipe (the
   loop still sees the flag on EINTR). */
int authdeck_quit_signals_install(void);

/* The signal recorded since the last call (0 if none); empties the wake pipe. */
int authdeck_quit_signal_take(void);

/* After newterm: SIGWINCH runs ncurses's own handler (so the next read returns KEY_RESIZE), then
   writes to the same wake pipe, so a resize redraws at once whichever thread the kernel delivers
   the signal to (measured without it: up to the next tick, 3 s in one of three runs). Undone by
   authdeck_quit_signals_restore. */
void authdeck_resize_signal_install(void);

/* Puts SIGINT, SIGTERM and SIGHUP back to their default action. */
void authdeck_quit_signals_restore(void);

/* Unblocks SIGINT, SIGTERM, SIGHUP, SIGWINCH and SIGCONT in the calling thread: a parent may have
   started us with them blocked (e.g. spawned from a libdispatch worker, whose mask is inherited
   across exec), and the loop relies on them arriving. */
void authdeck_ui_signals_unblock(void);

/* Remembers the terminal modes of `fd` (call before newterm) for the crash path. */
void authdeck_crash_restore_save_termios(int fd);

/* Installs the crash handlers (SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE): on a crash they
   restore the saved modes on stdin, write `restore` (the terminal's rmcup + cnorm + sgr0, at most
   255 bytes; a longer one is not kept, never a cut escape sequence) to stdout, then re-raise with
   the default action. Only async-signal-safe calls (tcsetattr, write, signal, raise). */
void authdeck_crash_restore_install(const char *restore, size_t length);

/* Undoes authdeck_crash_restore_install (after endwin). */
void authdeck_crash_restore_remove(void);

/* A prompt that turns echo off calls this first with its terminal's descriptor: the terminal's
   modes are saved, and SIGINT, SIGTERM or SIGHUP until authdeck_prompt_guard_end restore them
   (and end the line) before the signal ends the process with its default action — Ctrl-C at a
   passphrase prompt never leaves the shell without echo. Returns -1 when `fd` is not a terminal. */
int authdeck_prompt_guard_begin(int fd);

/* Puts back the handlers authdeck_prompt_guard_begin replaced. */
void authdeck_prompt_guard_end(void);

/* `authdeck exec`: installs handlers for SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM
   and SIGCHLD that write two bytes per signal to a non-blocking, close-on-exec pipe: the signal number,
   and 1 when the kernel itself sent it (si_code SI_KERNEL: the terminal's Ctrl-C, Ctrl-\ or
   hangup, which reach the child in our process group without us), else 0 (kill(1) from another
   process, to be passed on). Unblocks those signals in the calling thread. Returns the pipe's read
   end, or -1 when no pipe could be made; SIGPIPE is ignored from then on (the child gets its default
   action back). Call once, before the child is spawned. */
int authdeck_relay_signals_install(void);

#endif
