/* SPDX-License-Identifier: MIT */ /* Allocations spread over wall-clock time, for --time-unit=ms. */
#include <stdlib.h>
#include <time.h>

int main(void)
{
    void *p[20];
    struct timespec ts = { 0, 15 * 1000 * 1000 };
    for (int i = 0; i < 20; i++) {
        p[i] = malloc(1000 * (size_t)(i + 1));
        nanosleep(&ts, NULL);
    }
    for (int i = 0; i < 20; i += 2)
        free(p[i]);
    return 0;
}
