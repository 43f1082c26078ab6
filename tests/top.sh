#!/bin/bash
# SPDX-License-Identifier: MIT
# mtrace-top: traces followed while tests/top/phases.c writes them (1 MiB,
# then 4 MiB live, then none, each phase held until the test says go):
# the batch snapshots follow the phases and end with the tail; a rank
# killed by SIGKILL (no tail) ends as cut short; a growing .zst; a
# finished trace's one snapshot against mtrace2massif's Massif file and
# the runtime's own exit report; hostile names reach no terminal as
# escapes; bad inputs: one line, exit 2, no hang; the terminal mode on a
# pseudo-terminal (tests/top/pty.py): 'q', Ctrl-C, its own end, the
# terminal's modes restored.
. "$(dirname "$0")/lib.sh"
D=$TOP/tests/top
TOPT=$TOP/mtrace-top
[ -x "$TOPT" ] || make -s -C "$TOP" mtrace-top || exit 2
[ -x "$TOP/mtrace2massif" ] || make -s -C "$TOP" mtrace2massif || exit 2
cd "$TMP" || exit 2
# -O0: at -O1 gcc may delete a malloc whose result is unused
$CC $CFLAGS_T -O0 -DMTRACE=1 -include "$TOP/mtrace.h" "$D/phases.c" -o phases || exit 2

# wait_for FILE TEXT: until FILE has a line starting with TEXT (10 s at most)
wait_for() {
    for _ in $(seq 200); do grep -q "^$2" "$1" 2> /dev/null && return 0; sleep 0.05; done
    echo "     no '$2' in $1 after 10 s"; return 1
}
# lives FILE: the live bytes of the snapshots, repeats dropped
lives() { awk '/^live / && $2 != last { print $2; last = $2 }' "$1" | paste -sd ' '; }
# snapshots FILE: how many (each begins with its "trace" or "traces" line)
snapshots() { grep -c '^trace' "$1"; }

# --- A running program followed in phases (--batch --interval 0.2)
mkdir run && cd run || exit 2
MTRACE=ph.trace ../phases 2> prog.err & prog=$!
for _ in $(seq 100); do [ -s ph.trace ] && break; sleep 0.05; done
timeout 30 "$TOPT" --batch --interval 0.2 ph.trace > top.out 2> top.err & top=$!
ok=1
wait_for top.out "live     1048576 B in 1 blocks" || ok=
touch go1
wait_for top.out "live     4194304 B in 2 blocks" || ok=
sleep 1.5   # idle longer than TOP_QUIET_S: the lock says it still runs
touch go2
wait_for top.out "live     0 B in 0 blocks" || ok=
n=$(snapshots top.out)
touch go3
wait $top; rc=$?
wait $prog; prog_rc=$?
check "phases: each phase seen in the snapshots" test -n "$ok"
check "phases: the program ran as without mtrace-top: exit 0, its trace under its name (no ph.trace.PID)" \
    test "$prog_rc" = 0 -a "$(ls ph.trace*)" = ph.trace
check "phases: the live bytes follow them, 1 MiB, 4 MiB, 0" test "$(lives top.out)" = "1048576 4194304 0"
check "phases: idle for 1.5 s, still running (its lock held): never cut short" sh -c "! grep -q 'cut short' top.out"
check "phases: the end detected: exit 0 once the tail is written" test "$rc" = 0 -a ! -s top.err
check "phases: the last snapshot says ended, 4 records, the peak 4194304 B" sh -c \
    "tail -n 12 top.out | grep -q '^trace    ph.trace (ended)' && tail -n 12 top.out | grep -q '^records  4\$' &&
     tail -n 12 top.out | grep -q '^peak     4194304 B at [0-9.]* s, 20[0-9-]* [0-9:.]* UTC (record 1)\$'"
check "phases: one snapshot per 0.2 s while it ran (at least 3 before the frees: $n)" test "$n" -ge 3
check "phases: the sites while 4 MiB were live, largest first" sh -c \
    "grep -A2 '^ *live B *blocks' top.out | grep -A1 '^ *3145728 *1  three (phases.c:26)\$' |
     grep -q '^ *1048576 *1  one (phases.c:19)\$'"
