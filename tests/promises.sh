#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/promises.sh - the documentation's promises at their edges (issue
# 37 item 2).  First the map from statements to tests
# (tests/promises.map, checked by tests/promises/check.py: a statement
# changed, a test gone, or a new statement with no test shows here); then
# the promises no other suite tested at their bounds: each block is a
# program of tests/promises/, the command, and the output the documents
# say it must give (the quote above each block), worked out by hand.
. "$(dirname "$0")/lib.sh"
P=$TOP/tests/promises
cd "$TMP" || exit 2

# --- the map: every line check.py prints is one check
python3 "$P/check.py" > map.out
while IFS= read -r line; do
    case $line in
        "ok   "*) pass "${line#ok   }" ;;
        "FAIL "*) fail "${line#FAIL }" ;;
    esac
done < map.out

# build NAME LEVEL [flags...]: tests/promises/NAME.c, copied here and
# compiled here (the reports' paths are then "NAME.c"), with libmtrace
build() {
    local name=$1 level=$2; shift 2
    cp "$P/$name.c" . && $CC $CFLAGS_T -O0 "$@" -DMTRACE="$level" -DMTRACE_LIB -include "$TOP/mtrace.h" \
        "$name.c" -o "$name" -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace
}
# line_of FILE MARK: the line of FILE whose comment is /* MARK */
line_of() { grep -n "/\* $2 \*/" "$1" | cut -d: -f1; }

# --- suppression files (doc/guide.md, MTRACE_SUPPRESS: "one pattern a line:
# `fun:GLOB`, `src:GLOB`, `src:GLOB:LINE`"; mtrace.7: "blank lines and
# lines starting with # are skipped"; "a pattern without / also matches
# the file's last component").  supp.c leaks 1 (keep_alpha), 2
# (keep_beta), 4 (other), 8 (main, line 14) and 16 bytes (main, line 15):
# the suppressed bytes name the sites matched.  It is compiled as
# sub/supp.c, so the report writes that path.
mkdir -p sub && cp "$P/supp.c" sub/ && $CC $CFLAGS_T -O0 -DMTRACE=3 -DMTRACE_LIB -include "$TOP/mtrace.h" \
    sub/supp.c -o supp -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace
# suppressed NAME 'PATTERN LINES' BYTES: the file holds the lines (printf's
# escapes), and exactly BYTES are suppressed ("" when none)
suppressed() {
    printf "$2" > "$1.supp"
    MTRACE_SUPPRESS=$1.supp ./supp 2> "$1.err"
    local got
    got=$(sed -n 's/^\*\*\* MTRACE: \([0-9]*\) bytes in [0-9]* blocks suppressed$/\1/p' "$1.err")
    [ "$got" = "$3" ] || { echo "     suppressed '$got', expected '$3'"; return 1; }
    ! grep -q 'not a suppression' "$1.err" || { echo "     a line refused:"; grep 'not a suppression' "$1.err"; return 1; }
}
check "suppressions: blank lines, blank-only lines and # comments (indented too) are skipped" \
    suppressed blank '\n   \n\t\n# a comment\n   # an indented one\nfun:keep_alpha\n\n' 1
check "suppressions: blanks and tabs around a pattern, CRLF line ends" \
    suppressed around '  fun:keep_alpha \t\r\n\tsrc:supp.c:14  \r\n' 9
check "suppressions: the last line without a newline" suppressed nonl 'fun:keep_beta' 2
check "suppressions: fun:* matches every function" suppressed star 'fun:*' 31
check "suppressions: fun:keep_* (a prefix glob)" suppressed prefix 'fun:keep_*' 3
check "suppressions: fun:keep_?eta (one character)" suppressed qmark 'fun:keep_?eta' 2
check "suppressions: fun:keep_[ab]* (a bracket)" suppressed bracket 'fun:keep_[ab]*' 3
check "suppressions: fun:keep (no glob) is the whole name, not a prefix" suppressed whole 'fun:keep' ''
check "suppressions: fun:KEEP_ALPHA: case counts" suppressed case 'fun:KEEP_ALPHA' ''
check "suppressions: src:supp.c:14 matches its line only" suppressed atline 'src:supp.c:14' 8
check "suppressions: src:supp.c:13, the line before, matches nothing" suppressed below 'src:supp.c:13' ''
check "suppressions: src:supp.c:16, the line after the last leak, matches nothing" suppressed above 'src:supp.c:16' ''
check "suppressions: src:*.c:15, a glob with a line" suppressed globline 'src:*.c:15' 16
check "suppressions: src:supp.c, without /, matches the last component of sub/supp.c" suppressed base 'src:supp.c' 31
check "suppressions: src:sub/supp.c matches the path as the report writes it" suppressed path 'src:sub/supp.c' 31
check "suppressions: src:*/supp.c (with /) matches the whole path" suppressed slash 'src:*/supp.c' 31
check "suppressions: src:ub/supp.c (with /, not the whole path) matches nothing" suppressed part 'src:ub/supp.c' ''
check "suppressions: src:supp.c:0 is no line: a file pattern that matches nothing" suppressed line0 'src:supp.c:0' ''
check "suppressions: a # after a pattern is part of it (only a line starting with # is a comment)" \
    suppressed inline 'fun:keep_alpha # kept on purpose' ''
has "suppressions: that pattern is stale, named by its line" inline.err "inline.supp:1: warning: suppression matched no leak"
printf '# one\n\nfun:keep_beta\n   \nfun:nothing_here\n' > count.supp
MTRACE_SUPPRESS=count.supp ./supp 2> count.err
has "suppressions: a stale pattern's line counts blank and comment lines (line 5)" count.err \
    "count.supp:5: warning: suppression matched no leak"
hasnt "suppressions: the pattern that matched is not stale" count.err "count.supp:3:"
printf 'fun:\nfun\nfun:other\n' > bad.supp
MTRACE_SUPPRESS=bad.supp ./supp 2> bad.err
has "suppressions: fun: with no name is not a suppression" bad.err \
    "*** MTRACE: bad.supp:1: not a suppression (fun:NAME, src:FILE or src:FILE:LINE): fun:"
has "suppressions: fun without a colon is not one either" bad.err "bad.supp:2: not a suppression"
has "suppressions: the good line after them applies" bad.err "*** MTRACE: 4 bytes in 1 blocks suppressed"

