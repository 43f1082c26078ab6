#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/gaps.sh - checks that `make mutate` (tests/mutate/run.sh)
# found missing: each block kills mutants of tests/mutate/mutants.txt
# (named in brackets) that the fast suites (stacks, ci, depth, hardening,
# ecosystem, mtrace2massif, ms_print) let live.  Most of them no suite
# kills at all; some the model suites kill too, more slowly (tests/model
# in 25-45 s, tests/convmodel: mutants.txt names them second), and the
# MTRACE_FREED_MAX ones partly tests/tracer.sh's new budget check (minutes).
# Small traced programs, built against libmtrace as tests/ci.sh builds
# them, and hand-written traces and Massif files for the tools.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 2
# build NAME [flags]: NAME.c (in $TMP: sites named NAME.c:LINE) into $TMP/NAME
# at level 3, or $MTRACE_LEVEL
build() {
    local name=$1; shift
    $CC $CFLAGS_T -O0 "$@" -DMTRACE=${MTRACE_LEVEL:-3} -DMTRACE_LIB -include "$TOP/mtrace.h" "$name.c" \
        -o "$TMP/$name" -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace -lpthread
}
# run NAME BIN [VAR=value...] [-- ARGS]: BIN's stdout, stderr, status in $TMP/NAME.{out,err,rc}
run() {
    local name=$1 bin=$2 args=; shift 2
    local vars=()
    while [ $# -gt 0 ]; do
        if [ "$1" = -- ]; then shift; args="$*"; break; fi
        vars+=("$1"); shift
    done
    (env "${vars[@]}" MTRACE=$name.trace "$TMP/$bin" $args > $name.out 2> $name.err < /dev/null
     echo $? > $name.rc) 2> /dev/null      # (no "Aborted" from the shell)
}
rc() { [ "$(cat "$TMP/$1.rc")" = "$2" ] || { echo "     exit status $(cat "$TMP/$1.rc"), expected $2"; return 1; }; }
# json FILE EXPR: EXPR of the report r (a Python expression), printed
json() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1"; }
# line_of FILE MARKER: the line number of the line with MARKER
line_of() { grep -n -- "$2" "$1" | head -n 1 | cut -d: -f1; }

# --- malloc called from code mtrace does not see (a library built without
#     it) keeps the C library's contract for sizes no allocator can give:
#     NULL and ENOMEM, never the tracer's own memory (the runtime's probe
#     for its interposer asks one of them)  [internal.h:const:296d57e1]
cat > untraced.c <<'EOT'
#include <stdlib.h>
void *untraced_malloc(size_t n)
{
    return malloc(n);
}
EOT
cat > huge.c <<'EOT'
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
void *untraced_malloc(size_t n);
int main(void)
{
    static const size_t below[] = { 4097, 4096, 4095, 4094, 1 };
    unsigned i;
    for (i = 0; i < sizeof below / sizeof below[0]; i++) {
        void *p;
        errno = 0;
        p = untraced_malloc((size_t)0 - below[i]);
        printf("SIZE_MAX + 1 - %zu: %s\n", below[i], !p && errno == ENOMEM ? "NULL, ENOMEM" : "a block");
    }
    return 0;
}
EOT
$CC $CFLAGS_T -fPIC -shared untraced.c -o "$TMP/libuntraced.so"
# (as build does, the library after the program's file that needs it)
$CC $CFLAGS_T -O0 -DMTRACE=3 -DMTRACE_LIB -include "$TOP/mtrace.h" huge.c -o "$TMP/huge" \
    -L"$TMP" -Wl,-rpath,"$TMP" -luntraced -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace
run huge huge
for k in 4097 4096 4095 4094 1; do echo "SIZE_MAX + 1 - $k: NULL, ENOMEM"; done > huge.expected
same "untraced malloc of sizes near SIZE_MAX: NULL and ENOMEM, each" huge.expected huge.out

# --- the peak is the FIRST record that reaches it: a 0-byte block first
#     (total 0, no peak), then 100 bytes twice  [peak-first-record]
cat > peak.c <<'EOT'
#include <stdlib.h>
int main(void)
{
    char *z = malloc(0);
    char *a = malloc(100);
    free(a);
    a = malloc(100);
    free(a);
    free(z);
    return 0;
}
EOT
build peak
run peak peak MTRACE_MAX_HEAP=50 MTRACE_REPORT=peak.json
has "peak reached twice: the budget names the first record that reached it" peak.err \
    "*** MTRACE: error: peak traced memory 100 bytes exceeds the budget of 50 (at record 1)"
check "peak reached twice: JSON peak_record is that record (1)" test "$(json peak.json 'r["peak_record"]')" = 1

# --- the program's own status is kept when it leaks: only 0 becomes 1
#     [status-program]
cat > status.c <<'EOT'
#include <stdlib.h>
char *lost;
int main(void)
{
    lost = malloc(7);
    lost = 0;
    return 3;
}
EOT
build status
run status status MTRACE_REPORT=status.json
check "a leak and exit status 3: the status stays 3" rc status 3
has "a leak and exit status 3: the leak is reported" status.err "status.c:5: error: 7 bytes in 1 block leaked here (in main)"
check "a leak and exit status 3: JSON program_status and exit_status are 3" \
    test "$(json status.json '"%d %d" % (r["program_status"], r["exit_status"])')" = "3 3"

# --- pools: MTRACE_FREELIKE twice is a double free; with MTRACE_DEPTH a
#     pool block's leak shows its callers; growing the range's bucket keeps
#     its tombstones  [pool-double-free, pool-no-stacks, grow-keeps-tombstones]
cat > pool.c <<'EOT'
#include <stdlib.h>
static char arena[1024];
static size_t used;
static void *get(size_t n)
{
    void *p = arena + used;
    used += 64;
    MTRACE_MALLOCLIKE(p, n);            /* POOLSITE */
    return p;
}
static __attribute__((noinline)) void *outer(void)
{
    return get(16);                     /* OUTER */
}
int main(int argc, char **argv)
{
    void *a = get(32), *b;
    int i;
    MTRACE_FREELIKE(a);                 /* FIRSTFREE */
    if (argc > 1 && argv[1][0] == 't')  /* twice */
        MTRACE_FREELIKE(a);             /* SECONDFREE */
    b = outer();
    if (argc > 1 && argv[1][0] == 'g') {        /* grow: more blocks in the range, then again */
        for (i = 0; i < 8; i++)
            get(16);
        MTRACE_FREELIKE(a);             /* THIRDFREE */
    }
    return b == 0;
}
EOT
build pool -fno-omit-frame-pointer -DMTRACE_FRAME_POINTERS
l2=$(line_of pool.c SECONDFREE) l1=$(line_of pool.c FIRSTFREE) ls=$(line_of pool.c POOLSITE)
run pooldf pool MTRACE_DOUBLE_FREE=continue -- twice
has "pool: MTRACE_FREELIKE of a freed block is a double free" pooldf.err "pool.c:$l2: error: double free of a block (in main)"
has "pool: ... first freed at the first MTRACE_FREELIKE" pooldf.err "pool.c:$l1: note: and first freed here (in main)"
has "pool: ... counted at exit" pooldf.err "*** MTRACE: 1 double free ignored"
check "pool: ... exit status 1" rc pooldf 1
run pooldfa pool -- twice
check "pool: a double free aborts without MTRACE_DOUBLE_FREE=continue" rc pooldfa 134
run poolgrow pool MTRACE_DOUBLE_FREE=continue MTRACE_FREED_MAX=16 -- grow
has "pool: a double free after the range's bucket grew is still seen (MTRACE_FREED_MAX=16)" poolgrow.err \
    "pool.c:$(line_of pool.c THIRDFREE): error: double free of a block (in main)"
run poolok pool
has "pool: the leaked pool block is reported" poolok.err "pool.c:$ls: error: 16 bytes in 1 block leaked here"
check "pool: no double free without it" sh -c "! grep -q 'double free' '$TMP/poolok.err'"
# MTRACE_DOUBLE_FREE=continue: the program goes on traced after the report
# (which names its places while the program runs): a block leaked after it
# is reported  [names.c:stmt:2ac963e5]
cat > after.c <<'EOT'
#include <stdlib.h>
char *keep;
int main(void)
{
    char *p = malloc(8);
    free(p);
    free(p);                            /* TWICE */
    keep = malloc(21);                  /* AFTER */
    keep = 0;
    return 0;
}
EOT
build after
run after after MTRACE_DOUBLE_FREE=continue
has "continue: the double free reported" after.err "after.c:$(line_of after.c TWICE): error: double free of a block (in main)"
has "continue: a block leaked after it is still traced" after.err "after.c:$(line_of after.c AFTER): error: 21 bytes in 1 block leaked here (in main)"
# a pool that ran dry announces a null block: traced like a malloc that
# returned NULL (mtrace(7)), no block, no leak  [annotate.c:cond:ddb5a6ee]
cat > pooldry.c <<'EOT'
#include <stdlib.h>
static void *get(size_t n)
{
    void *p = NULL;                     /* nothing left */
    MTRACE_MALLOCLIKE(p, n);
    return p;
}
int main(void)
{
    return get(100) != NULL;
}
EOT
MTRACE_LEVEL=1 build pooldry
run pooldry pooldry
check "pool: a null block announced is no block: no leak, exit status 0" rc pooldry 0
has "pool: ... No memory leaks" pooldry.err "*** MTRACE: No memory leaks"
if command -v addr2line > /dev/null; then
    run pooldepth pool MTRACE_DEPTH=4
    has "pool with MTRACE_DEPTH=4: the leak's callers are shown" pooldepth.err "note: called from outer"
fi
cp pool.c pool1.c
MTRACE_LEVEL=1 build pool1 -fno-omit-frame-pointer -DMTRACE_FRAME_POINTERS
run pooltrace pool1 MTRACE_DEPTH=4
check "pool with MTRACE_DEPTH=4: its records carry a stack (SID)" \
    sh -c "awk '/^#pool/ {p[\$2] = 1} /^\\+ / && (\$2 in p) && \$7 > 0 {found = 1} END {exit !found}' '$TMP/pooltrace.trace'"

# --- the tombstone budget, MTRACE_FREED_MAX: N blocks freed, CYCLES
#     malloc/free of one other block (its address comes back each time),
#     then a second free of block WHICH.  With a budget of 16 the frees of
#     an epoch are 1: over 16 tombstones, those 15 epochs old or more are
#     forgotten (37 frees: at the 17th, 20th ... 35th, 3 each: 21)
#     [freed-max-boundary, freed-epochs-advance, freed-forget-keep,
#      freed-too-old, freed-forgotten-count, freed-max-default,
#      freed-max-floor, forgotten-line-level2, reuse-tombstone-count,
#      status-double-free, double-free-continue, json-double-frees]
cat > tomb.c <<'EOT'
#include <stdlib.h>
int main(int argc, char **argv)
{
    int n = atoi(argv[1]), cycles = atoi(argv[2]), which = atoi(argv[3]), i;
    char *p[64];
    (void)argc;
    for (i = 0; i < n; i++)
        p[i] = malloc(24);
    for (i = 0; i < n; i++)
        free(p[i]);
    for (i = 0; i < cycles; i++)
        free(malloc(200));
    if (which >= 0)
        free(p[which]);                 /* DOUBLE */
    return 0;
}
EOT
MTRACE_LEVEL=2 build tomb
ld=$(line_of tomb.c DOUBLE)
# tomb NAME [VAR=value...] -- N CYCLES WHICH: continuing after double frees
tomb() { local name=$1; shift; run $name tomb MTRACE_DOUBLE_FREE=continue "$@"; }
caught() { grep -q "tomb.c:$ld: error: double free of a block (in main)" "$TMP/$1.err" && grep -qx "\*\*\* MTRACE: 1 double free ignored" "$TMP/$1.err" && rc $1 1; }
tomb t16 MTRACE_FREED_MAX=16 MTRACE_REPORT=t16.json -- 16 0 0
nasan check "MTRACE_FREED_MAX=16, 16 freed: the first one's double free is caught" caught t16
hasnt "MTRACE_FREED_MAX=16, 16 freed: none forgotten" t16.err "forgotten"
nasan check "a double free, continuing: JSON double_frees 1, invalid_frees 0, program_status 0, exit_status 1" \
    test "$(json t16.json '"%d %d %d %d" % (r["double_frees"], r["invalid_frees"], r["program_status"], r["exit_status"])')" = "1 0 0 1"
tomb t37 MTRACE_FREED_MAX=16 MTRACE_REPORT=t37.json -- 37 0 36
nasan has "MTRACE_FREED_MAX=16, 37 freed: 21 forgotten, said in the summary" t37.err \
    "*** MTRACE: 21 freed blocks forgotten (MTRACE_FREED_MAX=16): a double free of one of them would have gone unseen"
nasan check "MTRACE_FREED_MAX=16, 37 freed: JSON freed_forgotten 21" test "$(json t37.json 'r["freed_forgotten"]')" = 21
nasan check "MTRACE_FREED_MAX=16, 37 freed: the last one's double free is caught" caught t37
tomb t1 MTRACE_FREED_MAX=1 -- 37 0 36
nasan has "MTRACE_FREED_MAX=1 keeps 16: 21 of 37 forgotten" t1.err "*** MTRACE: 21 freed blocks forgotten (MTRACE_FREED_MAX=16)"
tomb tdef -- 37 0 0
nasan check "default MTRACE_FREED_MAX, 37 freed: the first one's double free is caught" caught tdef
hasnt "default MTRACE_FREED_MAX, 37 freed: none forgotten" tdef.err "forgotten"
tomb tcyc MTRACE_FREED_MAX=16 -- 10 30 0
nasan check "MTRACE_FREED_MAX=16, 10 freed, then an address freed and given back 30 times: 11 tombstones, the first double free caught" caught tcyc
hasnt "... none forgotten" tcyc.err "forgotten"

# --- the same budget over hundreds of 64 KiB ranges, freed in a scattered
#     order: forgetting an epoch reads only the ranges its frees left
#     tombstones in (runtime/blocks.c, mtrace_forget_oldest); the count
#     forgotten is the documented rule's, simulated here (an epoch is
#     budget/16 frees; over the budget, the tombstones 15 epochs old or
#     more go), and a block freed 14 epochs ago is still caught
#     [freed-sets-unlisted, freed-sets-stale]
cat > spread.c <<'EOT'
#include <stdlib.h>
int main(int argc, char **argv)
{
    long n = atol(argv[1]), back = atol(argv[2]), i;
    char **p = malloc((size_t)n * sizeof *p);
    (void)argc;
    for (i = 0; i < n; i++)
        p[i] = malloc(i % 8 ? 24 : 20000);      /* about 26 blocks a range */
    for (i = 0; i < n; i++)
        free(p[i * 7919 % n]);
    if (back > 0)
        free(p[(n - back) * 7919 % n]);         /* DOUBLE */
    free(p);
    return 0;
}
EOT
MTRACE_LEVEL=2 build spread
lsp=$(line_of spread.c DOUBLE)
# forgotten BUDGET FREES: what the rule forgets of FREES tombstones made in turn
forgotten() {
    awk -v b="$1" -v n="$2" 'BEGIN { size = int(b / 16); left = size; e = 0; kept = 0; lo = 0
        for (f = 1; f <= n; f++) {
            count[e]++; kept++
            if (--left == 0) { e++; left = size }
            if (kept > b)
                for (; lo <= e - 15; lo++) { gone += count[lo]; kept -= count[lo]; count[lo] = 0 }
        }
        print gone + 0 }'
}
for budget in 1024 4000; do
    run spread$budget spread MTRACE_DOUBLE_FREE=continue MTRACE_FREED_MAX=$budget -- 30000 $((budget * 14 / 16 - 1))
    want=$(forgotten $budget 30001)
    nasan has "MTRACE_FREED_MAX=$budget, 30,001 frees over hundreds of ranges: the rule's $want forgotten" \
        spread$budget.err "*** MTRACE: $want freed blocks forgotten (MTRACE_FREED_MAX=$budget)"
    nasan has "MTRACE_FREED_MAX=$budget: the block freed $((budget * 14 / 16 - 1)) frees before the last is caught" \
        spread$budget.err "spread.c:$lsp: error: double free of a block (in main)"
