#!/bin/bash
# SPDX-License-Identifier: MIT
# C++ in the library use (issue 41): mtrace-c++ and libmtrace's operators
# new and delete, with g++ and clang++ (libstdc++, and libc++ where its
# headers are): each form of new and delete, the C++ library's containers
# charged to the user's line, exceptions, threads, static initialisation
# and destruction, new's failure and its new_handler, a mixed C/C++
# project with one report; leaks and mismatched frees compared with
# Memcheck's.  Programs in tests/cxx/.
. "$(dirname "$0")/lib.sh"
cp -r "$TOP"/tests/cxx/* "$TMP"/ && cd "$TMP" || exit 2
if [ -n "$ASAN" ]; then     # (make test-sanitize: a libmtrace built with ASan links into no plain C++ program)
    echo "     (libmtrace built with AddressSanitizer: the C++ programs are not built)"
    finish
    exit
fi
MCXX=$TOP/mtrace-c++
unset MTRACE MTRACE_CC MTRACE_CXX MTRACE_LEVEL MTRACE_DEPTH MTRACE_DOUBLE_FREE MTRACE_ALLOC_FN
# line FILE TAG: the line of FILE that carries the comment TAG
line() { grep -n -- "$2" "$1" | head -1 | cut -d: -f1; }
COMPILERS="g++ clang++"
# libc++ with clang++, where its headers are installed
if echo '#include <vector>' | clang++ -stdlib=libc++ -x c++ -fsyntax-only - 2> /dev/null; then
    COMPILERS="$COMPILERS clang++-libc++"
else
    echo "     (no libc++ headers: clang++ -stdlib=libc++ not tried; apt-get install libc++-dev libc++abi-dev)"
fi
# cxx COMPILER ARGS...: mtrace-c++ with that compiler (clang++-libc++: clang++ -stdlib=libc++)
cxx() {
    local c=$1; shift
    case $c in
    clang++-libc++) MTRACE_CXX="clang++ -stdlib=libc++" "$MCXX" "$@" ;;
    *) MTRACE_CXX=$c "$MCXX" "$@" ;;
    esac
}

# ---- each form of new and delete, and a leak of each family
for c in $COMPILERS; do
    cxx $c -std=c++17 -fsized-deallocation -g -O1 forms.cpp -o forms-$c 2> forms-$c.cc
    empty_cc=$(cat forms-$c.cc)
    check "$c: mtrace-c++ builds new/delete of every form (-Wall clean is the program's business): no warning" test -z "$empty_cc"
    MTRACE_LEVEL= MTRACE=forms-$c.trace ./forms-$c > /dev/null 2> forms-$c.err
    check "$c: every form freed by its own delete: exit 0" test $? = 0
    has "$c: ... and no leak (new, new[], aligned, nothrow, sized and aligned delete)" forms-$c.err "*** MTRACE: No memory leaks"
    hasnt "$c: ... and no mismatch" forms-$c.err "mismatched"
    check "$c: the trace replays: + and - records as for malloc and free" replays forms-$c.trace
    check "$c: the trace has the 8 blocks made and freed (16 records)" \
        test "$(grep -c '^[-+] ' forms-$c.trace)" = 16
    ./forms-$c leak > /dev/null 2> leak-$c.err
    check "$c: four leaks: exit 1" test $? = 1
    has "$c: new's leak at its line" leak-$c.err "forms.cpp:$(line forms.cpp LEAK-NEW): error: 4 bytes in 1 block leaked here (in main)"
    has "$c: new[]'s leak at its line" leak-$c.err "forms.cpp:$(line forms.cpp LEAK-ARRAY): error: 20 bytes in 1 block leaked here (in main)"
    has "$c: std::malloc's leak at its line (a C++ file's malloc, by return address)" leak-$c.err \
        "forms.cpp:$(line forms.cpp LEAK-MALLOC): error: 33 bytes in 1 block leaked here (in main)"
    has "$c: aligned new's leak at its line" leak-$c.err "forms.cpp:$(line forms.cpp LEAK-ALIGNED): error: 128 bytes in 1 block leaked here (in main)"
done

# ---- leaks as Memcheck counts them (the same program built plainly)
if command -v valgrind > /dev/null && [ -z "$ASAN" ]; then
    g++ -std=c++17 -fsized-deallocation -g -O1 forms.cpp -o forms-plain
    valgrind --leak-check=full ./forms-plain leak > /dev/null 2> forms.vg
    vg=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes in \([0-9,]*\) blocks.*/\1 \2/p' forms.vg | tr -d ,)
    ours=$(sed -n 's/^\*\*\* MTRACE: \([0-9]*\) bytes in \([0-9]*\) blocks leaked.*/\1 \2/p' leak-g++.err)
    check "leaks: the same bytes and blocks as Memcheck's definitely lost ($vg)" test -n "$vg" -a "$vg" = "$ours"
    for tag in LEAK-NEW LEAK-ARRAY LEAK-MALLOC LEAK-ALIGNED; do
        check "leaks: Memcheck has a record at $tag's line too" grep -q "(forms.cpp:$(line forms.cpp $tag))" forms.vg
    done
