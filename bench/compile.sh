#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/compile.sh - what the one-line use costs in compile time on one
# small file: bench/churn.c compiled alone (cc -c, no link) plainly and
# with -DMTRACE=1 -include mtrace.h, which compiles the whole runtime into
# the file with the file's own flags.
#
#   make bench-compile [COMPILE_RUNS=5] [COMPILE_REVS="d430840 ..."]
#   (or: COMPILE_RUNS=5 COMPILE_REVS=... bench/compile.sh)
#
# Each of gcc and clang (those installed), at -O0, -O2 and -O2 -g,
# compiles the file COMPILE_RUNS times (default 5) with every tracer
# measured: the working tree's (or MTRACE_REV's, a commit) and each
# commit of COMPILE_REVS, taken from git as bench/build.sh takes them; in
# rounds, the order rotating from one round to the next, so that a slow
# moment of a shared machine hits them all.  Prints markdown on stdout:
# the median CPU time (user + system of the compiler, bench/timeit.c) of
# each, and for each commit of COMPILE_REVS the median over the rounds of
# the tree's time / that commit's time in the same round.
# Exit status 1 if a compile fails.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${COMPILE_RUNS:-5}
case $RUNS in ''|*[!0-9]*|0) echo "COMPILE_RUNS must be a positive number" >&2; exit 2 ;; esac
W=$(mktemp -d "${TMPDIR:-/tmp}/mtrace-compile.XXXXXX") || exit 2
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
say() { echo "compile.sh: $*" >&2; }
T0=$(date +%s) LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
cc -O2 -o "$W/timeit" "$TOP/bench/timeit.c" || exit 2

# snapshot NAME REV: the tracer of commit REV in $W/NAME (the working tree's without REV)
snapshot() {
    mkdir -p "$W/$1" || exit 2
    if [ -n "$2" ]; then
        # shellcheck disable=SC2046   # runtime/ when the commit has one, else nothing
        git -C "$TOP" archive "$2" mtrace.h mtrace.c $(git -C "$TOP" ls-tree --name-only "$2" runtime) |
            tar -x -C "$W/$1" || { echo "compile.sh: cannot take the tracer of $2 from git" >&2; exit 2; }
    else
        cp -r "$TOP/mtrace.h" "$TOP/mtrace.c" "$TOP/runtime" "$W/$1/" || exit 2
    fi
}
snapshot tree "${MTRACE_REV:-}"
if [ -n "${MTRACE_REV:-}" ]; then TREE="$(git -C "$TOP" log -1 --format=%h "$MTRACE_REV")"
elif git -C "$TOP" rev-parse --verify -q HEAD > /dev/null 2>&1; then
    TREE="$(git -C "$TOP" log -1 --format=%h)$(git -C "$TOP" diff --quiet HEAD -- mtrace.c mtrace.h runtime || echo ' + changes')"
else TREE="(not a git checkout)"; fi
TRACERS=(tree) REVS=()
for r in ${COMPILE_REVS:-}; do
    h=$(git -C "$TOP" rev-parse --short "$r^{commit}") || exit 2
    snapshot "$h" "$h"
    TRACERS+=("$h") REVS+=("$h")
done
COMPILERS=()
for c in gcc clang; do command -v "$c" > /dev/null && COMPILERS+=("$c"); done
FLAGS=("-O0" "-O2" "-O2 -g")

: > "$W/res"
fail=0
# compile ROUND CC FLAGS TRACER: one compile, "KEY ROUND CPU" appended to the results
compile() {
    local key="$2|${3// /_}|$4" inc=
    [ "$4" = plain ] || inc="-DMTRACE=1 -include $W/$4/mtrace.h"
    # shellcheck disable=SC2086
    if ! (cd "$TOP" && "$W/timeit" "$W/t" "$2" $3 -Ibench $inc -c -o "$W/churn.o" bench/churn.c); then
        echo "compile.sh: $2 $3 (${4}) failed" >&2; fail=1; return
    fi
    read -r _ user sys _ status < "$W/t"
    [ "$status" = 0 ] || { echo "compile.sh: $2 $3 ($4): exit status $status" >&2; fail=1; return; }
    echo "$key $1 $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.3f", u + s }')" >> "$W/res"
}
ALL=(plain "${TRACERS[@]}")
say "$RUNS round(s) of: ${COMPILERS[*]} x ${#FLAGS[@]} flags x (${ALL[*]})"
for r in $(seq "$RUNS"); do
    for c in "${COMPILERS[@]}"; do for f in "${FLAGS[@]}"; do
        for i in "${!ALL[@]}"; do
            compile "$r" "$c" "$f" "${ALL[(i + r - 1) % ${#ALL[@]}]}"
        done
    done; done
done
# median KEY: of that key's times; ratio KEY_A KEY_B: median of the per-round A / B
median() {
    awk -v k="$1" '$1 == k { print $3 }' "$W/res" | sort -g |
        awk '{ v[NR] = $1 } END { if (NR) printf "%.2f", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
ratio() {
    awk -v a="$1" -v b="$2" '$1 == a { x[$2] = $3 } $1 == b { y[$2] = $3 }
        END { for (r in x) if (r in y && y[r] > 0) print x[r] / y[r] }' "$W/res" | sort -g |
        awk '{ v[NR] = $1 } END { if (NR) printf "%.2f", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
echo "## Compile cost of one small file: bench/churn.c, the one-line use"
echo
echo "- machine: $(nproc) cores, $(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo); load at the start: $LOAD0"
for c in "${COMPILERS[@]}"; do echo "- $c: $("$c" --version | head -n 1)"; done
echo "- tracer: the tree at $TREE$([ ${#REVS[@]} -gt 0 ] && echo "; against ${REVS[*]}")"
echo "- CPU seconds (user + system) of \`CC FLAGS -Ibench [-DMTRACE=1 -include mtrace.h] -c bench/churn.c\`, median of $RUNS rounds"
echo
head="| compiler, flags | plain |"
rule="|---|---|"
for t in "${REVS[@]}"; do head="$head $t |"; rule="$rule---|"; done
head="$head tree |"; rule="$rule---|"
for t in "${REVS[@]}"; do head="$head tree / $t |"; rule="$rule---|"; done
echo "$head"; echo "$rule"
for c in "${COMPILERS[@]}"; do for f in "${FLAGS[@]}"; do
    k="$c|${f// /_}"
    line="| $c $f | $(median "$k|plain") |"
    for t in "${REVS[@]}"; do line="$line $(median "$k|$t") |"; done
    line="$line $(median "$k|tree") |"
    for t in "${REVS[@]}"; do line="$line $(ratio "$k|tree" "$k|$t")× |"; done
    echo "$line"
done; done
echo
echo "- load at the end: $(cut -d' ' -f1-3 /proc/loadavg); $(($(date +%s) - T0)) s in all"
exit $fail