done
check "the rule as simulated: 37 frees, budget 16: 21 forgotten (as above)" test "$(forgotten 16 37)" = 21

# --- suppressions on a program compiled with its directory (files named
#     with it: ci/cache.c, relative to the directory the program runs
#     in, as every path of the report), the line rule, the malformed lines
#     [supp-basename, supp-line-ignored, supp-line-parse, supp-fun-empty,
#      json-suppressed-flag, json-live-blocks]
mkdir -p "$TMP/ci" && cp "$TOP/tests/ci/cache.c" "$TOP/tests/ci/vendor.h" "$TMP/ci/"
$CC $CFLAGS_T -O0 -DMTRACE=3 -DMTRACE_LIB -include "$TOP/mtrace.h" "$TMP/ci/cache.c" -o "$TMP/cache" \
    -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace
$CC $CFLAGS_T -O0 -DMTRACE=1 -DMTRACE_LIB -include "$TOP/mtrace.h" "$TMP/ci/cache.c" -o "$TMP/cache1" \
    -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace
run whole cache
check "compiled as $TMP/ci/cache.c, run in $TMP: the sites are named ci/cache.c" \
    grep -qx 'ci/cache.c:16: error: 10 bytes in 1 block leaked here (in main)' whole.err
printf 'src:vendor.h\nsrc:cache.c:16\n' > s1
run s1 cache MTRACE_SUPPRESS=s1
check "src:vendor.h and src:cache.c:16 match the last component: all suppressed, status 0" \
    sh -c "test \"\$(cat '$TMP/s1.err')\" = '*** MTRACE: 310 bytes in 2 blocks suppressed' && test \"\$(cat '$TMP/s1.rc')\" = 0"