fi

# ---- mismatched frees, in the double free's form, against Memcheck's
for c in $COMPILERS; do
    cxx $c -std=c++17 -g -O0 -Wno-mismatched-new-delete mismatch.cpp -o mismatch-$c 2> /dev/null
    ./mismatch-$c > /dev/null 2> mismatch-$c.err
    check "$c: a mismatched free stops the program (abort: 134)" test $? = 134
    MTRACE_DOUBLE_FREE=continue MTRACE_REPORT=mismatch-$c.json ./mismatch-$c > /dev/null 2> mismatch-cont-$c.err
    check "$c: MTRACE_DOUBLE_FREE=continue: the program goes on, exit 1" test $? = 1
    check "$c: JSON mismatched_frees 5, double_frees and invalid_frees 0" test "$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
print(r["mismatched_frees"], r["double_frees"], r["invalid_frees"])' mismatch-$c.json)" = "5 0 0"
    n=0
    for what in "delete of a block allocated by new[]" "delete of a block allocated by malloc" \
                "delete[] of a block allocated by new" "free of a block allocated by new[]" \
                "realloc of a block allocated by new"; do
        n=$((n + 1))
        has "$c: mismatch $n: at the free's line, saying what freed what" mismatch-cont-$c.err \
            "mismatch.cpp:$(line mismatch.cpp FREE-$n): error: mismatched free: $what (in main)"
        has "$c: mismatch $n: the allocation's place as a note" mismatch-cont-$c.err \
            "mismatch.cpp:$(line mismatch.cpp ALLOC-$n): note: the block was allocated here (in main)"
    done
    has "$c: the summary counts them" mismatch-cont-$c.err "*** MTRACE: 5 mismatched frees"
    hasnt "$c: each block was freed all the same (realloc's resized, then freed): no leak" mismatch-cont-$c.err "leaked"
done
if command -v valgrind > /dev/null && [ -z "$ASAN" ]; then
    g++ -std=c++17 -g -O0 -Wno-mismatched-new-delete mismatch.cpp -o mismatch-plain
    valgrind ./mismatch-plain > /dev/null 2> mismatch.vg
    check "mismatches: Memcheck finds the same five" test "$(grep -c 'Mismatched free() / delete / delete \[\]' mismatch.vg)" = 5
    # the first line of main's frames after each Mismatched: the free's line; after "alloc'd": the allocation's
    awk '/Mismatched free/ { want = "free" } /alloc.d/ { want = "alloc" }
         want && /main \(mismatch.cpp:/ { sub(/.*mismatch.cpp:/, ""); sub(/\).*/, ""); print want, $0; want = "" }' \
        mismatch.vg > vg.places
    sed -n 's/^mismatch.cpp:\([0-9]*\): error: mismatched.*/free \1/p; s/^mismatch.cpp:\([0-9]*\): note: the block was allocated.*/alloc \1/p' \
        mismatch-cont-g++.err > our.places
    same "mismatches: the same places (free, allocation) as Memcheck's, in order" vg.places our.places
fi

# ---- the heap check (MTRACE_CHECK=heap) on new's blocks
printf '#include <cstring>\nstatic char *volatile sink;\nint main()\n{\n    sink = new char[10];\n    std::memset(sink, 0, 11);\n    delete[] sink;\n    return 0;\n}\n' > overrun.cpp
"$MCXX" -g -O0 -w overrun.cpp -o overrun
MTRACE_CHECK=heap ./overrun > /dev/null 2> overrun.err
check "MTRACE_CHECK=heap: a write past new[]'s block stops the program at its delete[] (134)" test $? = 134
has "MTRACE_CHECK=heap: ... named at the delete[]'s line" overrun.err \
    "overrun.cpp:7: error: 1 byte written past the end of a 10-byte block (found at this free) (in main)"
