# SPDX-License-Identifier: MIT
# replay.awk - checks a trace against itself, record by record:
#  - RECNO counts 0, 1, 2, ... with no gap or repeat;
#  - every ID is defined by an "@" record before its first use;
#  - the size of an operation is |TOTAL - previous TOTAL|, growing for + and >,
#    shrinking for - and <; replaying those sizes per site must give SITE;
#  - a block given back (- or <) has the size of a block its site handed out;
#  - MAXRSS never decreases; the trace ends with the two gnuplot lines
#    (unless "notail=1") or, when it was cut short, with a complete record;
#  - with call stacks ("#depth N"): every record has a 7th field SID, 0 or a
#    stack written before ("#stack SID ID ADDR...", SIDs 1, 2, 3, ..., its
#    site defined, at most N - 1 hex addresses, a "#map" before them); an
#    allocation's stack is of its own site, and a block given back has the
#    site, size and stack of a block handed out.
# Prints "replay: N records, total T" or the first inconsistency (exit 1).
function bad(msg) { printf "replay: line %d: %s: %s\n", NR, msg, $0; failed = 1; exit 1 }
$1 == "@" { if (NF != 5 || $2 != nsites + 1) bad("bad site record"); nsites++; next }
$1 == "#depth" { if (NF != 2 || $2 < 1 || nrec) bad("bad #depth"); depth = $2; next }
$1 == "#map" { if (NF != 5 || $2 !~ /^0x[0-9a-f]+$/ || $3 !~ /^0x[0-9a-f]+$/ || $4 !~ /^0x[0-9a-f]+$/) bad("bad #map"); nmaps++; next }
$1 == "#stack" {
    if (!depth || $2 != nstacks + 1 || $3 < 1 || $3 > nsites || NF - 3 > depth - 1) bad("bad #stack")
    for (i = 4; i <= NF; i++) if ($i !~ /^0x[0-9a-f]+$/ || !nmaps) bad("bad #stack address")
    nstacks++; stsite[nstacks] = $3; next
}
/^#/ { next }
$1 ~ /^[-+<>]$/ {
    if (NF != (depth ? 7 : 6)) bad("wrong field count")
    sid = depth ? $7 : 0
    if (sid < 0 || sid > nstacks) bad("undefined SID")
    if (sid && ($1 == "+" || $1 == ">") && stsite[sid] != $2) bad("the stack is not of this site")
    if ($3 != nrec) bad("RECNO " $3 ", expected " nrec)
    if ($2 < 1 || $2 > nsites) bad("undefined ID")
    size = $4 - total
    if ($1 == "+" || $1 == ">") { if (size < 0) bad("allocation shrinks TOTAL"); site[$2] += size; blocks[$2 SUBSEP size SUBSEP sid]++ }
    else { size = -size; if (size < 0) bad("free grows TOTAL")
           if (blocks[$2 SUBSEP size SUBSEP sid]-- <= 0) bad("no live block of " size " bytes at site " $2 " stack " sid)
           site[$2] -= size }
    if (site[$2] != $5) bad("SITE is " $5 ", replay says " site[$2])
    if ($6 < rss) bad("MAXRSS decreased")
    total = $4; rss = $6; nrec++; tail = 0; next
}
{ tail++; if (tail > 2) bad("not a record") }
END {
    if (failed) exit 1
    if (!notail && tail != 2) { print "replay: the trace does not end with the two gnuplot lines"; exit 1 }
    printf "replay: %d records, total %d\n", nrec, total
}