printf 'src:ci/vendor.h\nsrc:*/cache.c:16\n' > s2
run s2 cache MTRACE_SUPPRESS=s2
check "src:ci/vendor.h (a pattern with '/') matches the whole path" \
    sh -c "test \"\$(cat '$TMP/s2.err')\" = '*** MTRACE: 310 bytes in 2 blocks suppressed'"
printf 'fun:vendor_*\nsrc:cache.c:17\n' > s3
run s3 cache MTRACE_SUPPRESS=s3
has "src:cache.c:17: does not take the leak at line 16" s3.err "cache.c:16: error: 10 bytes in 1 block leaked here (in main)"
has "src:cache.c:17: a suppression that matched nothing" s3.err "s3:2: warning: suppression matched no leak"
check "src:cache.c:17: exit status 1" rc s3 1
printf 'fun:vendor_*\nsrc:cache.c:16x\n' > s4
run s4 cache MTRACE_SUPPRESS=s4
has "src:cache.c:16x: not a line number, a file pattern that matches nothing" s4.err "cache.c:16: error: 10 bytes in 1 block leaked here (in main)"
has "src:cache.c:16x: said to have matched nothing" s4.err "s4:2: warning: suppression matched no leak"
printf 'fun:\nfun:vendor_*\n' > s5
run s5 cache MTRACE_SUPPRESS=s5
has "fun: with no name: a malformed line" s5.err "*** MTRACE: s5:1: not a suppression (fun:NAME, src:FILE or src:FILE:LINE): fun:"
has "fun: with no name: the next line still applies" s5.err "300 bytes in 1 blocks suppressed"
printf 'fun:main\n' > s6
run s6 cache MTRACE_SUPPRESS=s6 MTRACE_REPORT=s6.json
check "JSON: suppressed is true only for a site with live bytes (fun:main: cache.c:16 yes, :11 and :12 no)" \
    test "$(json s6.json '" ".join("%d:%s" % (s["line"], s["suppressed"]) for s in r["sites"])')" = "11:False 12:False 5:False 16:True"
