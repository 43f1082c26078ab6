/* SPDX-License-Identifier: MIT */ /* An untraced library: an atfork handler that allocates, registered in
   its constructor, posix_memalign done where mtrace cannot see it, and
   _exit called from code without mtrace. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
static void prepare(void) { free(malloc(32)); }
__attribute__((constructor)) static void plain_init(void)
{
    pthread_atfork(prepare, 0, 0);
}
void *plain_memalign(size_t align, size_t n);
void *plain_memalign(size_t align, size_t n)
{
    void *q = 0;
    return posix_memalign(&q, align, n) == 0 ? q : 0;
}
void plain_exit(int status);
void plain_exit(int status)
{
    _exit(status);
}