# --- MTRACE_ALLOC_FN's list (doc/guide.md: `MTRACE_ALLOC_FN="f g"`; names
# separated by blanks or commas).  allocfn.c leaks 24 bytes through
# xmalloc (line 5), called by make_name (line 7): charged to make_name
# when the list names xmalloc, else to xmalloc itself.
build allocfn 3 -g
# charged LIST FUNCTION: with MTRACE_ALLOC_FN=LIST, the leak is charged to FUNCTION
charged() {
    MTRACE_DEPTH=4 MTRACE_ALLOC_FN="$1" timeout 20 ./allocfn 2> allocfn.err
    grep -q "error: 24 bytes in 1 block leaked here (in $2)\$" allocfn.err || { sed 's/^/     /' allocfn.err; return 1; }
}
if command -v addr2line > /dev/null; then
    check "MTRACE_ALLOC_FN=xmalloc: charged to its caller" charged "xmalloc" make_name
    check "MTRACE_ALLOC_FN='f xmalloc' (a blank)" charged "f xmalloc" make_name
    check "MTRACE_ALLOC_FN='f,xmalloc' (a comma)" charged "f,xmalloc" make_name
    check "MTRACE_ALLOC_FN='xmalloc, f' (a comma and a blank)" charged "xmalloc, f" make_name
    check "MTRACE_ALLOC_FN=' ,xmalloc,, ' (separators around and doubled)" charged " ,xmalloc,, " make_name
    check "MTRACE_ALLOC_FN=xmallo (one letter short) names no wrapper" charged "xmallo" xmalloc
    check "MTRACE_ALLOC_FN=xmallocc (one letter more) names no wrapper" charged "xmallocc" xmalloc
    check "MTRACE_ALLOC_FN=XMALLOC: case counts" charged "XMALLOC" xmalloc
    check "MTRACE_ALLOC_FN without MTRACE_DEPTH: no stacks, charged to the site" \
        sh -c 'MTRACE_ALLOC_FN=xmalloc ./allocfn 2>&1 | grep -q "leaked here (in xmalloc)\$"'
fi

# --- what leak records merge under MTRACE_DEPTH (doc/guide.md: "one record per
# place (per call stack with MTRACE_DEPTH, its callers under it) ...
# records that would read the same merged").  merge.c's site (line 7) is
# reached from a() on main's lines 13 and 14 (1 and 2 bytes) and from b()
# (4 bytes): N = 1 shows the site alone, one record; N = 2 the site and
# a() or b(), two; N = 3 main's lines too, three; N = 4 no more.
build merge 3 -g
# records N: the leak records' bytes under MTRACE_DEPTH=N, largest first
records() { MTRACE_DEPTH=$1 ./merge 2>&1 | sed -n 's/.*error: \([0-9]*\) bytes in .*/\1/p' | tr '\n' ' '; }
if command -v addr2line > /dev/null; then
    check "MTRACE_DEPTH=1: the site alone, one record of 7 bytes" test "$(records 1)" = "7 "
    check "MTRACE_DEPTH=2: a() and b() apart, a()'s two calls one record (4, 3)" test "$(records 2)" = "4 3 "
    check "MTRACE_DEPTH=3: main's two lines apart too (4, 2, 1)" test "$(records 3)" = "4 2 1 "
    check "MTRACE_DEPTH=4: nothing more to tell apart (4, 2, 1)" test "$(records 4)" = "4 2 1 "
fi

# --- "at peak" under MTRACE_ALLOC_FN (doc/guide.md: "what each place held at
# the peak of the whole heap").  atpeak.c: make_t's 1000 bytes are freed
# before the peak; make_ab holds 100 + 50 through two wrappers called on
# one line (one place), make_c 2000: the peak is 2150.
build atpeak 2 -g
cat > atpeak.expected <<'EOT'
   at peak                function   file (charged past MTRACE_ALLOC_FN)
      2000                  make_c   atpeak.c:7
       150                 make_ab   atpeak.c:6
         0                  make_t   atpeak.c:8
EOT
if command -v addr2line > /dev/null; then
    MTRACE_DEPTH=4 MTRACE_ALLOC_FN="xmalloc xcalloc" ./atpeak 2> atpeak.err
    grep -A3 'at peak' atpeak.err > atpeak.got
    same "at peak: two calls on one line are one place (100 + 50), a block freed before the peak is not in it" \
        atpeak.expected atpeak.got
fi

# --- the JSON report's strings (report-json.md: '"', '\', control
# characters and bytes above 0x7f escaped, \u00XX reading back as the
# Latin-1 character of the byte).  json.c's file is
# "t<TAB>ab<0x01>"q\é 50%<0x7f>.c" (#line), its function fé, both in UTF-8.
build json 3
MTRACE_REPORT=json.json ./json 2> /dev/null
cat > escape.py <<'EOT'
import json, sys
raw = open(sys.argv[1], "rb").read()
# every byte printable ASCII or a newline: control bytes and UTF-8 escaped
bad = [b for b in raw if b >= 0x7f or (b < 0x20 and b != 0x0a)]
r = json.loads(raw.decode("ascii"))
file = "t\tab\x01\"q\\\u00c3\u00a9 50%\x7f.c"      # the UTF-8 bytes of é, one character each
site, leak = r["sites"][0], r["leaks"][0]
print(len(bad), site["file"] == file, site["function"] == "f\u00c3\u00a9", leak["file"] == file,
      leak["function"] == "f\u00c3\u00a9")
EOT
check "JSON: a tab, a control byte, a quote, a backslash and UTF-8 in a file name and a function: ASCII, valid, read back byte for byte" \
    test "$(python3 escape.py json.json)" = "0 True True True True"
has "JSON: a control byte as \\u0001, 0x7f as \\u007f" json.json 't\u0009ab\u0001\"q\\\u00c3\u00a9 50%\u007f.c'

# the same names in the trace's @ record (trace-format.md: "A blank, a
# control character, % (or a byte 0x7f) inside FUNC or FILE is written
# %XX with two upper-case hex digits"; a quote, a backslash and bytes
# above 0x7f are not)
build json 1
MTRACE=json.trace ./json 2> /dev/null
check "trace: @ escapes the tab, the control byte, the blank, % and 0x7f as %XX (upper case), nothing else" \
    test "$(sed -n 's/^@ 1 //p' json.trace)" = "$(printf 'f\303\251 t%%09ab%%01"q\\\303\251%%2050%%25%%7F.c 7')"

