#!/bin/bash
# SPDX-License-Identifier: MIT
# floor.sh - the floors that tracing cannot go under, as markdown tables,
# BENCH_RUNS rounds (default 5), medians:
#  1. bench/floor.c: what ordering the figures of every call costs when
#     threads allocate at once, apart from the tracer: each mode (a lock,
#     atomics, delegation, stamped per-thread rings merged) with 1, 2
#     and 4 threads, ns per call of one thread, wall and CPU; then in
#     issue 29's two threaded shapes (pools changing hands, a producer
#     and a consumer), 1 and 2 threads;
#  2. level 1: what writing the trace's bytes costs apart from making
#     them: churn, bigtree and the JSON workloads at levels 0, 2 and 1
#     (libmtrace.so of this tree), with a writer that formats nothing
#     (ring only), and one that burns as much CPU and formats nothing
#     (a busy writer), and the same trace copied by dd in 512 KiB writes
#     (the tracer's own) into a new file beside it.
#  3. bench/miss.c: what reading a random entry of a side table costs, at
#     the size of the tracer's table for live-small (10 k blocks, 0.5 MB)
#     and live-large (10 M blocks, 290 MB).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d /tmp/mtrace-floor.XXXXXX) || exit 2
trap 'rm -rf "$W"' EXIT
${CC:-cc} -O2 -Wall -Wextra -o "$W/floor" "$TOP/bench/floor.c" -pthread || exit 2
runs=${BENCH_RUNS:-5}
# median FILE COLUMN: of the rounds in FILE
median() { sort -n -k"$2,$2" "$1" | sed -n "$(( (runs + 1) / 2 ))p" | cut -d' ' -f"$2"; }
ratio() { echo "scale=2; $1 / $2" | bc; }
# measure ARGS...: the floor program run `runs` times; its medians in $wall and $cpu
measure() {
    local r
    for r in $(seq "$runs"); do "$W/floor" "$@" || exit 1; done > "$W/out"
    wall=$(median "$W/out" 3) cpu=$(median "$W/out" 4)
}
# two_counts LABEL N1 N2 wall|cpu MODE [CALLS [SHAPE]]: a table row, MODE with N1
# threads then N2, and the ratio of the second's wall or CPU time to the first's
two_counts() {
    local label=$1 n1=$2 n2=$3 field=$4 first row
    shift 4
    measure "$n1" "$@"
    first=${!field} row="| $label | $wall / $cpu"
    measure "$n2" "$@"
    echo "$row | $wall / $cpu | $(ratio "${!field}" "$first")× |"
}
echo "- machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo "- load average at the start: $(cut -d' ' -f1-3 /proc/loadavg); $runs rounds, medians"
echo
echo "| figures kept | 1 thread wall / CPU ns | 2 threads wall / CPU ns | 4 threads wall / CPU ns |"
echo "|---|---|---|---|"
for mode in private atomic spin yield spinyield combine stamp ticket; do
    row="| $mode"
    for n in 1 2 4; do
        measure "$n" "$mode"
        row="$row | $wall / $cpu"
    done
    echo "$row |"
done
echo
echo "wall: ns per call of one thread (each thread makes the same number of calls);"
echo "CPU: CPU time of all threads / all calls. private: per-thread figures, no order"
echo "(the unreachable ideal); atomic: atomic adds and CAS peaks on shared lines;"
echo "spin: a lock whose waiters spin; yield: mtrace's lock (spin, yield every other turn)."
echo "spinyield: a lock whose waiters spin up to 256 pauses, then yield."
echo "combine: flat combining, each thread posts its change in a slot of its own and"
echo "whichever thread holds the lock applies every posted one (delegation)."
echo "stamp: no lock; each thread stamps its change with the processor's clock into a"
echo "ring of its own and a merger thread applies all rings in stamp order (CPU"
echo "includes the merger's). ticket: the same, stamped by one shared atomic counter."

