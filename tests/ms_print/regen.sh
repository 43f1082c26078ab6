#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/ms_print/regen.sh - rebuild the golden files of tests/ms_print.sh.
#
#   real/NAME.massif.out   Massif files from real valgrind runs of progs/*
#   hand/NAME.massif.out   hand-written edge cases (kept, not regenerated)
#   expected/NAME.K.out    /usr/bin/ms_print's stdout for option set K
#
# Run from anywhere; needs valgrind, gcc, g++ and /usr/bin/ms_print.  The
# real files change with the compiler and libc, so regenerate both the
# inputs and the expected outputs together, never one without the other.
set -eu
cd "$(dirname "$0")"
B=$(mktemp -d)
trap 'rm -rf "$B"' EXIT

. ./optsets.sh

build() {
    for c in progs/*.c; do gcc -g -O0 -pthread -o "$B/$(basename "$c" .c)" "$c"; done
    g++ -g -O0 -o "$B/lambda" progs/lambda.cpp
}

massif() { # NAME PROG [massif options...]
    local name=$1 prog=$2; shift 2
    (cd "$B" && valgrind -q --tool=massif --massif-out-file="$name.massif.out" "$@" "./$prog" >/dev/null 2>&1)
    cp "$B/$name.massif.out" "real/$name.massif.out"
}

if [ "${1:-}" != --expected-only ]; then
    mkdir -p real
    rm -f real/*.massif.out
    build
    massif manual-tB manual --time-unit=B
    massif manual-ti manual
    massif manual-ms-df1 manual --time-unit=ms --detailed-freq=1
    massif deep-tB deep --time-unit=B --depth=60
    massif deep-stacks deep --stacks=yes --time-unit=B --max-snapshots=40 --depth=50
    massif insig-tB insig --time-unit=B
    massif insig-t0 insig --time-unit=B --threshold=0 --detailed-freq=3
    massif realloc-df1 realloc --time-unit=B --detailed-freq=1 --threshold=0
    massif realloc-pages realloc --pages-as-heap=yes --max-snapshots=30
    massif churn-tB churn --time-unit=B
    massif churn-ms10 churn --max-snapshots=10 --detailed-freq=2
    massif lambda-tB lambda --time-unit=B --threshold=0.1
    massif threads-stacks threads --stacks=yes --max-snapshots=30
    massif sleepy-ms sleepy --time-unit=ms --detailed-freq=4
fi

mkdir -p expected
rm -f expected/*.out
for f in real/*.massif.out hand/*.massif.out; do
    name=$(basename "$f" .massif.out)
    for k in $(seq 0 $((NSETS - 1))); do
        mapfile -t args < <(optset "$k" "$f")
        /usr/bin/ms_print "${args[@]}" > "expected/$name.$k.out" 2>/dev/null || true
    done
done
# rejected files: stdout is empty or just the preamble
for f in bad/*.massif.out; do
    /usr/bin/ms_print "$f" > "expected/bad.$(basename "$f" .massif.out).out" 2>/dev/null || true
done
du -sh real hand bad expected