# growth: +3 MiB over the trace's time between two snapshots, positive
# once, negative once (the frees), never otherwise
check "phases: growth per second by the trace's clock: up once, down once" sh -c \
    "test \"\$(awk '/^growth/ { s = substr(\$2, 1, 1); if (\$2 != \"+0\" && \$2 != \"-\") print s }' top.out | paste -sd ' ')\" = '+ -' &&
     grep -q '^growth   [-+0-9]* B/s (by the trace.s clock)\$' top.out"
cd "$TMP" || exit 2

# --- The ranks of a run, one killed (SIGKILL: no tail)
mkdir ranks && cd ranks || exit 2
MTRACE=r.trace ../phases 2> /dev/null & r0=$!
MTRACE=r.trace-1 ../phases 2> /dev/null & r1=$!
for _ in $(seq 100); do [ -s r.trace ] && [ -s r.trace-1 ] && break; sleep 0.05; done
timeout 30 "$TOPT" --interval 0.2 r.trace r.trace-1 > top.out 2> top.err & top=$!
wait_for top.out "live     2097152 B" || true
touch go1
wait_for top.out "live     8388608 B" || true
kill -9 $r1; wait $r1 2> /dev/null
killed_at=$(date +%s.%N)
touch go2 go3
wait $r0
wait $top; rc=$?
took=$(echo "$(date +%s.%N) - $killed_at" | bc)
check "ranks: a killed rank ends too: exit 0 ($took s after the kill)" test "$rc" = 0 -a ! -s top.err
check "ranks: ... within 4 s (1 s without growth and no process locking the trace)" \
    test "$(echo "$took < 4" | bc)" = 1
tail -n 9 top.out > last
has "ranks: the table's titles" last " rank  state         records        live B        peak B    growth B/s  trace"
check "ranks: rank 0 ended, 4 records, live 0, peak 4194304" grep -qE '^ +0  ended +4 +0 +4194304 +[-+0-9]+  r.trace$' last
check "ranks: rank 1 cut short with its 4 MiB, 2 records" grep -qE '^ +1  cut short +2 +4194304 +4194304 +[-+0-9]+  r.trace-1$' last
has "ranks: the sums" last "live     4194304 B"
check "ranks: the sites summed over the ranks" grep -qE '^ +3145728 +1  three \(phases.c:26\)$' last
cd "$TMP" || exit 2

# --- A growing .zst trace (MTRACE=NAME.zst), read through libzstd as it grows
mkdir zst && cd zst || exit 2
MTRACE=z.trace.zst ../phases 2> prog.err & prog=$!
for _ in $(seq 100); do [ -s z.trace.zst ] && break; sleep 0.05; done
timeout 30 "$TOPT" --interval=0.2 z.trace.zst > top.out 2> top.err & top=$!
ok=1
wait_for top.out "live     1048576 B" || ok=
touch go1
wait_for top.out "live     4194304 B" || ok=
touch go2 go3
wait $top; rc=$?
wait $prog
check "zst: the file is compressed (zstd's magic bytes)" test "$(head -c 4 z.trace.zst | od -An -tx1 | tr -d ' ')" = 28b52ffd
check "zst: each phase seen while it grew" test -n "$ok"
check "zst: the live bytes follow them, and it ends with its tail" sh -c \
    "test '$(lives top.out)' = '1048576 4194304 0' && test $rc = 0 && tail -n 12 top.out | grep -q '(ended)'"
head -c $(($(wc -c < z.trace.zst) - 5)) z.trace.zst > cut.zst && touch -d '1 minute ago' cut.zst
timeout 10 "$TOPT" cut.zst > cut.out 2> cut.err; rc=$?
check "zst: a file cut inside a block, no process writing it: one line, exit 2" sh -c \
    "test $rc = 2 && test \"\$(cat cut.err)\" = 'mtrace-top: cut.zst: truncated zstd data: the file ends inside a block or a header'"
rm -f go1 go2 go3
MTRACE=k.trace.zst ../phases 2> /dev/null & prog=$!
for _ in $(seq 100); do [ -s k.trace.zst ] && break; sleep 0.05; done
timeout 30 "$TOPT" --interval=0.2 k.trace.zst > k.out 2> k.err & top=$!
wait_for k.out "live     1048576 B" || true
kill -9 $prog; wait $prog 2> /dev/null
wait $top; rc=$?
check "zst: killed (SIGKILL: the frame stops between two blocks): cut short with its MiB, exit 0" sh -c \
    "test $rc = 0 && tail -n 12 k.out | grep -q '^trace    k.trace.zst (cut short: no tail, and no process writes it)\$' &&
     tail -n 12 k.out | grep -q '^live     1048576 B in 1 blocks\$'"
