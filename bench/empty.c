/* SPDX-License-Identifier: MIT */
/* bench/empty.c - a program that does nothing: bench/run.sh runs it under
   heaptrack and Massif to measure their start-up, which it subtracts from
   their times on the workloads (issue 12: honest peer figures). */
#include "common.h"

int main(void)
{
    report(0, 0);
    return 0;
}