MTRACE_CHECK=heap ./forms-g++ > /dev/null 2> forms-checked.err
check "MTRACE_CHECK=heap: every form of new and delete, checked: exit 0, no report" \
    test $? = 0 -a -z "$(grep 'error' forms-checked.err)"

# ---- the C++ library's growth charged to the user's line
for c in $COMPILERS; do
    for o in -O0 -O2; do
        # (-O0 with g++ only: the other compilers at -O0 add time, not cases)
        [ $o = -O0 ] && [ $c != g++ ] && continue
        cxx $c -g $o stl.cpp -o stl-$c$o
        MTRACE_DEPTH=16 ./stl-$c$o > /dev/null 2> stl-$c$o.err
        has "$c $o, MTRACE_DEPTH: std::vector's growth leaked, charged to the push_back line" stl-$c$o.err \
            "stl.cpp:$(line stl.cpp GROW-VECTOR): error: 4096 bytes in 1 block leaked here (in main)"
        has "$c $o, MTRACE_DEPTH: the summary says what it charged past" stl-$c$o.err "(charged past the C++ library)"
    done
done
./stl-clang++-O2 > /dev/null 2> stl-flat.err
has "clang++ -O2 without MTRACE_DEPTH: the inlined growth named by the user's line" stl-flat.err \
    "stl.cpp:$(line stl.cpp GROW-VECTOR): error: 4096 bytes in 1 block leaked here (in main)"
MTRACE_DEPTH=16 MTRACE_LEAK_CHECK=reachable ./stl-g++-O0 > /dev/null 2> stl-map.err
has "g++ -O0, MTRACE_DEPTH: std::map's node charged to the insert's line" stl-map.err \
    "stl.cpp:$(line stl.cpp GROW-MAP): note: "

# libstdc++'s std::string, compiled into your files by -D_GLIBCXX_ASSERTIONS
cp "$TOP/examples/names.cpp" .
"$MCXX" -g -O1 names.cpp -o names-asserts -D_GLIBCXX_ASSERTIONS
MTRACE_DOUBLE_FREE=continue MTRACE_DEPTH=16 ./names-asserts > /dev/null 2> names-asserts.err
has "g++ -D_GLIBCXX_ASSERTIONS, MTRACE_DEPTH: the strings charged to the push_back line" names-asserts.err \
    "names.cpp:13: error: 4100 bytes in 100 blocks leaked here (in main)"
"$MCXX" -g -O1 names.cpp -o names
MTRACE_DOUBLE_FREE=continue MTRACE_DEPTH=16 MTRACE=names.trace ./names > /dev/null 2> names.err
has "g++, MTRACE_DEPTH: without it, the strings stay with libstdc++'s _M_construct" names.err \
    "error: 4100 bytes in 100 blocks leaked here (in std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >::_M_construct"
# (trace-format.md: SID 0 only for a stack the tables had no room for)
check "... libstdc++'s new (code without mtrace) has a stack of its own, with no return address; no record has SID 0" \
    sh -c "grep -qE '^#stack [0-9]+ [0-9]+\$' names.trace && awk '/^[-+<>] / && (NF != 7 || \$7 == 0) { bad = 1 } END { exit bad }' names.trace"

# ---- one line copied by the compiler into two places: a row per copy, said so
cxx g++ -g -O2 inlined.cpp -o inlined 2> /dev/null
MTRACE=inlined.trace ./inlined > /dev/null 2> inlined.err
copied=$(line inlined.cpp COPIED)
check "inlined twice at -O2: two summary rows of 4 bytes, the same name (each copy's exact peak)" \
    test "$(grep -cE "^ +4 +1 +main +inlined.cpp:$copied\$" inlined.err)" = 2
check "... and inlined.h's line $copied, inlined into main too: its own row (another file, not a copy)" \
    grep -qE "^ +16 +1 +main +inlined.h:$copied\$" inlined.err
