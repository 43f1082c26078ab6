/* SPDX-License-Identifier: MIT */
/* Names the JSON report and the trace must escape: a file named by #line
   with a tab, a control byte, a quote, a backslash, UTF-8 (é), a blank,
   a % and the byte 0x7f, and a function whose name is UTF-8 (fé). */
#include <stdlib.h>
void *keep;
#line 7 "t\tab\001\"q\\\303\251 50%\177.c"
void *f\u00e9(void) { return malloc(3); }
int main(void)
{
    keep = f\u00e9();
    return 0;
}