# --- reallocarray's overflow (trace-format.md: "any call that fails:
# nothing"; the C library's contract: NULL, ENOMEM, the block untouched)
build rarray 1 -Wno-alloc-size-larger-than
MTRACE=rarray.trace ./rarray > rarray.out 2> /dev/null
cat > rarray.expected <<'EOT'
NULL, 2^63, 2: NULL, ENOMEM
NULL, 2^60 + 1, 16: NULL, ENOMEM
p, 2^60, 16: NULL, ENOMEM
p, 16, 2^60: NULL, ENOMEM
NULL, 3, 5: a block
EOT
same "reallocarray: n * size over SIZE_MAX fails with ENOMEM (either argument), 3 * 5 does not" rarray.expected rarray.out
check "reallocarray: the failed calls write no record; 3 * 5 writes '+' of 15 bytes; p freed once, by its own site" \
    test "$(awk '/^[-+<>] / {printf "%s%s ", $1, $1 == "+" ? $5 : ""}' rarray.trace)" = "+8 +15 - - "

# --- the gnuplot tail (trace-format.md: "one curve of SITE for each of
# the (at most 12) sites whose peak reached 1% of the peak of TOTAL")
build tail 1
# curves TRACE: the titles of the tail's site curves, one a line
curves() { tail -n 1 "$1" | grep -o ": mt[0-9]*) w steps t '[^']*'" | sed "s/^[^']*'//; s/'\$//"; }
MTRACE=tail.trace ./tail 2> /dev/null
printf 'one_percent (tail.c:%s)\none_percent (tail.c:%s)\n' "$(line_of tail.c BIG)" "$(line_of tail.c AT)" > tail.expected
curves tail.trace > tail.got
same "gnuplot tail: a site at exactly 1% of the peak (100 of 10000) is drawn, one at 99 is not" tail.expected tail.got
MTRACE=many.trace ./tail many 2> /dev/null
curves many.trace > many.got
check "gnuplot tail: 14 sites over 1%, 12 curves" test "$(wc -l < many.got)" = 12
check "gnuplot tail: the 12 largest peaks, largest first (114 bytes ... 103)" \
    test "$(head -n 1 many.got) $(tail -n 1 many.got)" = "many (tail.c:$(line_of tail.c S114)) many (tail.c:$(line_of tail.c S103))"

# --- mtrace-diff's rows (mtrace-diff.md: "in order of the absolute change
# of the peak, largest first; ties by the absolute change of the total,
# then of the leaked bytes, then of the calls, then by name"; a name is
# function, file, line).  Two reports made to measure; the expected
# order worked out from that sentence.
# site FUNC FILE LINE CALLS TOTAL PEAK LIVE: one site of a version 2 report
site() {
    printf '{"function": "%s", "file": "%s", "line": %s, "allocations": %s, "calls": %s, "total_bytes": %s, "peak_bytes": %s, "live_bytes": %s, "reachable_bytes": 0, "suppressed": false}' \
        "$1" "$2" "$3" "$4" "$4" "$5" "$6" "$7"
}
report() { echo "{\"mtrace_report\": 2, \"peak_bytes\": 1000, \"leaked_bytes\": 0, \"sites\": [$1]}"; }
report "$(site a x.c 1 1 100 100 0), $(site b x.c 1 1 300 300 0), $(site c x.c 1 1 100 100 0),
    $(site d x.c 1 1 100 100 0), $(site e x.c 1 1 100 100 0), $(site f x.c 10 1 100 100 0),
    $(site f x.c 9 1 100 100 0), $(site f w.c 50 1 100 100 0), $(site ea x.c 1 1 100 100 0),
    $(site t x.c 1 1 100 100 0), $(site g x.c 1 1 100 100 0)" > base.json
report "$(site a x.c 1 1 600 600 0), $(site b x.c 1 1 350 100 0), $(site c x.c 1 1 140 300 0),
    $(site d x.c 1 1 100 100 30), $(site e x.c 1 6 100 100 0), $(site f x.c 10 1 110 110 0),
    $(site f x.c 9 1 110 110 0), $(site f w.c 50 1 110 110 0), $(site ea x.c 1 1 110 110 0),
    $(site t x.c 1 1 1100 100 0), $(site g x.c 1 1 100 100 0)" > new.json
# a: peak +500; b: -200, total +50; c: +200, total +40; ea, f w.c:50,
# f x.c:9, f x.c:10: +10 and +10 each, by name (line 9 before 10); t:
# total +1000 alone; d: leaked +30 alone; e: calls +5 alone; g unchanged
cat > order.expected <<'EOT'
a x.c:1
b x.c:1
c x.c:1
ea x.c:1
f w.c:50
f x.c:9
f x.c:10
t x.c:1
d x.c:1
e x.c:1
(1 site unchanged)
EOT
"$TOP/mtrace-diff" base.json new.json > order.out
sed '1,2d' order.out | awk '/^\(/ { print; next } { print $(NF - 1), $NF }' > order.got
same "mtrace-diff: rows by |peak change|, then |total|, |leaked|, |calls|, then function, file, line" order.expected order.got

# --- fork: how far back a child remembers (processes.md: "a grandchild
# remembers what its parent and grandparent had, up to 8 generations
# back"; limits.md: "freed more than 8 generations of fork back ... not
# reported by mtrace").  gen.c frees a block, forks K generations deep,
# and the last child frees it again: K = 8 is the oldest remembered.
build gen 3
# generations NAME K [again]: gen's stderr and status in NAME.{err,rc}
generations() { MTRACE_DOUBLE_FREE=continue timeout 20 ./gen "${@:2}" > /dev/null 2> "$1.err"; echo $? > "$1.rc"; }
if [ -z "$ASAN" ]; then     # (ASan reports double frees itself: limits.md)
    generations g7 7 again
    generations g8 8 again
    generations g9 9 again
    check "fork: a block freed 7 generations back, freed again: the double free, status 1" \
        sh -c "grep -q 'gen.c:$(line_of gen.c AGAIN): error: double free of a block' g7.err && test \$(cat g7.rc) = 1"
    check "fork: freed 8 generations back (the oldest remembered): the double free, status 1" \
        sh -c "grep -q 'gen.c:$(line_of gen.c AGAIN): error: double free of a block' g8.err && test \$(cat g8.rc) = 1"
    hasnt "fork: freed 9 generations back: not reported by mtrace" g9.err "double free of a block"
    check "fork: 9 generations back: no crash of mtrace's (SIGSEGV), what glibc does instead" test "$(cat g9.rc)" != 139
