#!/bin/sh
# SPDX-License-Identifier: MIT
# fuzz/ms_print.sh [SECONDS] [JOBS] - build the libFuzzer harness for
# ms_print (ASan+UBSan) and run it for SECONDS (default 60) with JOBS
# parallel workers (default 1).  Seeds come from fuzz/seeds-ms_print/
# (committed); the working corpus is fuzz/corpus-ms_print/ (not committed);
# the binary is build/fuzz_ms_print.  A crash is written as fuzz/crash-*;
# turn each into a regression case: strip its first byte (the option
# selector, see fuzz_ms_print.c) into tests/ms_print/fuzz/NAME.massif.out and
# put the options in NAME.args (see doc/ms_print.md); tests/ms_print.sh
# runs them.
set -eu
cd "$(dirname "$0")/.."
secs=${1:-60}
jobs=${2:-1}
if ! echo 'int LLVMFuzzerTestOneInput(const char*d,long n){return 0;}' |
     clang -fsanitize=fuzzer -x c - -o /dev/null 2>/dev/null; then
    echo "libFuzzer runtime missing: apt-get install libclang-rt-14-dev" >&2
    exit 1
fi
mkdir -p build fuzz/corpus-ms_print
clang -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
    -fno-sanitize-recover=all -Wall -Wextra \
    -o build/fuzz_ms_print fuzz/fuzz_ms_print.c convert/ms_print/ms_print_*.c convert/common/tool.c
cp -n fuzz/seeds-ms_print/* fuzz/corpus-ms_print/ 2>/dev/null || true
extra=""
[ "$jobs" -gt 1 ] && extra="-jobs=$jobs -workers=$jobs"
# libFuzzer's progress lines go to a log outside build/ (make clean removes
# build/ while we run); the summary is printed at the end.
log=$(mktemp "${TMPDIR:-/tmp}/fuzz_ms_print.XXXXXX")
# shellcheck disable=SC2086
build/fuzz_ms_print fuzz/corpus-ms_print -max_total_time="$secs" -timeout=10 \
    -rss_limit_mb=2048 -max_len=65536 -artifact_prefix=fuzz/ \
    -print_final_stats=1 $extra > "$log" 2>&1 && status=0 || status=$?
grep -E '^(stat::|#[0-9]+.*DONE|==[0-9]+==ERROR|SUMMARY|INFO: Seed)' "$log" || tail -20 "$log"
ls fuzz/crash-* fuzz/timeout-* fuzz/oom-* 2>/dev/null || echo "no crashes"
rm -f "$log"
exit $status
