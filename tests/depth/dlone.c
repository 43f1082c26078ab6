/* SPDX-License-Identifier: MIT */ /* The first of two libraries built without mtrace that dlhost.c loads,
   one after the other, at one address (tests/depth.sh): a call back into
   the program, and more code after it, so that its text reaches past
   every return address of the second one (dltwo.c). */
void *p1_call(void *(*f)(int), int n);
int p1_spare(int n);
void *p1_call(void *(*f)(int), int n)
{
    void *p = f(n);
    __asm__ volatile("" ::: "memory");
    return p;
}
int p1_spare(int n)     /* room: p1's code reaches past p2's */
{
    volatile int a[64];
    int i;
    for (i = 0; i < 64; i++)
        a[i] = n * i + (i ^ n) - (n >> (i & 7));
    for (i = 0; i < 64; i++)
        n += a[i] * (i + 1) - a[(i * 7) & 63];
    return n;
}
