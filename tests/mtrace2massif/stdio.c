/* SPDX-License-Identifier: MIT */ /* The manual's example plus one printf to a pipe: the C library allocates
 * stdout's buffer inside printf, where mtrace cannot see it, and Valgrind
 * frees it at exit (its "freeres").  Massif's file therefore has the same
 * rows as ours plus two at the end; doc/mtrace2massif.md explains. */
#include <stdio.h>
#include <stdlib.h>

void g(void)
{
   malloc(4000);
}

void f(void)
{
   malloc(2000);
   g();
}

int main(void)
{
   int i;
   int* a[10];

   for (i = 0; i < 10; i++) {
      a[i] = malloc(1000);
   }

   f();

   g();

   for (i = 0; i < 10; i++) {
      free(a[i]);
   }

   printf("done\n");
   return 0;
}