# --- 1b. The same, in issue 29's two threaded shapes (bench/shapes.c's
# shapes at floor.c's cost): pools of 2,500 blocks changing hands between 8
# long rounds, and a producer whose blocks a consumer frees.
echo
echo "A longer ordered section: the same with FLOOR_WORK=N dependent reads of a 4 MiB"
echo "table in each call's ordered work (the tracer's table probe misses the cache"
echo "about once a call); CPU per call with 4 threads against 1, the measure of issue 29"
echo
echo "| figures kept | reads | 1 thread wall / CPU ns | 4 threads wall / CPU ns | CPU 4T / 1T |"
echo "|---|---|---|---|---|"
for work in 1 2; do
    for mode in yield combine stamp; do
        FLOOR_WORK=$work two_counts "$mode | $work" 1 4 cpu "$mode" 2000000
    done
done
echo
echo "The same in issue 29's shapes (ns per call; pools: each thread makes the calls,"
echo "handoff: the calls are shared by the pair, so 2 threads do the work of 1)"
echo
echo "| shape | figures kept | 1 thread wall / CPU ns | 2 threads wall / CPU ns | 2T / 1T wall |"
echo "|---|---|---|---|---|"
for shape in pools handoff; do
    for mode in private yield spinyield combine stamp ticket; do
        two_counts "$shape | $mode" 1 2 wall "$mode" 4000000 "$shape"
    done
done

# --- 2. Level 1: the writing
# ms: wall milliseconds of a command, its output thrown away, timed as
# `make bench` times (bench/timeit.c: fork, exec and wait, nothing else; two
# `date` processes and the shell's fork around it added about 15 ms to every
# figure, which made the ratios look smaller than make bench's).  A failed
# command fails the run.
"${CC:-cc}" -O2 -o "$W/timeit" "$TOP/bench/timeit.c" || exit 2
ms() {
    "$W/timeit" "$W/time1" "$@" > /dev/null 2>&1
    awk '{ printf "%d\n", $1 * 1000 + 0.5 } $5 != 0 { exit 1 }' "$W/time1" ||
        { echo "floor.sh: failed: $*" >&2; touch "$W/failed"; }
}

# Level 0 is the plain program, built as make bench builds it: linked with
# libmtrace it ran mtrace's malloc interposers (15% slower on churn), and
# every ratio below looked smaller than make bench's.
for prog in churn json bigtree; do
    ${CC:-cc} -O2 -I"$TOP/bench" -o "$W/$prog-0" "$TOP/bench/$prog.c" -pthread || exit 2
    for l in 2 1; do
        ${CC:-cc} -O2 -I"$TOP/bench" -DMTRACE=$l -DMTRACE_LIB -include "$TOP/mtrace.h" -o "$W/$prog-$l" \
            "$TOP/bench/$prog.c" -pthread -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace || exit 2
    done
done
# variant DIR CODE MARK: a copy of the tracer in DIR, built, whose
# mtrace_format_op runs CODE (holding MARK) first: the programs find it
# first by LD_LIBRARY_PATH, their RUNPATH coming after it.
variant() {
    mkdir -p "$1" && cp -r "$TOP/mtrace.h" "$TOP/mtrace.c" "$TOP/runtime" "$1/" || exit 2
    sed -i "s|^    char \\*o = mt.buf + mt.len, \\*t;\$|&\\n    $2  /* bench/floor.sh: $3 */|" "$1/runtime/write.c"
    grep -q "bench/floor.sh: $3" "$1/runtime/write.c" ||
        { echo "floor.sh: runtime/write.c: mtrace_format_op's first line changed: update variant()" >&2; exit 2; }
    make -s -C "$1" -f "$TOP/Makefile" libmtrace.so > /dev/null || exit 2
}
# The floor of the writer's design: the same level 1 programs with a
# libmtrace whose writer takes every entry off the ring and formats and
# writes none.  What is left is what the program's thread pays: the
# table, the figures, the entry in the ring, and the ring's lines going
# to the writer's core.
R=$W/ringonly
variant "$R" 'if (o) return o;' 'nothing formatted'
# The same with a writer as busy as the real one, doing nothing that touches
# memory: 25 dependent multiplications an entry (about 85 cycles, what the
# real writer spends formatting an entry of churn's), then nothing formatted.
# Between it and the ring alone: what the other core being busy costs the
# program's core (the two vCPUs share what the host gives them).
Y=$W/busy
variant "$Y" '{ static volatile uint64_t floor_sink __attribute__((unused)); uint64_t x = total; int i; for (i = 0; i < 25; i++) x = x * 6364136223846793005ULL + 1; floor_sink = x; if (o) return o; }' \
    'busy, nothing formatted'