fi
generations deep 12
check "fork: 12 generations deep, each child allocating: no crash, status 0" test "$(cat deep.rc)" = 0

# --- the trace's names under fork (processes.md's table: MTRACE unset:
# mtrace and mtrace.PID; NAME-%p: NAME-PID and NAME-CHILDPID; NAME and
# NAME.PID: tests/tracer.sh)
build names 1
mkdir -p unset pid && (cd unset && env -u MTRACE ../names 2> /dev/null) && (cd pid && MTRACE=NAME-%p ../names 2> /dev/null)
check "fork, MTRACE unset: the parent writes mtrace, the child mtrace.PID, nothing else" \
    sh -c "ls unset | grep -cxE 'mtrace|mtrace\.[0-9]+' | grep -qx 2 && test \$(ls unset | wc -l) = 2 && test -f unset/mtrace"
check "fork, MTRACE=NAME-%p: NAME-PID and NAME-CHILDPID, no .PID added" \
    sh -c "ls pid | grep -cxE 'NAME-[0-9]+' | grep -qx 2 && test \$(ls pid | wc -l) = 2"

# --- MPI ranks (processes.md: "read from the launcher's environment, in
# this order: OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK,
# MV2_COMM_WORLD_RANK, SLURM_PROCID"; rank r > 0 writes NAME-r)
# rank_file VAR=VALUE...: the trace file names.c's parent writes with them
rank_file() {
    rm -rf ranks && mkdir ranks && (cd ranks && env "$@" MTRACE=T ../names 2> /dev/null) && ls ranks | grep -vE '\.[0-9]+$' | tr '\n' ' '
}
check "MPI: OMPI_COMM_WORLD_RANK first (1 over PMIX_RANK 2)" test "$(rank_file OMPI_COMM_WORLD_RANK=1 PMIX_RANK=2)" = "T-1 "
check "MPI: then PMIX_RANK (2 over PMI_RANK 3)" test "$(rank_file PMIX_RANK=2 PMI_RANK=3)" = "T-2 "
check "MPI: then PMI_RANK (3 over MV2_COMM_WORLD_RANK 4)" test "$(rank_file PMI_RANK=3 MV2_COMM_WORLD_RANK=4)" = "T-3 "
check "MPI: then MV2_COMM_WORLD_RANK (4 over SLURM_PROCID 5)" test "$(rank_file MV2_COMM_WORLD_RANK=4 SLURM_PROCID=5)" = "T-4 "
check "MPI: SLURM_PROCID last" test "$(rank_file SLURM_PROCID=5)" = "T-5 "
check "MPI: rank 0 writes NAME itself" test "$(rank_file SLURM_PROCID=0)" = "T "

# --- how many leak records are printed (doc/guide.md: "at most 30 records of
# each kind (10 with call stacks), then one line with how many more and
# their bytes; MTRACE_LEAK_RECORDS=N prints N").  records.c leaks 101 to
# 112 bytes on twelve lines: twelve records.
build records 3 -g
# printed NAME [VAR=value...]: "PRINTED MORE": the error records printed,
# and the count of the "and N more leak records" line (0 without one)
printed() {
    env "$@" ./records 2> records.err
    echo "$(grep -c ': error: ' records.err) $(sed -n 's/.*and \([0-9]*\) more leak records.*/\1/p' records.err | grep . || echo 0)"
}
check "MTRACE_LEAK_RECORDS=11, one below the 12 records: 11 printed, 1 more" test "$(printed MTRACE_LEAK_RECORDS=11)" = "11 1"
has "MTRACE_LEAK_RECORDS=11: the one left out is the smallest, counted with its bytes" records.err \
    "*** MTRACE: and 1 more leak records (101 bytes in 1 blocks)"
check "MTRACE_LEAK_RECORDS=12, exactly: 12 printed, no 'more' line" test "$(printed MTRACE_LEAK_RECORDS=12)" = "12 0"
check "MTRACE_LEAK_RECORDS=13, one above: 12 printed, no 'more' line" test "$(printed MTRACE_LEAK_RECORDS=13)" = "12 0"
check "unset, 12 records: all 12 printed (the default is 30)" test "$(printed)" = "12 0"
if command -v addr2line > /dev/null; then
    check "unset, with call stacks (MTRACE_DEPTH=2): 10 printed, 2 more" test "$(printed MTRACE_DEPTH=2)" = "10 2"
    check "MTRACE_LEAK_RECORDS=12 with call stacks: 12 printed" test "$(printed MTRACE_DEPTH=2 MTRACE_LEAK_RECORDS=12)" = "12 0"
fi

# --- every field of the JSON report (report-json.md's tables), from
# fields.c, whose figures are worked out in its comment: 13 calls (get 3,
# SIZES 7, KEPT, GROW, LOST), 24 records (each + and - of get and SIZES,
# KEPT's +, GROW's < and >, LOST's +), the peak 205 (200 + 5) at the last
# record, 23; temporary: SIZES' 7 and get's q and r (freed before any other
# allocation; p was not: q came first) = 9.
build fields 1 -g
MTRACE_DEPTH=4 MTRACE_LEAK_CHECK=reachable MTRACE=fields.trace MTRACE_REPORT=fields.json ./fields > fields.out 2> fields.err
echo $? > fields.rc
cat > fields.py <<'EOT'
import json, re, sys
r = json.load(open("fields.json"))
line = {m: n for m, n in (a.split("=") for a in sys.argv[2:])}
want = {"mtrace_report": 2, "pid": int(open("fields.out").read()), "rank": -1, "level": 1,
        "trace": sys.argv[1] + "/fields.trace", "program_status": 0, "exit_status": 1,
        "peak_bytes": 205, "peak_record": 23, "records": 24, "double_frees": 0, "invalid_frees": 0, "mismatched_frees": 0,
        "freed_forgotten": 0, "leaked_bytes": 5, "leaked_blocks": 1, "suppressed_bytes": 0,
        "suppressed_blocks": 0, "reachable_bytes": 200, "untraced_signal_calls": 0, "calls": 13,
        "temporary": 9, "budget_bytes": None, "over_budget": False}
