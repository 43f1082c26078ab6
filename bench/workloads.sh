# SPDX-License-Identifier: MIT
# bench/workloads.sh - the workload list and the build command, shared by
# bench/run.sh and bench/profile.sh (sourced, not run).
#
# bench_workloads MODE prints one line per workload, fields separated by |:
#   NAME | PROGRAM | ARGS | PEER-ARGS | WHAT
# MODE is "full" or "quick".  PEER-ARGS is the scaled-down size run under
# heaptrack and Massif (they cost 20-100x, so the full size would take
# minutes): about a quarter of the full size; a tenth in quick mode, where
# the figures are only a smoke test.  The uninstrumented program is timed
# at that size as well, and bench/run.sh subtracts the peers' start-up
# (0.3-0.5 s, measured on bench/empty.c) from both sides, so their ratios
# compare like with like.  Sizes are chosen so that each uninstrumented run
# takes a few tenths of a second here (2 cores); bigtree (5 M live nodes),
# live-large (10 M live blocks) and lua (with LUA_SRC) take seconds.

bench_workloads() {
    if [ "$1" = quick ]; then
        cat <<'LIST'
churn|churn|2000000|200000|random-size churn, pool of 8192 live blocks
realloc-double|realloc|double 4000 4000|double 400 4000|arrays grown by doubling
realloc-one|realloc|one 60 20000|one 6 20000|arrays grown by one element per realloc
tree|tree|60000 2|6000 2|binary search tree built, thinned, freed
strtab|strtab|100000 2|10000 2|hash table of strdup'ed words
threads-1|threads|1 1000000|1 100000|churn in 1 thread
threads-2|threads|2 1000000|2 100000|churn in 2 threads (2 cores)
threads-4|threads|4 1000000|4 100000|churn in 4 threads (2 cores)
pools-1|shapes|pools 1 1000000|pools 1 100000|2 pools of 2,500 blocks churned in 8 long rounds, 1 thread
pools-2|shapes|pools 2 1000000|pools 2 100000|the same in 2 threads, the pools changing hands between rounds
handoff-1|shapes|handoff 1 1000000|handoff 1 100000|a ring of blocks filled and emptied by turns, 1 thread
handoff-2|shapes|handoff 2 1000000|handoff 2 100000|a producer allocates, a consumer frees (every free the other thread's)
sites|sites|2000000|200000|churn over SITES distinct call sites
json-records|json|records 2|records 1|JSON: API records
json-config|json|config 8|config 1|JSON: many small documents
json-strings|json|strings 2|strings 1|JSON: escaped strings
json-numbers|json|numbers 4|numbers 1|JSON: number matrices
json-deep|json|deep 2|deep 1|JSON: deep nesting
json-mt-1|json|mt 1 4|mt 1 1|JSON pipeline in 1 thread
json-mt-2|json|mt 2 4|mt 2 1|JSON pipeline in 2 threads, separate documents
json-mt-4|json|mt 4 4|mt 4 1|JSON pipeline in 4 threads, separate documents
bigtree|bigtree|500000 1|100000 1|balanced tree, all nodes live, built and freed
live-small|live|10000 1000000|10000 200000|churn with 10 k live blocks
live-large|live|1000000 1000000|100000 200000|churn with many live blocks
LIST
        bench_lua_line 10 8
    else
        cat <<'LIST'
churn|churn|8000000|2000000|random-size churn, pool of 8192 live blocks
realloc-double|realloc|double 20000 4000|double 5000 4000|arrays grown by doubling
realloc-one|realloc|one 300 20000|one 75 20000|arrays grown by one element per realloc
tree|tree|150000 2|40000 2|binary search tree built, thinned, freed
strtab|strtab|300000 2|75000 2|hash table of strdup'ed words
threads-1|threads|1 4000000|1 1000000|churn in 1 thread
threads-2|threads|2 4000000|2 1000000|churn in 2 threads (2 cores)
threads-4|threads|4 4000000|4 1000000|churn in 4 threads (2 cores)
pools-1|shapes|pools 1 12000000|pools 1 2000000|2 pools of 2,500 blocks churned in 8 long rounds, 1 thread
pools-2|shapes|pools 2 12000000|pools 2 2000000|the same in 2 threads, the pools changing hands between rounds
handoff-1|shapes|handoff 1 12000000|handoff 1 2000000|a ring of blocks filled and emptied by turns, 1 thread
handoff-2|shapes|handoff 2 12000000|handoff 2 2000000|a producer allocates, a consumer frees (every free the other thread's)
sites|sites|6000000|1500000|churn over SITES distinct call sites
json-records|json|records 10|records 3|JSON: API records
json-config|json|config 40|config 10|JSON: many small documents
json-strings|json|strings 10|strings 3|JSON: escaped strings
json-numbers|json|numbers 20|numbers 5|JSON: number matrices
json-deep|json|deep 10|deep 3|JSON: deep nesting
json-mt-1|json|mt 1 12|mt 1 4|JSON pipeline in 1 thread
json-mt-2|json|mt 2 12|mt 2 4|JSON pipeline in 2 threads, separate documents
json-mt-4|json|mt 4 12|mt 4 4|JSON pipeline in 4 threads, separate documents
bigtree|bigtree|5000000 1|500000 1|balanced tree of 5 M nodes, all live, built and freed
live-small|live|10000 10000000|10000 2000000|churn with 10 k live blocks
live-large|live|10000000 2000000|1000000 400000|churn with 10 M live blocks
LIST
        bench_lua_line 16 12
    fi
}

# bench_stack_workloads MODE: the workloads of the call-stack comparison
# (issue 13), lines of bench_workloads: churn, tree and the five
# single-thread JSON workloads; and deep-stacks (stacks.c), longer chains
# and many distinct stacks, for the walk's cost and the memory per stack.  bench/run.sh runs each program built at
# level 1 with frame pointers (bench_build PROG 1 OUT $BENCH_FP_FLAGS, as
# mtrace-cc and pkg-config build) with MTRACE_DEPTH unset, 8 and 30, next
# to the uninstrumented program and the level-1 build without them.
BENCH_FP_FLAGS="-fno-omit-frame-pointer -DMTRACE_FRAME_POINTERS"
bench_stack_workloads() {
    bench_workloads "$1" | awk -F'|' '$1 == "churn" || $1 == "tree" || ($1 ~ /^json-/ && $1 !~ /^json-mt-/)'
    if [ "$1" = quick ]; then
        echo "deep-stacks|stacks|1000000 10|-|churn through 1024 distinct call stacks, 12 frames deep"
    else
        echo "deep-stacks|stacks|4000000 10|-|churn through 1024 distinct call stacks, 12 frames deep"
    fi
}

# bench_lua_line DEPTH PEER-DEPTH: the Lua workload (bench/alloc.lua run by
# a Lua built from $LUA_SRC by bench/build.sh --build-only), when LUA_SRC
# is set.  Its checksum is that of its whole output.
bench_lua_line() {
    [ -n "${LUA_SRC:-}" ] || return 0
    echo "lua|lua|$BENCH_TOP/bench/alloc.lua $1|$BENCH_TOP/bench/alloc.lua $2|Lua 5.4: bench/alloc.lua (trees, strings, table churn)"
}

# bench_max_rounds NAME: at most this many rounds for the long workloads
# (empty: BENCH_RUNS).
bench_max_rounds() {
    case $1 in
    lua | live-large) echo 3 ;;
    esac
}

# Number of generated call sites for the "sites" program.
bench_sites() { if [ "$1" = quick ]; then echo 1000; else echo 3000; fi; }

# bench_build PROGRAM LEVEL OUTPUT [EXTRA-CFLAGS...]: compile one workload
# from the repository root ($BENCH_TOP), uninstrumented for LEVEL 0, else
# traced at that level, the way a project is: the library use,
# -DMTRACE=LEVEL -DMTRACE_LIB -include mtrace.h, linked with libmtrace.so
# (-L, -rpath); with BENCH_USE=oneline, the one-line use, -DMTRACE=LEVEL
# -include mtrace.h (the runtime compiled into the file).  The header and
# library are those of $BENCH_MTRACE_DIR when set (bench/run.sh builds
# against a snapshot, so that an edit of mtrace.c during the builds cannot
# mix two versions), else of the repository root (after `make`).
# The "sites" program is generated into $BENCH_GEN (bench_generate first).
bench_build() {
    local prog=$1 level=$2 out=$3 src dir=${BENCH_MTRACE_DIR:-$BENCH_TOP}
    shift 3
    case $prog in
    sites) src=$BENCH_GEN/sites.c ;;
    lua) echo "bench_build: lua is built by bench/build.sh --build-only" >&2; return 1 ;;
    *) src=bench/$prog.c ;;
    esac
    if [ "$level" = 0 ]; then
        (cd "$BENCH_TOP" && ${CC:-cc} -O2 "$@" -Ibench -o "$out" "$src" -pthread)
    elif [ "${BENCH_USE:-lib}" = oneline ]; then
        (cd "$BENCH_TOP" && ${CC:-cc} -O2 "$@" -Ibench -DMTRACE="$level" -include "$dir/mtrace.h" \
            -o "$out" "$src" -pthread)
    else
        (cd "$BENCH_TOP" && ${CC:-cc} -O2 "$@" -Ibench -DMTRACE="$level" -DMTRACE_LIB \
            -include "$dir/mtrace.h" -o "$out" "$src" -pthread \
            -L"$dir" -Wl,-rpath,"$dir" -lmtrace)
    fi
}

# bench_generate MODE: write the generated sources into $BENCH_GEN.
bench_generate() {
    sh "$BENCH_TOP/bench/gensites.sh" "$(bench_sites "$1")" > "$BENCH_GEN/sites.c"
}
