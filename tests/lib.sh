# SPDX-License-Identifier: MIT
# tests/lib.sh - the whole test harness: counters and a few assertions.
# Each suite (tests/*.sh) sources this, calls the helpers, then `finish`.
# Every assertion prints one line ("ok   name" or "FAIL name" plus why).
T_PASS=0
T_FAIL=0
TOP=$(cd "$(dirname "$0")/.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mtrace-test.XXXXXX")
# MTRACE_TEST_KEEP=1 keeps the directory, to read what a failed check saw
if [ -n "${MTRACE_TEST_KEEP:-}" ]; then echo "kept: $TMP"; else trap 'rm -rf "$TMP"' EXIT; fi

# For the suites that build traced programs: the compiler, the flags
# (TEST_CFLAGS: sanitized under `make test-sanitize`), whether ASan is on,
# and ASan's options (the traced programs leak on purpose: LSan stays off).
CC=${CC:-cc}
CFLAGS_T=${TEST_CFLAGS:--g -O1}
case $CFLAGS_T in *sanitize=address*) ASAN=1 ;; *) ASAN= ;; esac
export ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=0

pass() { T_PASS=$((T_PASS + 1)); echo "ok   $*"; }
fail() { T_FAIL=$((T_FAIL + 1)); echo "FAIL $*"; }

# nasan ASSERTION...: an assertion that holds only without AddressSanitizer
# in the traced programs (`make test-sanitize`): ASan takes over the checks of
# double and invalid frees (doc/limits.md), and a libmtrace built with it
# cannot be linked into plain or clang-built programs.  Skipped under it,
# not counted.
nasan() { [ -n "$ASAN" ] || "$@"; }

# replays TRACE [notail]: TRACE checked against itself, record by record
# (tests/tracer/replay.awk; `notail`: a trace cut short, no gnuplot lines);
# its verdict in TRACE.replay, printed when it fails
replays() { awk -f "$TOP/tests/tracer/replay.awk" ${2:+-v notail=1} "$1" > "$1.replay" || { cat "$1.replay"; return 1; }; }

# check NAME CMD...: passes when CMD exits 0
check() { local name=$1; shift; if "$@"; then pass "$name"; else fail "$name"; fi; }

# same NAME EXPECTED_FILE ACTUAL_FILE: passes when the files are byte-identical
same() {
    if cmp -s "$2" "$3"; then pass "$1"; else
        fail "$1"; diff -u "$2" "$3" | head -20 | sed 's/^/     /'; fi
}

# has NAME FILE PATTERN: passes when FILE has a line matching the fixed string
has() { if grep -qF -- "$3" "$2"; then pass "$1"; else fail "$1: no '$3' in $2"; fi; }
hasnt() { if grep -qF -- "$3" "$2"; then fail "$1: unexpected '$3' in $2"; else pass "$1"; fi; }

finish() {
    echo "$(basename "$0" .sh): $T_PASS passed, $T_FAIL failed"
    [ -n "${RESULTS:-}" ] && echo "$T_PASS $T_FAIL" >> "$RESULTS"
    [ "$T_FAIL" -eq 0 ]
}