MTRACE_ZSTD_LIB=/nonexistent timeout 10 "$TOPT" z.trace.zst > nolib.out 2> nolib.err; rc=$?
check "zst: without libzstd, one line and exit 2" test $rc = 2 -a "$(wc -l < nolib.err)" = 1
has "zst: ... that says why" nolib.err "mtrace-top: z.trace.zst: compressed with zstd, and /nonexistent cannot be loaded"
cd "$TMP" || exit 2

# --- A finished trace: one snapshot at once, the figures checked against
#     mtrace2massif's Massif file and the runtime's own report
mkdir done && cd done || exit 2
touch go1 go2 go3
MTRACE=f.trace ../phases leak 2> report
start=$(date +%s.%N)
timeout 10 "$TOPT" --batch --interval 5 f.trace > top.out 2> top.err; rc=$?
took=$(echo "$(date +%s.%N) - $start" | bc)
check "finished: one snapshot and exit 0 at once ($took s, the interval 5 s)" sh -c \
    "test $rc = 0 -a $(snapshots top.out) = 1 -a ! -s top.err && test \$(echo '$took < 2' | bc) = 1"
"$TOP/mtrace2massif" --time-unit=B f.trace > /dev/null 2>&1
peak=$(sed -n 's/^mem_heap_B=//p' massif.out.f.trace | sort -n | tail -n 1)
last=$(sed -n 's/^mem_heap_B=//p' massif.out.f.trace | tail -n 1)
rt_peak=$(sed -n 's/^\*\*\* MTRACE: max traced memory size: *\([0-9]*\) bytes.*/\1/p' report)
check "finished: the peak is Massif's largest mem_heap_B ($peak) and the runtime's max ($rt_peak)" \
    sh -c "test -n '$peak' -a '$peak' = '$rt_peak' && grep -q '^peak     $peak B at ' top.out"
check "finished: live is Massif's last mem_heap_B ($last): the leak" grep -q "^live     $last B in 1 blocks\$" top.out
check "finished: the leaking site alone, with its block" grep -qE '^ +1048576 +1  one \(phases.c:19\)$' top.out
has "finished: ended" top.out "trace    f.trace (ended)"
cd "$TMP" || exit 2

# --- A trace without #time (Basilisk's, older ones): growth by the reading clock
grep -v '^#time \|^#clock ' done/f.trace > notime.trace
timeout 10 "$TOPT" notime.trace > notime.out 2>&1
has "no #time: growth by the reading clock, said so" notime.out "B/s (by the reading clock: no #time)"
hasnt "no #time: no time of the peak" notime.out " s, "

# --- Hostile names: no control character or escape reaches the terminal
printf '#cmd ./x%%1B[2J \033]0;t\007\n@ 1 f\033[31m%%1B[1mred b\302\233x.c 7\n+ 1 0 10 10 0\n@ 2 g\233h y.c 8\n+ 2 1 30 20 0\n' > evil.trace
timeout 10 "$TOPT" evil.trace > evil.out 2> evil.err; rc=$?
check "hostile names: read, exit 0" test $rc = 0 -a ! -s evil.err
check "hostile names: no control byte, no C1 control (raw or UTF-8), nothing but printable text" python3 -c "
import sys
b = open('evil.out', 'rb').read()
bad = [c for c in b if (c < 0x20 and c != 10) or c == 0x7f or c == 0x9b]
sys.exit(1 if bad or b'\xc2\x9b' in b else 0)"
has "hostile names: shown escaped, %XX" evil.out "f%1B[31m%1B[1mred (b%C2%9Bx.c:7)"

