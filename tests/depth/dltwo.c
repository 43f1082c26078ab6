/* SPDX-License-Identifier: MIT */ /* The second library built without mtrace that dlhost.c loads, where
   dlone.c was (tests/depth.sh): a call back into the program. */
static int pad(int n) { return n * 3 + 1; }
int (*volatile p2_pad)(int) = pad;
void *p2_make(void *(*f)(int), int n);
void *p2_make(void *(*f)(int), int n)
{
    void *p = f(p2_pad(n) - 2 * n - 1);
    __asm__ volatile("" ::: "memory");
    return p;
}