check "JSON: live_blocks are the blocks still live (cache.c:11 and :12 freed: 0)" \
    test "$(json s6.json '" ".join("%d:%d" % (s["line"], s["live_blocks"]) for s in r["sites"])')" = "11:0 12:0 5:1 16:1"

# --- blocks, not sites: a site that leaks two blocks, suppressed or not
#     [suppressed-blocks, leaked-blocks, site-peak-value]
cat > two.c <<'EOT'
#include <stdlib.h>
char *keep[2];
int main(void)
{
    int i;
    for (i = 0; i < 2; i++)
        keep[i] = malloc(10);           /* TWO */
    return 0;
}
EOT
build two
printf 'fun:main\n' > two.supp
run twosupp two MTRACE_SUPPRESS=two.supp MTRACE_REPORT=twosupp.json
has "one site, two blocks suppressed: counted as 2 blocks" twosupp.err "*** MTRACE: 20 bytes in 2 blocks suppressed"
check "... JSON suppressed_blocks 2" test "$(json twosupp.json 'r["suppressed_blocks"]')" = 2
run twoleak two MTRACE_REPORT=twoleak.json
check "one site, two blocks leaked: JSON leaked_bytes 20, leaked_blocks 2" \
    test "$(json twoleak.json '"%d %d" % (r["leaked_bytes"], r["leaked_blocks"])')" = "20 2"
check "one site, two blocks: its peak is both (JSON peak_bytes 20, live_blocks 2)" \
    test "$(json twoleak.json '"%d %d" % (r["sites"][0]["peak_bytes"], r["sites"][0]["live_blocks"])')" = "20 2"

