# SPDX-License-Identifier: MIT
# tests/model/build.sh - sourced by tests/model/run.sh, tests/modelfaults.sh and tests/modelcxx.sh:
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

# model_verdicts SUITE SCRIPT STATUS: the model script's verdicts
# ($TMP/verdicts: "PASS|FAIL GROUP text", "INFO text") as the suite's
# checks, each group's title from the suite's own `title GROUP`; a script
# that stopped (STATUS not 0) without a FAIL line is one failure too.
# Shared by tests/modelfaults.sh and tests/modelcxx.sh.
model_verdicts() {
    local suite=$1 script=$2 status=$3 line verdict rest group
    while IFS= read -r line; do
        verdict=${line%% *} rest=${line#* }
        group=${rest%% *}
        case $verdict in
            PASS) pass "$(title "$group") ${rest#"$group" }" ;;
            FAIL) fail "$(title "$group"): ${rest#"$group" }" ;;
            INFO) printf '     %s\n' "${line#INFO }" ;;
            *) printf '     %s\n' "$line" ;;
        esac
    done < "$TMP/verdicts"
    grep -q '^FAIL' "$TMP/verdicts" || [ "$status" = 0 ] || fail "$suite: $script stopped with status $status and no FAIL line"
}
