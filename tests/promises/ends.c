/* SPDX-License-Identifier: MIT */
/* How a program ends, for the JSON report (report-json.md: "a program
   ended by _exit or a signal writes none"; "a relative name is taken
   from the working directory at start-up").  Argument: exit, _exit,
   signal (SIGTERM, default action), or chdir (to ./away, then exit). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
void *keep;
int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "exit";
    keep = malloc(10);
    if (!strcmp(how, "_exit"))
        _exit(0);
    if (!strcmp(how, "signal"))
        raise(SIGTERM);
    if (!strcmp(how, "chdir") && chdir("away") != 0)
        return 2;
    return 0;
}