# --- Bad inputs: one line "mtrace-top: FILE[:LINE]: what", exit 2, no hang
bad() {     # bad NAME EXPECTED-LINE ARGS... (a '*' in it: any text)
    local name=$1 want=$2; shift 2
    timeout 10 "$TOPT" "$@" > "$name.out" 2> "$name.err"; local rc=$?
    if [ $rc = 2 ] && [[ "$(cat "$name.err")" == $want ]]; then pass "bad input: $name"
    else fail "bad input: $name: exit $rc, stderr: $(head -c 300 "$name.err")"; fi
}
mkdir adir && mkfifo fifo
printf '@ 1 f a.c 1\n+ 1 0 10 10 0\n+ 1 5 20 20 0\n' > recno.trace
printf '@ 1 f a.c 1\n+ 2 0 10 10 0\n' > site.trace
printf 'hello\nworld\nthis is no trace\n' > text.trace
printf '@ 1 f a.c 1\n#time 5000\n+ 1 0 10 10 0\n#time 4000\n' > back.trace
printf '\050\265\057\375garbage, not zstd' > junk.zst
: > empty.trace
# a followed trace cut shorter while a process holds it (a new run writing over it)
python3 "$D/shrink.py" shrunk.trace & shrinker=$!
for _ in $(seq 100); do [ -s shrunk.trace ] && break; sleep 0.01; done
bad shrunk "mtrace-top: shrunk.trace:41: the file shrank (a new run writing it?)" -b -d 0.05 shrunk.trace
wait $shrinker
bad missing "mtrace-top: nonexist: No such file or directory" nonexist
bad directory "mtrace-top: adir: not a regular file" adir
bad fifo "mtrace-top: fifo: not a regular file" fifo
bad recno "mtrace-top: recno.trace:3: record number 5, expected 1" recno.trace
bad site "mtrace-top: site.trace:2: site 2 used before its '@' record" site.trace
bad text "mtrace-top: text.trace:1: not a trace record (only the last two lines may be other text)" text.trace
bad time-back "mtrace-top: back.trace:4: #time went back (5000 -> 4000)" back.trace
bad not-zstd "mtrace-top: junk.zst: not valid zstd data (*)" junk.zst
bad empty "mtrace-top: empty.trace: empty, and no process is writing it" empty.trace
bad no-trace "mtrace-top: no trace given
Try 'mtrace-top --help'."
bad interval-0 "mtrace-top: 0: SECONDS must be a number from 0.001 to 86400
Try 'mtrace-top --help'." --interval 0 done/f.trace
bad interval-word "mtrace-top: 1s: SECONDS must be a number from 0.001 to 86400
Try 'mtrace-top --help'." --interval=1s done/f.trace
timeout 10 "$TOPT" --interval 0.05 done/f.trace > frac.out 2>&1
check "--interval 0.05: a fraction is accepted" test $? = 0 -a "$(snapshots frac.out)" = 1
timeout 10 "$TOPT" -b -d 0.5 done/f.trace > short.out 2>&1
check "-b -d 0.5, top's own letters: the same snapshot" cmp -s frac.out short.out
for i in 0.001 86400 0.0009 86400.001; do
    timeout 10 "$TOPT" --interval $i done/f.trace > /dev/null 2>&1; echo $?
done > bounds.rc
check "--interval: 0.001 and 86400 accepted, 0.0009 and 86400.001 refused (exit 2)" test "$(paste -sd ' ' bounds.rc)" = "0 0 2 2"

# --- The terminal: a pseudo-terminal, 'q', Ctrl-C, the end by itself
mkdir tty && cd tty || exit 2
MTRACE=t.trace ../phases 2> /dev/null & prog=$!
for _ in $(seq 100); do [ -s t.trace ] && break; sleep 0.05; done
python3 "$D/pty.py" "live     1048576 B" q "$TOPT" --interval 0.2 t.trace > q.out
head -n 2 q.out > q.head
check "terminal: 'q' quits, exit 0, while the program runs" test "$(head -n 1 q.head)" = "status 0"
check "terminal: its modes restored after 'q' (echo, lines)" test "$(sed -n 2p q.head)" = restored
check "terminal: while it shows, keys are neither echoed nor held for a whole line (ECHO and ICANON off)" \
    test "$(sed -n 3p q.out)" = raw
check "terminal: drawn in place (cursor home, erase to the end of line) and the cursor shown again" python3 -c "
import sys
b = open('q.out', 'rb').read()
sys.exit(0 if b.count(b'\x1b[H') >= 2 and b'\x1b[K' in b and b.rstrip().endswith(b'\x1b[?25h') else 1)"
python3 "$D/pty.py" "live     1048576 B" '^C' "$TOPT" --interval 0.2 t.trace > c.out
check "terminal: Ctrl-C quits, exit 0, modes restored" test "$(head -n 2 c.out | paste -sd ' ')" = "status 0 restored"
touch go1 go2 go3
wait $prog
python3 "$D/pty.py" "" - "$TOPT" --interval 0.2 t.trace > end.out
check "terminal: ends by itself on a finished trace, exit 0, modes restored" \
    test "$(head -n 2 end.out | paste -sd ' ')" = "status 0 restored"