# --- the calls' sizes and records: calloc counts n*s, strdup the
#     terminator, a realloc'd block belongs to the realloc's site,
#     realloc(p, 0) frees, reallocarray(NULL, ...) is '+' and realloc(NULL,
#     ...) '>', a realloc of a freed block is a double free; the JSON's
#     records are the trace's  [calloc-size, strdup-terminator,
#     realloc-keeps-site, realloc-zero-frees, reallocarray-record,
#     realloc-double, json-records]
cat > calls.c <<'EOT'
#include <stdlib.h>
#include <string.h>
static void *volatile launder;
static void *hide(void *p) { launder = p; return launder; }
char *keep[4];
int main(int argc, char **argv)
{
    void *null = argv[argc], *p;
    keep[0] = calloc(3, 7);                 /* CALLOC: 21 */
    keep[1] = strdup("abc");                /* STRDUP: 4 */
    p = malloc(10);                         /* MALLOC */
    keep[2] = realloc(p, 20);               /* REALLOC: the block is this site's now */
    p = malloc(30);                         /* ZERO */
    p = realloc(p, 0);                      /* REALLOC0: frees */
    keep[3] = reallocarray(null, 2, 8);     /* RARRAY: '+' */
    p = realloc(null, 16);                  /* RNULL: '>' */
    free(p);
    if (argc > 1) {
        p = malloc(40);
        free(p);                            /* FREED */
        p = realloc(hide(p), 50);           /* REALLOCFREED */
    }
    return 0;
}
EOT
MTRACE_LEVEL=1 build calls
run calls calls MTRACE_REPORT=calls.json
for m in CALLOC:21 REALLOC:20 RARRAY:16 STRDUP:4; do
    echo "calls.c:$(line_of calls.c "/\* ${m%:*}"): error: ${m#*:} bytes in 1 block leaked here (in main)"
done > calls.want
grep ': error: ' calls.err > calls.got
same "calloc 3 x 7, strdup of 3, realloc'd at its own site, realloc(p, 0) freed: the leaks" calls.want calls.got
# first OP of the site at MARKER in the trace
first_op() { awk -v l="$(line_of calls.c "/\* $1")" '$1 == "@" && $5 == l {id = $2} $1 ~ /^[-+<>]$/ && $2 == id {print $1; exit}' calls.trace; }
check "reallocarray(NULL, 2, 8) writes '+', realloc(NULL, 16) '>'" test "$(first_op RARRAY) $(first_op RNULL)" = "+ >"
check "JSON records: the trace's records" test "$(json calls.json 'r["records"]')" = "$(grep -c '^[-+<>] ' calls.trace)"
run calls2 calls MTRACE_DOUBLE_FREE=continue -- again
nasan has "realloc of a freed block: a double free" calls2.err \
    "calls.c:$(line_of calls.c REALLOCFREED): error: double free: realloc of a block already freed (in main)"
nasan has "realloc of a freed block: first freed by the free" calls2.err "calls.c:$(line_of calls.c '/\* FREED'): note: and first freed here (in main)"

# --- invalid frees, continuing: each kind named at the call, counted,
#     exit status 1  [invalid-interior, invalid-largest, invalid-static,
#     invalid-unmapped, invalid-mmap, invalid-realloc, status-invalid-free,
#     json-invalid-frees]
cat > bad.c <<'EOT'
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
static char data[64] = "static";
static void *volatile launder;
static void *hide(void *p) { launder = p; return launder; }
int main(int argc, char **argv)
{
    char local[64], *p = 0, *q = 0;
    const char *m = argc > 1 ? argv[1] : "";
    memset(local, 0, sizeof local);
    if (!strcmp(m, "interior")) {
        p = malloc(100);
        free(hide(p + 16));                         /* INTERIOR */
    } else if (!strcmp(m, "far")) {
        p = malloc(300000);
        free(hide(p + 200000));                     /* FAR */
    } else if (!strcmp(m, "static")) {
        free(hide(data + 8));                       /* STATIC */
    } else if (!strcmp(m, "unmapped")) {
        free(hide((void *)((uintptr_t)1 << 44)));   /* UNMAPPED */
    } else if (!strcmp(m, "mmap")) {
        q = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        free(hide(q));                              /* MMAP */
    } else if (!strcmp(m, "realloc")) {
        p = realloc(hide(local + 8), 10);           /* REALLOC */
    } else if (!strcmp(m, "stack")) {
        free(hide(local + 8));                      /* STACK */
    }
    free(p);
    return 0;
}
EOT
build bad
for k in "interior:INTERIOR:invalid free of an address 16 bytes into a 100-byte block" \
         "far:FAR:invalid free of an address 200000 bytes into a 300000-byte block" \
         "static:STATIC:invalid free of an address in static data" \
         "unmapped:UNMAPPED:invalid free of an address that is not mapped" \
         "mmap:MMAP:invalid free of an address from mmap, not from an allocator" \
         "realloc:REALLOC:invalid realloc of an address on the stack" \
         "stack:STACK:invalid free of an address on the stack"; do
    mode=${k%%:*} rest=${k#*:}
    case $mode in interior | far | unmapped) [ -n "$ASAN" ] && continue ;; esac    # (nasan)
    run bad-$mode bad MTRACE_DOUBLE_FREE=continue MTRACE_REPORT=bad-$mode.json -- $mode
    check "invalid free ($mode): named at the call, counted, exit status 1, JSON invalid_frees 1, double_frees 0" sh -c "
        grep -qF 'bad.c:$(line_of bad.c "/\* ${rest%%:*}"): error: ${rest#*:} (in main)' '$TMP/bad-$mode.err' &&
        grep -qx '\*\*\* MTRACE: 1 invalid free ignored' '$TMP/bad-$mode.err' && test \"\$(cat '$TMP/bad-$mode.rc')\" = 1 &&
        test \"\$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r[\"invalid_frees\"], r[\"double_frees\"])' '$TMP/bad-$mode.json')\" = '1 0'"