bad = ["%s: %r, not %r" % (k, r.get(k), v) for k, v in want.items() if r.get(k) != v]
text = open("fields.err").read()
rss = re.search(r"max resident  set size: +(\d+) bytes", text).group(1)
pct = re.search(r"tracing overhead ([0-9.]+)%", text).group(1)
if r["max_rss_bytes"] != int(rss):
    bad.append("max_rss_bytes %d, the summary %s" % (r["max_rss_bytes"], rss))
if "%.1f" % (100.0 * r["tracer_bytes_at_peak"] / r["peak_bytes"]) != pct:
    bad.append("tracer_bytes_at_peak over peak_bytes is not the summary's %s%%" % pct)
# each site: (line, allocations = calls, total, temporary, peak, peak_blocks, at peak, live, blocks, reachable)
sites = [(line["GROW"], 1, 200, 0, 200, 1, 200, 200, 1, 200), (line["KEPT"], 1, 100, 0, 100, 1, 0, 0, 0, 0),
         (line["GET"], 3, 40, 2, 20, 2, 0, 0, 0, 0), (line["SIZES"], 7, 25, 7, 8, 1, 0, 0, 0, 0),
         (line["LOST"], 1, 5, 0, 5, 1, 5, 5, 1, 0)]
got = [(str(s["line"]), s["allocations"], s["total_bytes"], s["temporary"], s["peak_bytes"], s["peak_blocks"],
        s["bytes_at_peak"], s["live_bytes"], s["live_blocks"], s["reachable_bytes"]) for s in r["sites"]]
if [(str(s[0]),) + s[1:] for s in sites] != got:
    bad.append("sites %r" % got)
if any(s["calls"] != s["allocations"] or s["suppressed"] or s["file"] != "fields.c" for s in r["sites"]):
    bad.append("a site's calls, suppressed or file")
leaks = [(l["kind"], l["function"], str(l["line"]), l["bytes"], l["blocks"], l["callers"]) for l in r["leaks"]]
if leaks != [("leak", "lose", line["LOST"], 5, 1, [{"function": "main", "file": "fields.c", "line": int(line["CALL"])}]),
             ("reachable", "main", line["GROW"], 200, 1, [])]:
    bad.append("leaks %r" % leaks)
hist = [(h["min"], h["max"], h["count"]) for h in r["size_histogram"]]
# requests 0 1 2 3 4 7 8 (SIZES), 10 10 20 (get), 100, 200, 5
if hist != [(0, 0, 1), (1, 1, 1), (2, 3, 2), (4, 7, 3), (8, 15, 3), (16, 31, 1), (64, 127, 1), (128, 255, 1)]:
    bad.append("size_histogram %r" % hist)
print("\n".join(bad) or "all")
EOT
marks=""
for m in GET LOST SIZES KEPT GROW CALL; do marks="$marks $m=$(line_of fields.c $m)"; done
python3 fields.py "$TMP" $marks > fields.got 2>&1
# (under ASan its allocator's tables point into the blocks: limits.md)
nasan check "JSON: every field of the report and of each site and leak record, as worked out by hand" \
    sh -c 'test "$(cat fields.got)" = all || { sed "s/^/     /" fields.got; false; }'
check "JSON: the run's exit status is exit_status (1: a leak)" test "$(cat fields.rc)" = 1
# the same at level 2 under MPI rank 2: the report's name gets -2, no trace
build fields 2 -g
PMI_RANK=2 MTRACE_REPORT=fields2.json ./fields > /dev/null 2>&1
check "JSON: level 2, MPI rank 2: written as NAME-2, rank 2, level 2, trace null" \
    test "$(python3 -c 'import json; r = json.load(open("fields2.json-2")); print(r["rank"], r["level"], r["trace"])' 2>&1)" = "2 2 None"

# --- when and where the JSON report is written (report-json.md: "a
# program ended by _exit or a signal writes none"; "a relative name is
# taken from the working directory at start-up")
build ends 3
mkdir -p away
for how in exit _exit signal chdir; do
    (MTRACE_REPORT=ends-$how.json ./ends $how > /dev/null 2>&1; true) 2> /dev/null    # (no "Terminated")
done
check "JSON report: written at exit" test -s ends-exit.json
check "JSON report: none after _exit" test ! -e ends-_exit.json
check "JSON report: none after a signal's default action (SIGTERM)" test ! -e ends-signal.json
check "JSON report: a relative name after chdir: in the directory of the start, not the new one" \
    test -s ends-chdir.json -a ! -e away/ends-chdir.json

# --- the trace's bounds (trace-format.md: "Names longer than 4096 bytes
# are cut there"; "#cmd (from /proc/self/cmdline, at most 2 KiB)";
# MAXRSS "as last sampled (first record, every 1024th, and after
# operations of >= 1 MiB)")
# longfile N: the length of the FILE of the @ record of a site in a file
# that #line names with N letters
longfile() {
    { printf '#include <stdlib.h>\nvoid *keep;\n#line 1 "'; head -c "$1" /dev/zero | tr '\0' a; printf '"\n'
      printf 'int main(void) { keep = malloc(1); return 0; }\n'; } > long$1.c
    $CC $CFLAGS_T -O0 -DMTRACE=1 -DMTRACE_LIB -include "$TOP/mtrace.h" long$1.c -o long$1 -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace &&
    MTRACE=long$1.trace ./long$1 2> /dev/null
    awk '$1 == "@" { print length($4) }' long$1.trace
}
check "trace: a FILE of 4095 bytes, whole" test "$(longfile 4095)" = 4095
check "trace: a FILE of 4096 bytes, whole" test "$(longfile 4096)" = 4096
check "trace: a FILE of 4097 bytes, cut at 4096" test "$(longfile 4097)" = 4096
# cmdline N: #cmd of names run with one argument that makes its
# /proc/self/cmdline N bytes ("./names", NUL, the argument, NUL)
cmdline() {
    local arg
    arg=$(head -c $(($1 - 9)) /dev/zero | tr '\0' x)
    MTRACE=cmd$1.trace ./names "$arg" 2> /dev/null
    head -n 1 cmd$1.trace | awk '{ print $1, $2, length($3) }'
}
check "trace: #cmd of a 2048-byte command line, whole" test "$(cmdline 2048)" = "#cmd ./names 2039"
check "trace: #cmd of a 2049-byte command line: at most 2 KiB kept" test "$(cmdline 2049)" = "#cmd ./names 2039"
build rss 1
MTRACE=rss.trace ./rss 2> /dev/null
# rss RECNO: the MAXRSS of that record
rss() { awk -v n="$1" '/^[-+<>] / && $3 == n { print $6 }' rss.trace; }
check "MAXRSS: not sampled after an operation of 1 MiB - 1 (record 1 = record 0)" test "$(rss 1)" = "$(rss 0)"
# (a sample shows at least 8 of the 16 MiB: the kernel's count of
# resident pages is approximate, by a few hundred KiB)
check "MAXRSS: sampled after an operation of 1 MiB (record 2: the 16 MiB touched since)" \
    test "$(rss 2)" -ge $(( $(rss 0) + (8 << 20) ))