has "terminal: ... its end state shown" end.out "trace    t.trace (ended)"
# a screen of 24 lines, 80 columns: 40 sites and a long name do not fit
awk 'BEGIN { t = 0; for (i = 1; i <= 40; i++) { t += i; printf "@ %d site_%d_%s many.c %d\n+ %d %d %d %d 0\n", i, i,
     "a_name_longer_than_any_terminal_line_is_wide_" i "_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", i, i, i - 1, t, i }
     print "set key"; print "plot 0" }' > many.trace
python3 "$D/pty.py" "" - "$TOPT" many.trace > many.out
check "terminal: 40 sites on 24 lines of 80 columns: each line cut to the window, the screen not scrolled" python3 -c "
import re, sys
text = open('many.out', 'rb').read().split(b'\n', 3)[3].decode()
frames = [f for f in text.split('\x1b[H') if f.strip()]
lines = [re.sub(r'\x1b\[[0-9;?]*[A-Za-z]', '', l) for l in frames[-1].split('\r\n')]
sys.exit(0 if frames and 0 < len([l for l in lines if l]) <= 23 and max(map(len, lines)) <= 80
         and any('sites more' in l for l in lines) else 1)"
# ...the 9 lines above the sites, a blank and the titles, then 24 - 9 - 2 =
# 13 sites and the line that counts the 27 more
check "terminal: 40 sites on 24 lines: the 13 largest that fit, then (27 sites more)" python3 -c "
import re, sys
text = open('many.out', 'rb').read().split(b'\n', 3)[3].decode()
lines = [re.sub(r'\x1b\[[0-9;?]*[A-Za-z]', '', l) for l in text.split('\x1b[H')[-1].split('\r\n')]
sites = [int(re.search(r'site_([0-9]+)_', l).group(1)) for l in lines if 'site_' in l]
sys.exit(0 if sites == list(range(40, 27, -1)) and any(l.strip() == '(27 sites more)' for l in lines) else 1)"
"$TOPT" -b many.trace > many-b.out
check "--batch: the 10 largest of 40 sites, largest first, then (30 sites more)" \
    sh -c "[ \"\$(grep -o 'site_[0-9]*_' many-b.out | tr -d 'site_' | paste -sd ' ')\" = '40 39 38 37 36 35 34 33 32 31' ] && [ \"\$(tail -n 1 many-b.out | tr -s ' ')\" = ' (30 sites more)' ]"
printf '@ 1 f a.c 1\n+ 1 0 10 10 0\n- 1 1 20 0 0\n' > bad.trace
python3 "$D/pty.py" "" - "$TOPT" bad.trace > bad.out
check "terminal: bad input: exit 2, the terminal restored" test "$(head -n 2 bad.out | paste -sd ' ')" = "status 2 restored"
has "terminal: ... then the error line, after the screen" bad.out "mtrace-top: bad.trace:3: '-' record: TOTAL went up (10 -> 20)"
cd "$TMP" || exit 2

# --- installed with its man page (make -n: nothing built or written here)
make --no-print-directory -s -C "$TOP" -n install DESTDIR=/D PREFIX=/P > install.n 2>&1
make --no-print-directory -s -C "$TOP" -n uninstall DESTDIR=/D PREFIX=/P > uninstall.n 2>&1
check "make install: the tool and its man page" sh -c \
    "grep -q 'for t in .*mtrace-top' install.n && grep -q 'install -m 644 .*doc/mtrace-top.1 .*/D/P/share/man/man1/' install.n"
check "make uninstall: both removed" sh -c \
    "grep -q 'for t in .*mtrace-top' uninstall.n && grep -q '/D/P/share/man/man1/mtrace-top.1' uninstall.n"
MANWIDTH=80 man --warnings -l "$TOP/doc/mtrace-top.1" > man.out 2> man.err
check "the man page renders without warnings" sh -c "test -s man.out && ! test -s man.err"
"$TOPT" --help > help.out
check "--help: its last line says where bugs go" test "$(tail -n 1 help.out)" = "Report bugs to the mtrace project's issue tracker, not to Valgrind's authors."
finish