done

# --- the summary: 20 rows, then how many more  [summary-rows]
{ echo '#include <stdlib.h>'; echo 'char *keep[21];'; echo 'int main(void)'; echo '{'
  for i in $(seq 0 20); do echo "    keep[$i] = malloc($((1000 - i)));"; done
  echo '    return 0;'; echo '}'; } > rows.c
MTRACE_LEVEL=2 build rows
run rows rows
check "21 sites: 20 rows in the summary" test "$(grep -cE '^ +[0-9]+ +1 +main +rows.c:[0-9]+$' rows.err)" = 20
has "21 sites: then the one more" rows.err "       ...   (1 more sites)"

# --- the budget: exactly at the peak is within; K, M, G are 1024^n in
#     either case; 0 is no size  [budget-boundary, budget-kilo-lower,
#     budget-mega, budget-giga, budget-zero]
printf 'fun:vendor_*\nsrc:cache.c:16\n' > all
run b8300 cache MTRACE_SUPPRESS=all MTRACE_MAX_HEAP=8300
check "MTRACE_MAX_HEAP=8300, the peak exactly: within, status 0" rc b8300 0
hasnt "MTRACE_MAX_HEAP=8300: no error" b8300.err "error"
run b8299 cache MTRACE_SUPPRESS=all MTRACE_MAX_HEAP=8299
check "MTRACE_MAX_HEAP=8299, a byte under the peak: over, status 1" rc b8299 1
run b8k cache MTRACE_SUPPRESS=all MTRACE_MAX_HEAP=8k MTRACE_REPORT=b8k.json
has "MTRACE_MAX_HEAP=8k: 8192 bytes, over" b8k.err "exceeds the budget of 8k (at record 2)"
check "MTRACE_MAX_HEAP=8k: JSON budget_bytes 8192" test "$(json b8k.json 'r["budget_bytes"]')" = 8192
for size in 1M:1048576 1m:1048576 1G:1073741824 1g:1073741824; do
    run bsize cache MTRACE_SUPPRESS=all MTRACE_MAX_HEAP=${size%:*} MTRACE_REPORT=bsize.json
    check "MTRACE_MAX_HEAP=${size%:*}: JSON budget_bytes ${size#*:}, within, status 0" \
        sh -c "test \"\$(cat '$TMP/bsize.rc')\" = 0 && test \"\$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[\"budget_bytes\"])' '$TMP/bsize.json')\" = ${size#*:}"
done
run bzero cache MTRACE_SUPPRESS=all MTRACE_MAX_HEAP=0 MTRACE_REPORT=bzero.json
has "MTRACE_MAX_HEAP=0: not a size, one warning" bzero.err \
    "*** MTRACE: warning: MTRACE_MAX_HEAP=0 is not a size (bytes, or with K, M or G): no budget"
check "MTRACE_MAX_HEAP=0: JSON budget_bytes null" test "$(json bzero.json 'r["budget_bytes"]')" = None

# --- MTRACE_DEPTH=64, the ceiling itself: allowed without a word
#     [depth-ceiling]
run d64 cache1 MTRACE_DEPTH=64
hasnt "MTRACE_DEPTH=64: no warning" d64.err "warning"
has "MTRACE_DEPTH=64: 64 frames asked" d64.trace "#depth 64"

# --- reachable mode: a list held by a global (reached through the blocks),
#     a site with one block reached and one lost, a block only pointed
#     just past its end (lost), two lost blocks of one site, and the JSON's
#     figures  [reach-transitive, reach-end-bound, reachable-bytes,
#     json-reachable, reach-blocks-count, leaked-blocks]
cat > reach.c <<'EOT'
#include <stdlib.h>
#include <string.h>
struct node { struct node *next; char pad[24]; };
static struct node *list;               /* a list held by a global: all reachable */
static char *half;                      /* one of two blocks of one site */
static char *past;                      /* just past a block's end: it is lost */
static __attribute__((noinline)) void build(void)
{
    int i;
    for (i = 0; i < 3; i++) {
        struct node *n = malloc(sizeof *n);     /* LIST */
        memset(n, 0, sizeof *n);
        n->next = list;
        list = n;
    }
    for (i = 0; i < 2; i++) {
        char *p = malloc(40);                   /* HALF */
        memset(p, 0, 40);
        if (i == 0)
            half = p;
    }
    for (i = 0; i < 2; i++)
        memset(malloc(24), 0, 24);              /* LOST */
    past = malloc(16);                          /* PAST */
    memset(past, 0, 16);
    past += 16;
}
static __attribute__((noinline)) void scrub(void)
{
    volatile char buf[16384];
    memset((char *)buf, 0, sizeof buf);
}
int main(void)
{
    build();
    scrub();
    return 0;
}
EOT
build reach
run reach reach MTRACE_LEAK_CHECK=reachable MTRACE_REPORT=reach.json
ll=$(line_of reach.c LIST) lh=$(line_of reach.c HALF) lo=$(line_of reach.c LOST) lp=$(line_of reach.c PAST)
if [ -z "$ASAN" ]; then     # (under ASan its allocator's own tables point into the blocks)
    has "reachable: a list held by a global is reachable through its blocks" reach.err "reach.c:$ll: note: 96 bytes in 3 blocks still reachable here"
    hasnt "reachable: ... none of its blocks lost" reach.err "reach.c:$ll: error"
    has "reachable: a site with one block reached: a note" reach.err "reach.c:$lh: note: 40 bytes in 1 block still reachable here"
    has "reachable: ... and an error for the other" reach.err "reach.c:$lh: error: 40 bytes in 1 block leaked here"
    has "reachable: a pointer just past a block's end does not keep it" reach.err "reach.c:$lp: error: 16 bytes in 1 block leaked here"
    has "reachable: two lost blocks of a site" reach.err "reach.c:$lo: error: 48 bytes in 2 blocks leaked here"
    check "reachable: JSON reachable_bytes 136 (96 + 40), leaked_bytes 104, leaked_blocks 4" \
        test "$(json reach.json '"%d %d %d" % (r["reachable_bytes"], r["leaked_bytes"], r["leaked_blocks"])')" = "136 104 4"
