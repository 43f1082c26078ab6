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

# --- suppression files (README, MTRACE_SUPPRESS: "one pattern a line:
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

finish