echo
echo "Level 1: what writing the trace costs, apart from making it (wall ms, medians)"
echo
echo "| workload | level 0 | level 2 | ring only | ring, busy writer | level 1 | trace | dd of the trace | ring only / level 0 | ring, busy writer / level 0 | level 1 / level 0 |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for wl in "churn 8000000" "bigtree 5000000 1" "json records 10" "json config 40" "json strings 10" \
          "json numbers 20" "json deep 10"; do
    set -- $wl
    prog=$1
    shift
    for r in $(seq "$runs"); do
        rm -f "$W/trace" "$W/copy"
        echo "$(ms "$W/$prog-0" "$@") $(ms env MTRACE="$W/trace.2" "$W/$prog-2" "$@")" \
             "$(ms env LD_LIBRARY_PATH="$R" MTRACE="$W/trace.r" "$W/$prog-1" "$@")" \
             "$(ms env LD_LIBRARY_PATH="$Y" MTRACE="$W/trace.y" "$W/$prog-1" "$@")" \
             "$(ms env MTRACE="$W/trace" "$W/$prog-1" "$@")" \
             "$(ms dd if="$W/trace" of="$W/copy" bs=512k)"
    done > "$W/times"
    [ -e "$W/failed" ] && exit 1
    grep -q '^[-+] ' "$W/trace.r" "$W/trace.y" && { echo "floor.sh: a ring-only library wrote records" >&2; exit 1; }
    l0=$(median "$W/times" 1) l2=$(median "$W/times" 2) lr=$(median "$W/times" 3) ly=$(median "$W/times" 4)
    l1=$(median "$W/times" 5) dd=$(median "$W/times" 6)
    records=$(grep -c '^[-+<>] ' "$W/trace")
    echo "| $prog $* | $l0 | $l2 | $lr | $ly | $l1 | $(( $(stat -c %s "$W/trace") / 1000000 )) MB, $records records |" \
         "$dd | $(ratio "$lr" "$l0")× | $(ratio "$ly" "$l0")× | $(ratio "$l1" "$l0")× |"
    [ "$prog" = json ] && echo "$(ratio "$lr" "$l0") $(ratio "$l1" "$l0") $(ratio "$l2" "$l0") $(ratio "$ly" "$l0")" >> "$W/json"
    rm -f "$W/trace" "$W/copy" "$W/trace.r" "$W/trace.y"
done
awk '{ r += log($1); l += log($2); t += log($3); y += log($4); n++ }
     END { printf "\nJSON geomean (its 5 workloads): level 2 %.2f×, ring only %.2f×, ring with a busy writer %.2f×, level 1 %.2f×\n",
           exp(t / n), exp(r / n), exp(y / n), exp(l / n) }' "$W/json"
echo
echo "Ring only: the level 1 program with a writer that takes every entry off the ring"
echo "and formats and writes none, the floor of making records off the program's"
echo "thread. Ring, busy writer: the same writer burning about the real one's CPU an"
echo "entry in multiplications, touching no memory: what the other core being busy"
echo "costs the program's core, the floor of this design with a writer that works."
echo "Level 1 above it is what formatting and writing take beyond being busy (the"
echo "memory they stream). dd copies the trace, read from the page cache, with the tracer's"
echo "writes (512 KiB) into a new file in the same directory: the kernel's share of"
echo "level 1, which the writer now pays on its core."

# --- 3. A side table's miss
${CC:-cc} -O2 -Wall -Wextra -I"$TOP/bench" -o "$W/miss" "$TOP/bench/miss.c" || exit 2
echo
echo "A side table's random entry (bench/miss.c, ns per read, medians)"
echo
echo "| entries | table | chained (one miss at a time) | independent (overlapped) |"
echo "|---|---|---|---|"
for n in 30000 18000000; do
    for r in $(seq "$runs"); do "$W/miss" "$n" 5000000 || exit 1; done > "$W/out"
    echo "| $n | $(awk -v n="$n" 'BEGIN { printf "%.1f MB", n * 16 / 1e6 }') | $(median "$W/out" 6) |" \
         "$(median "$W/out" 9) |"
done
echo
echo "Freeing a block chosen at random reads its entry, which no recent operation"
echo "brought in: between these two costs, by how much the processor overlaps it."
