/* SPDX-License-Identifier: MIT */
/* top_screen.c - the terminal: its mode (no echo, keys one by one; Ctrl-C
 * and the other signals that end mtrace-top set a flag, so that the mode
 * is restored before it exits), a snapshot drawn in place with ANSI
 * escapes only (cursor home, erase to the end of the line and of the
 * screen; no curses), cut to the window, and the keys ('q').
 * Owns: the terminal's state.  Calls: nothing of the others. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "top_screen.h"

static struct termios saved;
static int have_saved;
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
    stop_signal = sig;
}

void screen_start(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;      /* no SA_RESTART: poll returns */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGQUIT, &sa, NULL);
    if (isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved) == 0) {
        struct termios t = saved;
        have_saved = 1;
        t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
        t.c_cc[VMIN] = 0;
        t.c_cc[VTIME] = 0;
        tcsetattr(STDIN_FILENO, TCSANOW, &t);
    }
    fputs("\033[?25l\033[H\033[2J", stdout);   /* hide the cursor, clear */
    fflush(stdout);
}

void screen_end(void)
{
    fputs("\033[?25h", stdout);     /* the cursor back, below the last snapshot */
    fflush(stdout);
    if (have_saved)
        tcsetattr(STDIN_FILENO, TCSANOW, &saved);
    have_saved = 0;
}

void screen_size(size_t *rows, size_t *cols)
{
    struct winsize ws;
    *rows = 24, *cols = 80;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
        *rows = ws.ws_row, *cols = ws.ws_col;
}

/* The bytes of line[0..n) that fit cols columns (a character a column:
 * UTF-8 continuation bytes take none). */
static size_t fit(const char *line, size_t n, size_t cols)
{
    size_t used = 0, i = 0;
    for (; i < n; i++) {
        if (((unsigned char)line[i] & 0xc0) != 0x80 && used++ == cols)
            break;
    }
    return i;
}

void screen_draw(const char *text, size_t len, size_t rows, size_t cols)
{
    size_t row = 0;
    fputs("\033[H", stdout);
    for (const char *p = text, *end = text + len; p < end && row + 1 < rows; row++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        fwrite(p, 1, fit(p, n, cols), stdout);
        fputs("\033[K\n", stdout);
        p += n + (nl != NULL);
    }
    fputs("\033[J", stdout);
    fflush(stdout);
}

int screen_wait(double seconds)
{
    struct pollfd pfd = { STDIN_FILENO, POLLIN, 0 };
    int ms = (int)(seconds * 1000 + 0.5);
    if (stop_signal)
        return SCREEN_QUIT;
    int r = poll(&pfd, have_saved ? 1 : 0, ms);
    if (stop_signal)
        return SCREEN_QUIT;
    if (r > 0 && (pfd.revents & POLLIN)) {
        char keys[64];
        ssize_t n = read(STDIN_FILENO, keys, sizeof keys);
        if (n > 0 && memchr(keys, 'q', (size_t)n))
            return SCREEN_QUIT;
        if (n == 0)     /* the terminal is gone */
            return SCREEN_QUIT;
        return SCREEN_KEY;
    }
    return SCREEN_TIME;
}

int screen_signal(void)
{
    return stop_signal;
}