fi
# --- leak records (doc/guide.md "The leak report"): two leaking calls on one line are one
#     record; at most 30 records (MTRACE_LEAK_RECORDS), then one line for
#     the rest; the JSON report has them all  [leak-records]
{ echo '#include <stdlib.h>'; echo 'char *keep;'; echo 'int main(void)'; echo '{'
  echo '    char *a = malloc(5), *b = malloc(7);            /* TWO */'
  echo '    a[0] = b[0] = 0;'
  for i in $(seq 1 35); do echo "    keep = malloc($((100 + i)));"; done
  echo '    return 0;'; echo '}'; } > records.c
build records
run records records MTRACE_REPORT=records.json
lt=$(line_of records.c TWO)
check "leak records: 30 printed, the largest" test "$(grep -c ': error: ' records.err)" = 30 -a \
    "$(grep -c 'records.c:[0-9]*: error: 1[0-3][0-9] bytes in 1 block' records.err)" = 30
has "leak records: the other 6 in one line (101..105, and 5 + 7 bytes)" records.err \
    "*** MTRACE: and 6 more leak records (527 bytes in 7 blocks): the JSON report (MTRACE_REPORT) has them all"
has "leak records: the total of all 36" records.err "*** MTRACE: 4142 bytes in 37 blocks leaked, in 36 records"
check "leak records: the JSON report has all 36, largest first" \
    test "$(json records.json '" ".join(str(l["bytes"]) for l in r["leaks"][:2]) + " %d %d" % (len(r["leaks"]), r["leaks"][-1]["bytes"])')" = "135 134 36 12"
run records0 records MTRACE_LEAK_RECORDS=0
check "MTRACE_LEAK_RECORDS=0: all 36 printed, no 'more' line" \
    test "$(grep -c ': error: ' records0.err)" = 36 -a -z "$(grep 'more leak records' records0.err)"
has "leak records: two calls on one line, one record" records0.err "records.c:$lt: error: 12 bytes in 2 blocks leaked here"
run records3 records MTRACE_LEAK_RECORDS=3
check "MTRACE_LEAK_RECORDS=3: three printed, 33 in one line" \
    test "$(grep -c ': error: ' records3.err)" = 3 -a -n "$(grep 'and 33 more leak records' records3.err)"
run recordsx records MTRACE_LEAK_RECORDS=x
has "MTRACE_LEAK_RECORDS=x: one warning" recordsx.err "MTRACE_LEAK_RECORDS=x is not a number of records (0: all): about a screenful"
check "MTRACE_LEAK_RECORDS=x: the default, 30" test "$(grep -c ': error: ' recordsx.err)" = 30

# --- a forked child counts from 0 (doc/processes.md): its JSON report's
#     figures for a site the parent used too are the child's alone: bytes
#     in all, allocations, peak, temporaries, the sizes asked for (issue 37)
cat > forkfig.c <<'EOT'
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static void *get(size_t n) { return malloc(n); }
int main(void)
{
    void *kept = get(1000);
    int i, status;
    for (i = 0; i < 20; i++)
        free(get(3000));                /* temporaries of the parent's */
    if (fork() == 0) {
        free(get(10));
        exit(0);
    }
    wait(&status);
    free(kept);
    return 0;
}
EOT
MTRACE_LEVEL=2 build forkfig
run forkfig forkfig MTRACE_REPORT=forkfig-%p.json
for f in forkfig-*.json; do     # the child's: the one that made a single call
    [ "$(json "$f" 'r["calls"]')" = 1 ] && child=$f
done
check "fork: the child's JSON: its site counts its own bytes, blocks, peak and temporaries only" \
    test "$(json "$child" '[(s["total_bytes"], s["allocations"], s["peak_bytes"], s["temporary"]) for s in r["sites"]]')" = "[(10, 1, 10, 1)]"
check "fork: the child's JSON: the sizes it asked for, its own" \
    test "$(json "$child" '[(k["min"], k["count"]) for k in r["size_histogram"]]')" = "[(8, 1)]"
check "fork: the child's JSON: its temporaries, its own" test "$(json "$child" 'r["temporary"]')" = 1

# --- temporary allocations (doc/guide.md, "The summary"): the summary's line when more than 10%
#     of the allocations, and at least 10, were freed before any other
#     allocation  [temporary]
cat > temp.c <<'EOT'
#include <stdlib.h>
int main(int argc, char **argv)
{
    int i, n = atoi(argv[1]);
    void *keep[100];
    for (i = 0; i < 100 - n; i++)
        keep[i] = malloc(8);                /* KEPT */
    for (i = 0; i < n; i++)
        free(malloc(16));                   /* TEMP */
    for (i = 0; i < 100 - n; i++)
        free(keep[i]);
    return 0;
}
EOT
MTRACE_LEVEL=2 build temp
run temp10 temp -- 10
run temp11 temp -- 11
hasnt "temporary: 10 of 100 (10%): no line" temp10.err "temporary"
has "temporary: 11 of 100: the line, the site" temp11.err \
    "*** MTRACE: 11 of 100 allocations (11.0%) were temporary (freed before any other allocation), 11 of them at temp.c:$(line_of temp.c TEMP) (in main)"