has "... and one note that counts the 2 copies, not that row" inlined.err \
    "*** MTRACE: note: 2 rows above name the same line as another row: copies of it the compiler made (inlined, unrolled), each row exact for its copy"
has "... the leak records merge the copies (as two calls on one line)" inlined.err \
    "inlined.cpp:$copied: error: 8 bytes in 2 blocks leaked here (in main)"
hasnt "no such note where every row names its own line" leak-g++.err "rows above name the same line"

# ---- the one-line use does nothing in C++
mkdir oneline
g++ -std=c++17 -g -DMTRACE=1 -include "$TOP/mtrace.h" forms.cpp -o oneline/forms 2> oneline.cc
(cd oneline && ./forms leak > /dev/null 2> ../oneline.err)
check "one-line use in C++: built and run plainly, exit 0" test $? = 0
check "one-line use in C++: no report, no trace" test ! -s oneline.err -a ! -e oneline/mtrace

# ---- exceptions, threads, static initialisation and destruction, new's failure
for c in $COMPILERS; do
    cxx $c -std=c++17 -g -O1 -pthread runtime.cpp -o runtime-$c
    ./runtime-$c > runtime-$c.out 2> runtime-$c.err
    check "$c: exceptions, threads, new_handler: exit 1 (one static leak)" test $? = 1
    same_out=$(cat runtime-$c.out)
    check "$c: bad_alloc thrown twice, nothrow null, the handler called once, static vector alive" \
        test "$same_out" = "caught 1 failed 2 nothing 1 handler 1 names 3 static 1"
    has "$c: the one leak is the static initialiser's new[], at its line" runtime-$c.err \
        "runtime.cpp:$(line runtime.cpp STATIC-LEAK): error: 24 bytes in 1 block leaked here"
    check "$c: nothing else leaked (the exception's frames, the threads' strings, the static vector)" \
        test "$(grep -c 'leaked here' runtime-$c.err)" = 1
done

# ---- a mixed C/C++ project: CC=mtrace-cc CXX=mtrace-c++, one report
(cd mixed && make -s CC="$TOP/mtrace-cc" CXX="$TOP/mtrace-c++" > ../mixed.make 2>&1)
check "mixed: make CC=mtrace-cc CXX=mtrace-c++ builds it, no warning" test -x mixed/prog -a ! -s mixed.make
(cd mixed && ./prog > /dev/null 2> ../mixed.err)
has "mixed: the C library's malloc leaked through C++, at the C line" mixed.err \
    "clib.c:$(line mixed/clib.c C-COPY): error: 7 bytes in 1 block leaked here (in clib_copy)"
has "mixed: the C++ library's new[] leaked through C, at the C++ line" mixed.err \
    "cxxlib.cpp:$(line mixed/cxxlib.cpp CXX-MAKE): error: 12 bytes in 1 block leaked here (in cxxlib_make)"
has "mixed: one report for both languages" mixed.err "*** MTRACE: 19 bytes in 2 blocks leaked, in 2 records"
check "mixed: one report (one summary)" test "$(grep -c 'max traced memory size' mixed.err)" = 1
hasnt "mixed: free of C's block in C++ and delete[] of C++'s in C: no mismatch" mixed.err "mismatched"

