# SPDX-License-Identifier: MIT
# tests/model/build.sh - sourced by tests/model/run.sh and tests/modelfaults.sh:
# model_build USE LEVEL builds the driver at LEVEL, in the library use (USE
# lib: -DMTRACE_LIB, -lmtrace) or in the one-line use (USE header: the
# runtime compiled in), as $TMP/driver-USE-LEVEL, its compiler's words in
# $TMP/build-USE-LEVEL.log.  It is compiled from its own directory ($HERE)
# so that its sites are `driver.c:LINE`, as the models expect, and with
# frame pointers and no tail calls, so that MTRACE_DEPTH runs walk every
# caller (doc/guide.md "Call stacks").  Needs TOP, HERE, TMP, CC, CFLAGS_T.
model_build() {
    local use=$1 level=$2 traced linked
    if [ "$use" = lib ]; then
        traced="-DMTRACE_LIB -include $TOP/mtrace.h" linked="-L$TOP -Wl,-rpath,$TOP -lmtrace"
    else
        traced="-include $TOP/mtrace.h" linked=
    fi
    (cd "$HERE" && $CC $CFLAGS_T -fno-omit-frame-pointer -DMTRACE_FRAME_POINTERS -fno-optimize-sibling-calls \
        -Wall -Wextra -DMTRACE=$level $traced driver.c \
        -o "$TMP/driver-$use-$level" $linked -lpthread) > "$TMP/build-$use-$level.log" 2>&1
}
