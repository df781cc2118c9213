// The one definition of the terminal's signal state (see include/CTerminalSignals.h).
#include "CTerminalSignals.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

enum { RESTORE_MAX = 256 };

static volatile sig_atomic_t quit_signal = 0;
static int wake_pipe[2] = { -1, -1 };

static struct termios saved_termios;
static volatile sig_atomic_t have_termios = 0;
static char restore_bytes[RESTORE_MAX];
static volatile sig_atomic_t restore_length = 0;

static const int quit_signals[] = { SIGINT, SIGTERM, SIGHUP };
static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE };
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void quit_handler(int sig) {
    int saved = errno;
    quit_signal = sig;
    if (wake_pipe[1] >= 0) {
        char byte = 1;
        ssize_t ignored = write(wake_pipe[1], &byte, 1); /* a full pipe already means "wake up" */
        (void)ignored;
    }
    errno = saved;
}

/* ncurses's own SIGWINCH handler (it makes the next read return KEY_RESIZE), called first. */
static struct sigaction ncurses_winch;
static volatile sig_atomic_t have_ncurses_winch = 0;

static void winch_handler(int sig) {
    int saved = errno;
    if (have_ncurses_winch && ncurses_winch.sa_handler != SIG_DFL && ncurses_winch.sa_handler != SIG_IGN) {
        ncurses_winch.sa_handler(sig);
    }
    if (wake_pipe[1] >= 0) {
        char byte = 1;
        ssize_t ignored = write(wake_pipe[1], &byte, 1);
        (void)ignored;
    }
    errno = saved;
}

static int make_wake_pipe(void) {
    if (wake_pipe[0] >= 0) return 0;
    int fds[2];
    if (pipe(fds) != 0) return -1;
    for (int i = 0; i < 2; i++) {
        fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
        fcntl(fds[i], F_SETFD, FD_CLOEXEC);
    }
    wake_pipe[0] = fds[0];
    wake_pipe[1] = fds[1];
    return 0;
}

int authdeck_quit_signals_install(void) {
    (void)make_wake_pipe();
    (void)authdeck_quit_signal_take();
    for (size_t i = 0; i < COUNT(quit_signals); i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = quit_handler;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = 0; /* no SA_RESTART: poll() in the signalled thread returns EINTR */
        sigaction(quit_signals[i], &sa, NULL);
    }
    return wake_pipe[0];
}

void authdeck_resize_signal_install(void) {
    (void)make_wake_pipe();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = winch_handler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    struct sigaction previous;
    if (sigaction(SIGWINCH, &sa, &previous) == 0 && previous.sa_handler != winch_handler) {
        ncurses_winch = previous;
        have_ncurses_winch = 1;
    }
}

int authdeck_quit_signal_take(void) {
    if (wake_pipe[0] >= 0) {
        char buf[64];
        while (read(wake_pipe[0], buf, sizeof buf) > 0) {}
    }
    int sig = quit_signal;
    quit_signal = 0;
    return sig;
}

void authdeck_quit_signals_restore(void) {
    for (size_t i = 0; i < COUNT(quit_signals); i++) signal(quit_signals[i], SIG_DFL);
    if (have_ncurses_winch) {
        sigaction(SIGWINCH, &ncurses_winch, NULL);
        have_ncurses_winch = 0;
    }
}

void authdeck_ui_signals_unblock(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGWINCH);
    sigaddset(&set, SIGCONT);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static void crash_handler(int sig) {
    if (have_termios) tcsetattr(STDIN_FILENO, TCSANOW, &saved_termios);
    if (restore_length > 0) {
        ssize_t ignored = write(STDOUT_FILENO, restore_bytes, (size_t)restore_length);
        (void)ignored;
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void authdeck_crash_restore_save_termios(int fd) {
    if (tcgetattr(fd, &saved_termios) == 0) have_termios = 1;
}

void authdeck_crash_restore_install(const char *restore, size_t length) {
    if (restore == NULL) length = 0;
    if (length >= RESTORE_MAX) length = 0; /* never a cut escape sequence */
    if (length > 0) memcpy(restore_bytes, restore, length);
    restore_length = (sig_atomic_t)length;
    for (size_t i = 0; i < COUNT(crash_signals); i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = crash_handler;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND;
        sigaction(crash_signals[i], &sa, NULL);
    }
}

void authdeck_crash_restore_remove(void) {
    for (size_t i = 0; i < COUNT(crash_signals); i++) signal(crash_signals[i], SIG_DFL);
}

/* The prompt guard: a terminal whose echo a prompt turned off gets its modes back when SIGINT,
   SIGTERM or SIGHUP ends the process during the prompt. */
static struct termios prompt_saved;
static volatile sig_atomic_t prompt_fd = -1;
static struct sigaction prompt_previous[3];

static void prompt_handler(int sig) {
    if (prompt_fd >= 0) {
        tcsetattr(prompt_fd, TCSAFLUSH, &prompt_saved);
        ssize_t ignored = write(prompt_fd, "\n", 1);
        (void)ignored;
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

int authdeck_prompt_guard_begin(int fd) {
    if (tcgetattr(fd, &prompt_saved) != 0) return -1;
    prompt_fd = fd;
    for (size_t i = 0; i < COUNT(quit_signals); i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = prompt_handler;
        sigemptyset(&sa.sa_mask);
        sigaction(quit_signals[i], &sa, &prompt_previous[i]);
    }
    return 0;
}

void authdeck_prompt_guard_end(void) {
    for (size_t i = 0; i < COUNT(quit_signals); i++) sigaction(quit_signals[i], &prompt_previous[i], NULL);
    prompt_fd = -1;
}

/* `authdeck exec`'s relay (see the header). */
static int relay_pipe[2] = { -1, -1 };
static const int relay_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGCHLD };

static void relay_handler(int sig, siginfo_t *info, void *context) {
    (void)context;
    int saved = errno;
    unsigned char record[2] = { (unsigned char)sig, (unsigned char)(info != NULL && info->si_code == SI_KERNEL) };
    ssize_t ignored = write(relay_pipe[1], record, sizeof record); /* a full pipe drops a repeat */
    (void)ignored;
    errno = saved;
}

int authdeck_relay_signals_install(void) {
    if (relay_pipe[0] < 0) {
        int fds[2];
        if (pipe(fds) != 0) return -1;
        for (int i = 0; i < 2; i++) {
            fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
            fcntl(fds[i], F_SETFD, FD_CLOEXEC);
        }
        relay_pipe[0] = fds[0];
        relay_pipe[1] = fds[1];
    }
    sigset_t unblock;
    sigemptyset(&unblock);
    for (size_t i = 0; i < COUNT(relay_signals); i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = relay_handler;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_SIGINFO | SA_RESTART | (relay_signals[i] == SIGCHLD ? SA_NOCLDSTOP : 0);
        sigaction(relay_signals[i], &sa, NULL);
        sigaddset(&unblock, relay_signals[i]);
    }
    pthread_sigmask(SIG_UNBLOCK, &unblock, NULL);
    /* A write to a closed stderr must not end the parent and orphan the child (the child gets the
       default action back at exec). */
    signal(SIGPIPE, SIG_IGN);
    return relay_pipe[0];
}