# ---- the benchmark of new and delete (bench/cxx.sh, in make bench), small: it must keep running
# (heaptrack at 1000000 pairs; its wall ratio, net of the start-up's, may still be
# lost in a loaded machine's noise, and say so: its CPU figures may not)
TMPDIR=$TMP BENCH_MTRACE_DIR=$TOP BENCH_CXX_PAIRS="500000 1000000" "$TOP/bench/cxx.sh" --quick > bench.md 2> bench.err
check "bench/cxx.sh --quick: exit 0" test $? = 0
command -v heaptrack > /dev/null && peer=figure || peer="not installed"
# cells: every cell of bench.md's 8 rows a figure (heaptrack's: $peer)
cells() {
    awk -F' [|] ' -v peer="$peer" '/^[|] `/ { rows++
            for (i = 2; i <= 5; i++) { c = $i; sub(/ [|]$/, "", c)
                if (i == 5 && peer != "figure") { if (c != peer) bad = bad " [" c "]" }
                else if (i == 5 && rows <= 3 && c ~ /^- [(]a time net of the start-up/) continue
                else if (c !~ /^[0-9]+[.][0-9]+( ns|×| ns, [0-9]+[.][0-9]+×)?$/) bad = bad " [" c "]" } }
        END { if (rows != 8 || bad != "") { print "     " rows " rows; not a figure:" bad; exit 1 } }' bench.md
}
check "bench/cxx.sh: the three pairs' rows, plain, levels 2 and 1 and heaptrack, every cell a figure" cells
# order: each pair's CPU ns in the order the tools cost (4x, 10x, 50x apart here), plain's a sane size
order() {
    awk -F' [|] ' -v peer="$peer" '/^[|] `/ && / ns/ { n = 0
            for (i = 2; i <= (peer == "figure" ? 5 : 4); i++) { v[i] = $i + 0; if (i > 2 && v[i] <= v[i - 1]) n++ }
            if (v[2] < 1 || v[2] > 200 || n) { print "     not in order, or plain not 1 to 200 ns: " $0; bad = 1 } }
        END { exit bad }' bench.md
}
check "bench/cxx.sh: CPU ns per pair, plain (1 to 200) < MTRACE=2 < MTRACE=1 < heaptrack, for each pair" order
BENCH_CXX_PAIRS=lots "$TOP/bench/cxx.sh" --quick > /dev/null 2> bench-bad.err
check "bench/cxx.sh: BENCH_CXX_PAIRS=lots refused, exit 2" test $? = 2
has "bench/cxx.sh: ... saying what it wants" bench-bad.err "BENCH_CXX_PAIRS must be two numbers"

# ---- doc/limits.md's C++ rows (tests/cxx/rows.cpp, a mode each)
cc -shared -fPIC -g -O1 plain.c -o libplain.so      # a library built without mtrace
cxx g++ -std=c++17 -fsized-deallocation -g -O1 rows.cpp -o rows -L. -lplain -Wl,-rpath,'$ORIGIN'
./rows own > /dev/null 2> rows-own.err
has "own std:: function, no MTRACE_DEPTH: its new[] at its own line" rows-own.err \
    "rows.cpp:$(line rows.cpp OWN-STD): error: 12 bytes in 1 block leaked here (in std::mtrace_test_own(int))"
MTRACE_DEPTH=16 ./rows own > /dev/null 2> rows-depth.err
has "own std:: function, MTRACE_DEPTH: charged past, as the C++ library's, to its caller's line" rows-depth.err \
    "rows.cpp:$(line rows.cpp CALL-STD): error: 12 bytes in 1 block leaked here (in main)"
has "... while the same function outside std stays at its line" rows-depth.err \
    "rows.cpp:$(line rows.cpp OUTSIDE-STD): error: 28 bytes in 1 block leaked here (in outside_std(int))"
has "a class's own operator new: not replaced, its malloc traced at its line" rows-own.err \
    "rows.cpp:$(line rows.cpp CLASS-MALLOC): error: 13 bytes in 1 block leaked here (in ByMalloc::operator new(unsigned long))"
has "a class's own operator new: its ::operator new traced at its line" rows-own.err \
    "rows.cpp:$(line rows.cpp CLASS-GLOBAL): error: 17 bytes in 1 block leaked here (in ByGlobal::operator new(unsigned long))"
check "a class's own operator new: no site at the new expressions, 4 leaks in all, no mismatch (its delete freed its blocks)" \
    test "$(grep -c -e "rows.cpp:$(line rows.cpp NEW-BY-MALLOC):" -e "rows.cpp:$(line rows.cpp NEW-BY-GLOBAL):" \
            -e mismatched rows-own.err) $(grep -c 'leaked here' rows-own.err)" = "0 4"
MTRACE_REPORT=rows-frees.json ./rows frees > /dev/null 2> rows-frees.err
check "aligned new by plain delete, sized delete[] of the wrong size, free of new[]'s block by a library without mtrace: exit 0" \
    test $? = 0
check "... none reported, every block freed (JSON: mismatched_frees 0, leaked_bytes 0)" test "$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
print(r["mismatched_frees"], r["invalid_frees"], r["leaked_bytes"])' rows-frees.json)" = "0 0 0"
has "a library built without mtrace: its malloc not traced (its leak not reported), freeing it here silent" rows-frees.err \
    "*** MTRACE: No memory leaks"
