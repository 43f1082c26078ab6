#!/bin/sh
# SPDX-License-Identifier: MIT
# fuzz/mtrace2massif.sh [SECONDS] - fuzz mtrace2massif with libFuzzer under
# ASan+UBSan (default 600 s).  The corpus grows in fuzz/corpus-mtrace2massif/
# (not committed), starting from fuzz/seeds-mtrace2massif/; the binary is
# build/fuzz_mtrace2massif; crashes are written as fuzz/crash-*.  A crash becomes a regression test: add the input
# to tests/mtrace2massif/ and a check to tests/mtrace2massif.sh.
set -e
cd "$(dirname "$0")"
SECS=${1:-600}
if ! echo 'int LLVMFuzzerTestOneInput(const char*d,long n){return 0;}' |
     clang -fsanitize=fuzzer -x c - -o /dev/null 2>/dev/null; then
    echo "libFuzzer runtime missing: apt-get install libclang-rt-14-dev" >&2
    exit 1
fi
mkdir -p ../build corpus-mtrace2massif
clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
    -o ../build/fuzz_mtrace2massif fuzz_mtrace2massif.c ../convert/mtrace2massif/m2m_*.c \
    ../convert/trace/*.c ../convert/html/m2m_html_page.c ../convert/common/tool.c
../build/fuzz_mtrace2massif -max_total_time="$SECS" -max_len=4096 -print_final_stats=1 \
    -artifact_prefix=./crash- corpus-mtrace2massif seeds-mtrace2massif
