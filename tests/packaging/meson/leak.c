/* SPDX-License-Identifier: MIT */ #include <stdlib.h>
#include <string.h>

int main(void)
{
    char *kept = strdup("kept");
    return kept == NULL;
}