if command -v valgrind > /dev/null; then
    g++ -std=c++17 -fsized-deallocation -g -O1 rows.cpp -o rows-plain -L. -lplain -Wl,-rpath,'$ORIGIN'
    valgrind ./rows-plain frees > /dev/null 2> rows-frees.vg
    awk '/Mismatched free/ { n = 1 } n && /frees \(rows.cpp:/ { sub(/.*rows.cpp:/, ""); sub(/\).*/, ""); print; n = 0 }' \
        rows-frees.vg > rows-frees.vg-lines
    line rows.cpp FREE-PLAIN > rows-frees.want
    same "Memcheck 3.19 reports neither the aligned nor the sized delete; it does report the library's free" \
        rows-frees.want rows-frees.vg-lines
    ./rows-plain handler > rows-handler.plain 2>&1
    has "nothrow new whose new_handler throws, built plainly: null, as the standard says" rows-handler.plain "nothrow new: null"
fi
./rows handler > rows-handler.out 2> rows-handler.err
check "nothrow new whose new_handler throws: the exception cannot leave the noexcept new, std::terminate (134)" test $? = 134
has "... terminate names the handler's exception" rows-handler.err "terminate called after throwing an instance of 'std::bad_alloc'"
check "... and the program's catch never runs" test ! -s rows-handler.out

# under AddressSanitizer: ASan's operators new and delete replace libmtrace's
cxx g++ -std=c++17 -fsized-deallocation -g -O1 -fsanitize=address forms.cpp -o forms-asan
ASAN_OPTIONS=detect_leaks=0 ./forms-asan leak > /dev/null 2> forms-asan.err
check "-fsanitize=address: new's and new[]'s leaks not traced, std::malloc's is (one leak record, at its line)" \
    test "$(grep 'leaked here' forms-asan.err)" = \
        "forms.cpp:$(line forms.cpp LEAK-MALLOC): error: 33 bytes in 1 block leaked here (in main)"
cxx g++ -std=c++17 -g -O0 -fsanitize=address -Wno-mismatched-new-delete mismatch.cpp -o mismatch-asan
ASAN_OPTIONS=detect_leaks=0 ./mismatch-asan > /dev/null 2> mismatch-asan.err
has "-fsanitize=address: ASan checks the families itself (its alloc-dealloc-mismatch at the first)" mismatch-asan.err \
    "ERROR: AddressSanitizer: alloc-dealloc-mismatch (operator new [] vs operator delete)"
hasnt "... mtrace reports none" mismatch-asan.err "mismatched free"

# a C program without the C++ library loads a C++ one (tests/cxx/dlmain.c, plugin.cpp)
cxx g++ -g -O1 -shared -fPIC plugin.cpp -o libplugin.so
"$TOP/mtrace-cc" -g -O1 dlmain.c -o dlmain
./dlmain > /dev/null 2> dlmain.err
has "C program, dlopen'ed C++ library: its new traced at its line" dlmain.err \
    "plugin.cpp:$(line plugin.cpp PLUGIN-NEW): error: 12 bytes in 1 block leaked here (in plugin_make)"
./dlmain fail > dlmain-fail.out 2> dlmain-fail.err
check "C program, dlopen'ed C++ library: a new that fails aborts (134), no bad_alloc to catch" test $? = 134 -a ! -s dlmain-fail.out
"$TOP/mtrace-cc" -g -O1 dlmain.c -o dlmain-cxx -Wl,--no-as-needed -lstdc++
./dlmain-cxx fail > dlmain-cxx.out 2> /dev/null
has "... linked with -Wl,--no-as-needed -lstdc++: bad_alloc thrown and caught" dlmain-cxx.out "bad_alloc caught: 1"

# ---- installed: mtrace-c++ beside mtrace-cc, the installed header and library found
make -s -C "$TOP" install DESTDIR="$TMP/inst" PREFIX=/usr/local > inst.log 2>&1
check "make install: mtrace-c++ is a link to mtrace-cc, and works" \
    test "$(readlink "$TMP/inst/usr/local/bin/mtrace-c++")" = mtrace-cc -a \
         "$("$TMP/inst/usr/local/bin/mtrace-c++" --mtrace-header)" = "$TMP/inst/usr/local/include/mtrace.h"

finish
