#!/bin/bash
# floor.sh - runs bench/floor.c (what ordering the figures of every call
# costs when threads allocate at once, apart from the tracer): each mode
# with 1, 2 and 4 threads, BENCH_RUNS rounds (default 5), medians, as a
# markdown table: ns per call of one thread, wall and CPU.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d /tmp/mtrace-floor.XXXXXX) || exit 2
trap 'rm -rf "$W"' EXIT
${CC:-cc} -O2 -Wall -Wextra -o "$W/floor" "$TOP/bench/floor.c" -pthread || exit 2
runs=${BENCH_RUNS:-5}
echo "- machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo "- load average at the start: $(cut -d' ' -f1-3 /proc/loadavg); $runs rounds, medians"
echo
echo "| figures kept | 1 thread wall / CPU ns | 2 threads wall / CPU ns | 4 threads wall / CPU ns |"
echo "|---|---|---|---|"
for mode in private atomic spin yield; do
    row="| $mode"
    for n in 1 2 4; do
        for r in $(seq "$runs"); do "$W/floor" "$n" "$mode" || exit 1; done > "$W/out"
        mid=$(( (runs + 1) / 2 ))
        row="$row | $(sort -k3,3n "$W/out" | sed -n "${mid}p" | cut -d' ' -f3) / $(sort -k4,4n "$W/out" | sed -n "${mid}p" | cut -d' ' -f4)"
    done
    echo "$row |"
done
echo
echo "wall: ns per call of one thread (each thread makes the same number of calls);"
echo "CPU: CPU time of all threads / all calls. private: per-thread figures, no order"
echo "(the unreachable ideal); atomic: atomic adds and CAS peaks on shared lines;"
echo "spin: a lock whose waiters spin; yield: mtrace's lock (spin, yield every other turn)."