run temp11j temp MTRACE_REPORT=temp.json -- 11
check "temporary: the JSON report's counts (global, per site), calls, total bytes" \
    test "$(json temp.json '"%d %d %s" % (r["temporary"], r["calls"], sorted((s["line"], s["temporary"], s["calls"], s["total_bytes"]) for s in r["sites"]))')" = \
    "11 100 [($(line_of temp.c KEPT), 0, 89, 712), ($(line_of temp.c TEMP), 11, 11, 176)]"

# --- mtrace2massif's snapshot policy at its boundaries, on hand-written
#     traces; each expected list is what valgrind 3.19's Massif gives for
#     the same calls (a C program doing them, run with the same options)
#     [m2m-peak-inaccuracy, m2m-significance, m2m-shrink-peak-check]
# snaps FILE: one line per snapshot, "heap tree"
snaps() { awk -F= '/^mem_heap_B=/ {h = $2} /^heap_tree=/ {printf "%s %s\n", h, $2}' "$1" | tr '\n' ' '; }
tail2() { printf 'set title "t"\nplot "t" u 3:4 w steps\n'; }
# 1600 bytes, freed (the peak: 1608 with admin and slop); 1616 (1624:
# exactly 1% more) freed: not a new peak, for Massif a peak must beat the
# last by MORE than --peak-inaccuracy; 4000 freed: the peak
{ printf '@ 1 f a.c 1\n+ 1 0 1600 1600 4096000\n- 1 1 0 0 4096000\n+ 1 2 1616 1616 4096000\n'
  printf -- '- 1 3 0 0 4096000\n+ 1 4 4000 4000 4096000\n- 1 5 0 0 4096000\n'; tail2; } > inacc.trace
"$TOP/mtrace2massif" --time-unit=B inacc.trace -o inacc.out
check "a free at exactly 1% over the last peak takes no peak snapshot (Massif's 9 snapshots)" \
    test "$(snaps inacc.out)" = "0 empty 1600 empty 1600 detailed 0 empty 1616 empty 0 empty 4000 empty 4000 peak 0 empty "
# two sites, 48 and 16 bytes, --threshold=25 --heap-admin=0: 16 is exactly
# 25% of 64, significant: its own node, not "below massif's threshold"
{ printf '@ 1 a sig.c 2\n+ 1 0 48 48 4096000\n@ 2 b sig.c 3\n+ 2 1 64 16 4096000\n'
  printf -- '- 1 2 16 0 4096000\n- 2 3 0 0 4096000\n'; tail2; } > sig.trace
"$TOP/mtrace2massif" --time-unit=B --threshold=25 --heap-admin=0 sig.trace -o sig.out
check "a node of exactly --threshold of the total is significant (Massif's tree)" \
    test "$(sed -n '/heap_tree=peak/,/^#/p' sig.out | sed 's/ 0x[0-9A-F]*:/ ADDR:/' | tr '\n' '|')" = \
    "heap_tree=peak|n2: 64 (heap allocation functions) malloc/new/new[], --alloc-fns, etc.| n0: 48 ADDR: a (sig.c:2)| n0: 16 ADDR: b (sig.c:3)|#-----------|"
# malloc(1000), realloc to the same size, malloc(3000), frees: a realloc
# that does not shrink makes no peak check (Massif's 7 snapshots)
{ printf '@ 1 main rs.c 4\n+ 1 0 1000 1000 4096000\n< 1 1 0 0 4096000\n@ 2 main rs.c 5\n> 2 2 1000 1000 4096000\n'
  printf '@ 3 main rs.c 6\n+ 3 3 4000 3000 4096000\n- 3 4 1000 0 4096000\n- 2 5 0 0 4096000\n'; tail2; } > same.trace
"$TOP/mtrace2massif" --time-unit=B same.trace -o same.out
check "a realloc to the same size takes no peak snapshot (Massif's 7 snapshots)" \
    test "$(snaps same.out)" = "0 empty 1000 empty 1000 empty 4000 empty 4000 peak 1000 empty 0 empty "
# --- ms_print: "%05.2f" rounds an exact half to even, as Perl's printf does
#     with the exact binary value: 1 byte of 800 is 0.125% -> "00.12"
#     (valgrind 3.19's ms_print prints the same)  [msp-round-even]
{ printf 'desc: (none)\ncmd: ./r\ntime_unit: B\n#-----------\nsnapshot=0\n#-----------\ntime=0\n'
  printf 'mem_heap_B=0\nmem_heap_extra_B=0\nmem_stacks_B=0\nheap_tree=empty\n#-----------\nsnapshot=1\n'
  printf '#-----------\ntime=800\nmem_heap_B=800\nmem_heap_extra_B=0\nmem_stacks_B=0\nheap_tree=peak\n'
  printf 'n2: 800 (heap allocation functions) malloc/new/new[], --alloc-fns, etc.\n'
  printf ' n0: 799 0x1: f (a.c:1)\n n0: 1 0x2: g (b.c:2)\n'; } > half.massif
"$TOP/ms_print" --threshold=0 half.massif > half.out
has "ms_print: 0.125% prints as 00.12 (half to even)" half.out "->00.12% (1B) 0x2: g (b.c:2)"
has "ms_print: 99.875% prints as 99.88" half.out "->99.88% (799B) 0x1: f (a.c:1)"
finish