check "MAXRSS: not sampled at record 1023" test "$(rss 1023)" = "$(rss 2)"
check "MAXRSS: sampled at record 1024" test "$(rss 1024)" -ge $(( $(rss 1023) + (8 << 20) ))
check "MAXRSS: never decreases" awk '/^[-+<>] / { if ($6 < m) exit 1; m = $6 }' rss.trace

# --- the line about temporaries (doc/guide.md: "when more than 10% of the
# allocations (and at least 10) were temporary ... one more line counts
# them and names the line with most of them"; the 10% edge: gaps.sh)
build temp 2
./temp 9 2> temp9.err
./temp 10 2> temp10.err
hasnt "temporaries: 9 of 9 (100%, but fewer than 10): no line" temp9.err "temporary"
has "temporaries: 10 of 10: the line, naming the place" temp10.err \
    "*** MTRACE: 10 of 10 allocations (100.0%) were temporary (freed before any other allocation), 10 of them at temp.c:$(line_of temp.c TEMP) (in main)"

# --- the reachability scan's edges (limits.md: "any word that looks like
# a pointer into a block keeps it"; "memory the program got from mmap
# itself is not scanned"; gaps.sh: a pointer just past the end does not)
build reach 3
MTRACE_LEAK_CHECK=reachable ./reach 2> reach.err
if [ -z "$ASAN" ]; then     # (under ASan the allocator's tables point into the blocks: limits.md)
    has "reachable: a pointer to a block's first byte, in .bss, keeps it" reach.err \
        "reach.c:$(line_of reach.c START): note: 16 bytes in 1 block still reachable here (in build)"
    has "reachable: a pointer to a block's last byte, in .data, keeps it" reach.err \
        "reach.c:$(line_of reach.c LAST): note: 16 bytes in 1 block still reachable here (in build)"
    has "reachable: a pointer kept only in the program's own mmap is not seen: lost" reach.err \
        "reach.c:$(line_of reach.c MMAPPED): error: 16 bytes in 1 block leaked here (in build)"
fi

# --- realloc of a pointer never traced (trace-format.md's table: ">" (the
# block is traced from then on)): getline's line, grown by the program
build foreign 1
MTRACE=foreign.trace ./foreign 2> foreign.err
check "realloc of a block the C library allocated: '>' of 1000 bytes at the realloc's site, no '<'; its free '-'" \
    test "$(awk '/^[-+<>] / { printf "%s%s:%s ", $1, $2, $4 }' foreign.trace)" = "$(printf '>1:1000 -1:0 ')"
has "... the site is the realloc's line" foreign.trace "@ 1 main foreign.c $(line_of foreign.c REALLOC)"
has "... and no leak" foreign.err "*** MTRACE: No memory leaks"

# --- calls no macro announced, at most 4096 places (limits.md: "traced at
# a site per calling address ... beyond 4096 such addresses, the rest
# share ? <unknown> 0").  many.c, made here: main calls malloc through a
# pointer from 4097 lines, the first N of them (its argument).
{ echo '#include <stdlib.h>'; echo 'void *(*volatile fp)(size_t) = malloc;'
  echo 'int main(int argc, char **argv)'; echo '{'; echo '    int n = atoi(argv[1]);'
  for i in $(seq 1 4097); do echo "    if (n >= $i) fp(1);"; done
  echo '    return 0;'; echo '}'; } > many.c
$CC $CFLAGS_T -O0 -DMTRACE=1 -DMTRACE_LIB -include "$TOP/mtrace.h" many.c -o many -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace
# places N: "SITES UNKNOWN": the trace's @ records of a calling address, and
# of the shared unknown site, after N calls from N places
places() {
    MTRACE=many$1.trace ./many "$1" 2> /dev/null
    echo "$(grep -c '^@ [0-9]* ? 0x' many$1.trace) $(grep -c '^@ [0-9]* ? <unknown> 0$' many$1.trace)"
}
check "calls through a pointer from 4096 places: 4096 sites, none unknown" test "$(places 4096)" = "4096 0"
check "... from 4097 places: 4096 sites, the last call at ? <unknown> 0" test "$(places 4097)" = "4096 1"
check "... each of the 4096 named at exit by a #site record" test "$(grep -c '^#site ' many4097.trace)" = 4096

# --- the note of a program dying in free() (limits.md: "its place is the
# call's __FILE__ as the compiler got it (a.c, not src/a.c)"): diedfree.c
# compiled inside src/, run from here; the leak report of the same file
# would say src/diedfree.c
mkdir -p src && cp "$P/diedfree.c" src/ && (cd src && $CC $CFLAGS_T -O0 -g -DMTRACE=1 -DMTRACE_LIB \
    -include "$TOP/mtrace.h" diedfree.c -o ../diedfree -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace)
if [ -z "$ASAN" ]; then
    (MTRACE=died.trace ./diedfree > died.out 2> died.err; echo $? > died.rc)
    check "a free the C library's check aborts: SIGABRT (134)" test "$(cat died.rc)" = 134
    has "...and the note names the call with __FILE__ as compiled" died.err \
        "diedfree.c:14: note: the program died in free() called here (in main)"
    hasnt "...not made relative to the directory it runs in" died.err "src/diedfree.c"
fi

# --- the JSON report's moment (report-json.md: "written after the text
# report (after every destructor of the program and its libraries)"):
# the order of the writes as strace sees them, and what the destructors
# freed not counted as leaked
cp "$P/dtorlib.c" . && $CC $CFLAGS_T -O0 -shared -fPIC dtorlib.c -o libdtorlib.so
cp "$P/dtor.c" . && $CC $CFLAGS_T -O0 -DMTRACE=1 -DMTRACE_LIB -include "$TOP/mtrace.h" dtor.c -o dtor \
    -L. -Wl,-rpath,"$TMP" -ldtorlib -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace
if strace -o /dev/null true 2> /dev/null; then
    MTRACE_REPORT=dtor.json strace -o dtor.strace -e trace=write,openat ./dtor > /dev/null 2> dtor.err
    # the strace line of each: the two destructors' words, the report's first line, the JSON's opening
    order=$(awk '/write\(2, "program destructor/ { p = NR } /write\(2, "library destructor/ { l = NR }
                 /write\(2, "\*\*\* MTRACE: max resident/ && !t { t = NR } /openat\(.*dtor.json/ { j = NR }
                 END { print (p && l && t && j && p < t && l < t && t < j) ? "in order" : p " " l " " t " " j }' dtor.strace)
    check "JSON report: opened after the text report, itself after the program's and a library's destructors" \
        test "$order" = "in order"
else
    echo "     (strace cannot trace here: the order of the writes not checked)"
    MTRACE_REPORT=dtor.json ./dtor > /dev/null 2> dtor.err
fi
check "JSON report: the blocks both destructors freed not leaked (7 bytes, 1 block, as the text)" test "$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
print(r["leaked_bytes"], r["leaked_blocks"])' dtor.json)" = "7 1"
has "... the text's one leak" dtor.err "dtor.c:$(line_of dtor.c LEAK): error: 7 bytes in 1 block leaked here (in main)"

# --- a block of 2 TiB or more (limits.md: "the tracer's table cannot take
# it: one line says so (`a block of 2 TiB or more, which the tracer's table cannot take`), the figures are
# incomplete from then on"); 2 TiB - 1 bytes is traced
build huge 1
MTRACE=huge.trace ./huge > /dev/null 2> huge.err
check "a block of 2 TiB - 1 bytes: traced (its + record, its site's peak)" \
    sh -c "grep -q '^+ [0-9]* [0-9]* 2199023255551 2199023255551 ' huge.trace && grep -qE '^2199023255551 +1 +main +huge.c:$(line_of huge.c BELOW)\$' huge.err"
has "a block of 2 TiB: the table cannot take it, said in one line that names the block's size" huge.err \
    "*** MTRACE: a block of 2 TiB or more, which the tracer's table cannot take: from now on its figures are incomplete"
check "... no record of it, the summary says the figures are incomplete" \
    sh -c "! grep -q ' 2199023255552 ' huge.trace && grep -q '^\*\*\* MTRACE: the tracer could not record every block (said when it happened): figures are incomplete\$' huge.err && test \"\$(grep -c 'cannot take' huge.err)\" = 1"

# --- free of a page the program mapped itself (limits.md: "when the kernel
# merged the mapping with the one below it ... not named: the page is then
# in the middle of a mapping ...; glibc's check aborts"); a page mapped
# alone is named
if [ -z "$ASAN" ]; then
    build merged 1
    (./merged > /dev/null 2> merged.err; echo $? > merged.rc)
    check "free of a page mapped just above a mapping the kernel merged it with: not named by mtrace" \
        sh -c "! grep -q 'invalid free' merged.err && test \"\$(cat merged.rc)\" = 134"
    has "... glibc's check aborts, mtrace names the call" merged.err \
        "merged.c:$(line_of merged.c FREE): note: the program died in free() called here (in main)"
    (./merged alone > /dev/null 2> alone.err)
    has "... a page mapped alone: named" alone.err \
        "merged.c:$(line_of merged.c FREE): error: invalid free of an address from mmap, not from an allocator (in main)"
fi

# --- addr2line is never run in a set-user-ID program (mtrace.7: "Never run
# in a set-user-ID program"): a call through a pointer, whose site only
# addr2line can name; an addr2line on PATH and in MTRACE_ADDR2LINE that
# leaves a mark when run (as root: the program is made another user's)
if [ "$(id -u)" = 0 ] && [ -z "$ASAN" ]; then
    build fnptr 1
    chmod 711 "$TMP" && mkdir -p suid fake && chmod 1777 suid
    printf '#!/bin/sh\ntouch "%s/suid/ran.$(id -u)"\nexec "%s" "$@"\n' "$TMP" "$(command -v addr2line)" > fake/addr2line
    chmod 755 fake fake/addr2line
    cp fnptr suid/fnptr && chown 65534 suid/fnptr && chmod 4755 suid/fnptr
    (cd suid && PATH=$TMP/fake:$PATH MTRACE_ADDR2LINE=$TMP/fake/addr2line ./fnptr > /dev/null 2> ../suid.err)
    check "set-user-ID: no addr2line run, neither MTRACE_ADDR2LINE's nor PATH's" test -z "$(ls suid | grep ran)"
    has "... the site named by module and offset" suid.err "fnptr+0x"
    (PATH=$TMP/fake:$PATH ./fnptr > /dev/null 2> nosuid.err)
    check "... the same program, not set-user-ID: the addr2line on PATH run, the site named" \
        sh -c "ls suid | grep -q ran && grep -q 'fnptr.c:$(line_of fnptr.c CALL): error: 9 bytes in 1 block leaked here (in main)' nosuid.err"
fi

# --- the level is fixed when a file is compiled (guide.md: "the
# environment at run time does not change it"): MTRACE_LEVEL, mtrace-cc's
# variable, set when the program runs, changes nothing either way
$CC $CFLAGS_T -O0 -DMTRACE=3 -DMTRACE_LIB -include "$TOP/mtrace.h" tail.c -o tail3 -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace
# lvl_run PROG LEVEL: PROG run with MTRACE_LEVEL=LEVEL; its trace, report, stderr
lvl_run() { MTRACE_LEVEL=$2 MTRACE=lvl-$1.trace MTRACE_REPORT=lvl-$1.json ./$1 > /dev/null 2> lvl-$1.err; }
lvl_run tail 3
lvl_run tail3 1
level_of() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["level"])' "$1"; }
check "built at level 1, run with MTRACE_LEVEL=3: still level 1 (JSON level 1, the trace written)" \
    test "$(level_of lvl-tail.json)" = 1 -a -s lvl-tail.trace
check "built at level 3, run with MTRACE_LEVEL=1: still level 3 (JSON level 3, no trace, no summary)" \
    test "$(level_of lvl-tail3.json)" = 3 -a ! -e lvl-tail3.trace -a -z "$(grep 'max traced memory' lvl-tail3.err)"

# --- the graph hint and gnuplot on PATH (guide.md: "It appears when
# `gnuplot` is on `PATH` (else it gives the `ms_print` route)"): without
# it, the ms_print route, its names quoted for the shell, run as printed
# from elsewhere; a gnuplot on PATH (any program so named) gives the graph
HD="$TMP/hint dir \$(touch PWNED)'q"
mkdir -p nognu withgnu "$HD" msp-elsewhere && ln -s /bin/true withgnu/gnuplot
(cd "$HD" && PATH=$TMP/nognu MTRACE=t.trace "$TMP/tail" > /dev/null 2> "$TMP/nognu.err")
has "no gnuplot on PATH: the hint gives the ms_print route" nognu.err \
    "*** MTRACE: To see it over time (no gnuplot on PATH) use: mtrace2massif "
hasnt "... and not gnuplot's" nognu.err "To get a graph"
grep 'To see it over time' nognu.err | sed 's/.*use: //' > msp.sh
(cd msp-elsewhere && PATH=$TOP:$PATH sh ../msp.sh > ../msp.out 2>&1)
check "... run as printed, from another directory: ms_print draws the trace's Massif file, written beside it" \
    sh -c "grep -q '^Command: ' msp.out && grep -q 'Number of snapshots' msp.out && test -s \"\$1/massif.out.t.trace\"" _ "$HD"
check "... and nothing in the names ran" test -z "$(find "$TMP" -name PWNED)"
(cd "$HD" && PATH=$TMP/withgnu MTRACE=t.trace "$TMP/tail" > /dev/null 2> "$TMP/withgnu.err")
has "a gnuplot on PATH: the hint gives the graph, and names the Massif file" withgnu.err \
    "*** MTRACE: To get a graph (and '$TMP/hint dir \$(touch PWNED)'\\''q/massif.out.t.trace' for ms_print) use: mtrace2massif "

# --- a traced plugin and the program's level (limits.md: "a program linked
# with libmtrace but with no traced file, then a traced plugin | level 0
# at start-up: nothing is traced"; the way out, its main file traced;
# a program without libmtrace: the plugin brings it, and is traced)
# (not under ASan: the plain program would not load an ASan-built libmtrace)
if [ -z "$ASAN" ]; then
cp "$P/plug.c" "$P/plughost.c" . && "$TOP/mtrace-cc" $CFLAGS_T -O0 -shared -fPIC plug.c -o libplug.so
$CC $CFLAGS_T -O0 plughost.c -o host-linked -Wl,--no-as-needed -L"$TOP" -Wl,-rpath,"$TOP" -lmtrace
check "a plugin's program linked with libmtrace, no file traced: libmtrace loaded at start" \
    sh -c "ldd host-linked | grep -q libmtrace"
mkdir -p linked && (cd linked && cp ../libplug.so . && ../host-linked > /dev/null 2> ../linked.err; echo $? > ../linked.rc)
check "... level 0: the plugin's leak not traced: no report, no trace, the program's status (0)" \
    test "$(cat linked.rc)" = 0 -a ! -s linked.err -a ! -e linked/mtrace
"$TOP/mtrace-cc" $CFLAGS_T -O0 plughost.c -o host-traced
./host-traced > /dev/null 2> traced.err
has "... its main file traced instead: the plugin's leak reported" traced.err \
    "plug.c:$(line_of plug.c PLUG): error: 11 bytes in 1 block leaked here (in plug_make)"
$CC $CFLAGS_T -O0 plughost.c -o host-plain
./host-plain > /dev/null 2> plain.err
has "... a program without libmtrace: the plugin brings it, its leak reported" plain.err \
    "plug.c:$(line_of plug.c PLUG): error: 11 bytes in 1 block leaked here (in plug_make)"
fi

# --- a traced call before the runtime's constructor starts the tracer
# itself (doc/design.md, "The lock"): earlylib.c's constructor, in a
# library the program needs, runs before the program's constructors (the
# one-line use, -rdynamic: one runtime); early.c -DPREINIT also allocates
# from its .preinit_array, before the C library has set environ: the
# tracer starts then with no environment read
cp "$P/early.c" "$P/earlylib.c" . &&
    $CC $CFLAGS_T -O0 -g -fPIC -shared -DMTRACE=1 -include "$TOP/mtrace.h" earlylib.c -o libearly.so &&
    for v in early early-pre; do
        $CC $CFLAGS_T -O0 -g -rdynamic -DMTRACE=1 $([ $v = early-pre ] && echo -DPREINIT) -include "$TOP/mtrace.h" \
            early.c -o $v -L. -Wl,-rpath,"$TMP" -learly
    done
mkdir -p pre && MTRACE=early.trace ./early > early.out 2> early.err; echo $? > early.rc
(cd pre && MTRACE=early-pre.trace ../early-pre > /dev/null 2> ../early-pre.err)
check "a library's constructor, before the runtime's: its calls traced first, at their lines, then main's" \
    test "$(awk '$1 == "@" { at[$2] = $4 ":" $5 } /^[-+<>] / { printf "%s%s:%s ", $1, at[$2], $5 }' early.trace)" = \
    "+earlylib.c:$(line_of earlylib.c LIB):24 +earlylib.c:$(line_of earlylib.c LIB-FREED):8 -earlylib.c:$(line_of earlylib.c LIB-FREED):0 +early.c:$(line_of early.c LATER):40 -early.c:$(line_of early.c LATER):0 "
has "...its block leaked, reported at its line" early.err "earlylib.c:$(line_of earlylib.c LIB): error: 24 bytes in 1 block leaked here (in lib_init)"
check "...the status 1 (the leak)" test "$(cat early.rc)" = 1
has "a call from .preinit_array: traced, its leak reported" early-pre.err "early.c:$(line_of early.c PRE): error: 16 bytes in 1 block leaked here (in before_constructors)"
check "...but before environ is set: MTRACE unread, the trace in mtrace" test -s pre/mtrace -a ! -e pre/early-pre.trace

# --- a child that execs at once writes none of the block table
# (doc/design.md, "What fork does"): forkexec.c holds a million blocks
# (16 MiB of table or more) and forks a child that execs /bin/true; the
# child's page faults are a plain program's, not one a table page
build forkexec 2
faults=$(./forkexec 2> /dev/null)
echo "     a child that execs at once, its parent holding a million blocks: $faults page faults"
check "fork then exec, a million blocks held: the child faults under 1000 pages (the table is 4096 or more)" \
    test -n "$faults" -a "${faults:-99999}" -lt 1000

finish
