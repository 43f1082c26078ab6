/* SPDX-License-Identifier: MIT */
/* When MAXRSS is sampled (trace-format.md: "first record, every 1024th,
   and after operations of >= 1 MiB").  Between records the program
   touches 16 MiB of its own mapping (untraced), so a sample shows as a
   jump of 16 MiB: record 1 (1 MiB - 1 byte) shows none, record 2 (1 MiB)
   does, record 1023 none, record 1024 does. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
static void touch(void)
{
    size_t n = (size_t)16 << 20;
    char *m = mmap(0, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m != MAP_FAILED)
        memset(m, 1, n);                /* kept mapped: resident until exit */
}
static void *keep[1022];
int main(void)
{
    void *a = malloc(16);               /* record 0 */
    touch();
    void *b = malloc((1 << 20) - 1);    /* record 1 */
    void *c = malloc(1 << 20);          /* record 2 */
    touch();
    for (int i = 0; i < 1021; i++)
        keep[i] = malloc(1);            /* records 3 to 1023 */
    touch();
    keep[1021] = malloc(1);             /* record 1024 */
    for (int i = 0; i < 1022; i++)
        free(keep[i]);
    free(a), free(b), free(c);
    return 0;
}
