/* SPDX-License-Identifier: MIT */
/* top_screen.h - mtrace-top's terminal (top_screen.c). */
#ifndef TOP_SCREEN_H
#define TOP_SCREEN_H

#include <stddef.h>
#include <stdio.h>

/* The terminal made ready (keys without echo, the signals that end
 * mtrace-top caught, the screen cleared); screen_end restores it. */
void screen_start(void);
void screen_end(void);
/* The window's size (24 x 80 if unknown). */
void screen_size(size_t *rows, size_t *cols);
/* The text's lines drawn from the top left, each cut to cols, rows - 1
 * at most, the rest of the screen erased. */
void screen_draw(const char *text, size_t len, size_t rows, size_t cols);
/* Waits up to `seconds` for a key: SCREEN_QUIT ('q', or a signal caught),
 * SCREEN_KEY (another: draw now), SCREEN_TIME. */
enum { SCREEN_TIME, SCREEN_KEY, SCREEN_QUIT };
int screen_wait(double seconds);
/* The signal caught (SIGINT...), or 0. */
int screen_signal(void);

#endif
