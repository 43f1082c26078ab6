# SPDX-License-Identifier: MIT
# bench/cxx.awk - bench/cxx.sh's report: its result lines
#     PAIR BUILD ROUND WALL CPU STATUS
# (PAIR new, array, malloc, or start: 0 pairs; BUILD base, m2, m1, small:
# plain at the peer's size, heaptrack) made into two markdown tables.
# Every ratio is taken round by round and the median of the rounds given:
# a slow moment of the shared machine hits both sides of a ratio.
# heaptrack's figures are net of its start-up and of the plain program's
# at the same size (bench/run.sh's rule).  Variables: pairs, peer_pairs
# (the sizes), peer_state (why there is no heaptrack column, or empty).
{
    key = $1 " " $2
    if ($6 != "0") { bad[key] = $6; next }
    wall[key, $3] = $4; cpu[key, $3] = $5; seen[key, $3] = 1
    if ($3 > rounds) rounds = $3
}
function median(a, k,    i, j, x) {
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }
    return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
# net(T, PAIR, BUILD, R): the time T (wall or cpu) of one run, less the
# start-up for heaptrack and for the plain program at the peer's size
function net(t, pair, b, r) {
    if (b != "heaptrack" && b != "small") return t[pair " " b, r]
    return t[pair " " b, r] - t["start " b, r]
}
# present(PAIR, BUILD, R): the runs a figure of round R needs all went well
function present(pair, b, r) {
    if (!((pair " " b, r) in seen)) return 0
    return b != "heaptrack" || (("start heaptrack", r) in seen && ("start small", r) in seen && (pair " small", r) in seen)
}
# why(PAIR, BUILD): the cell of a build with no figure
function why(pair, b) {
    if (b == "heaptrack" && peer_state != "") return peer_state
    if ((pair " " b) in bad) return "failed (" bad[pair " " b] ")"
    if (b == "heaptrack" && ("start heaptrack" in bad)) return "failed (its start-up: " bad["start heaptrack"] ")"
    return "-"
}
# ratio(T, PAIR, BUILD): the median over the rounds of the build's time
# over the plain program's (heaptrack: net, over plain at its size); ""
# when there is none, and noise = 1 when only because a net time was not
# above 0 (the run shorter than the start-up's jitter)
function ratio(t, pair, b,    r, k, q, base) {
    base = b == "heaptrack" ? "small" : "base"
    noise = 0
    for (r = 1; r <= rounds; r++)
        if (present(pair, b, r) && present(pair, base, r)) {
            if (net(t, pair, base, r) > 0 && net(t, pair, b, r) > 0) q[++k] = net(t, pair, b, r) / net(t, pair, base, r)
            else noise = 1
        }
    return k ? median(q, k) : ""
}
function ratio_cell(t, pair, b,    x) {
    x = ratio(t, pair, b)
    if (x != "") return times(x, b)
    return noise ? "- (a time net of the start-up ≤ 0: too short)" : why(pair, b)
}
# per_pair(PAIR, BUILD): the median CPU ns of one pair
function per_pair(pair, b,    r, k, q, n) {
    n = b == "heaptrack" ? peer_pairs : pairs
    for (r = 1; r <= rounds; r++)
        if (present(pair, b, r) && n > 0 && net(cpu, pair, b, r) > 0) q[++k] = net(cpu, pair, b, r) / n * 1e9
    return k ? median(q, k) : ""
}
# over_malloc(PAIR, BUILD): the median of the pair's CPU over malloc/free's
function over_malloc(pair, b,    r, k, q) {
    for (r = 1; r <= rounds; r++)
        if (present(pair, b, r) && present("malloc", b, r) && net(cpu, "malloc", b, r) > 0)
            q[++k] = net(cpu, pair, b, r) / net(cpu, "malloc", b, r)
    return k ? median(q, k) : ""
}
function times(x, b) { return sprintf(b == "heaptrack" ? "%.1f×" : "%.2f×", x) }
END {
    split("new array malloc", ps, " ")
    label["new"] = "`::operator new` / `delete`"; label["array"] = "`new[]` / `delete[]`"; label["malloc"] = "`malloc` / `free`"
    split("m2 m1 heaptrack", bs, " ")
    head = "| MTRACE=2 | MTRACE=1 | heaptrack |"
    print "| pair, wall time | plain s " head
    print "|---|---|---|---|---|"
    for (i = 1; i <= 3; i++) {
        p = ps[i]; k = 0
        for (r = 1; r <= rounds; r++) if (present(p, "base", r)) q[++k] = wall[p " base", r]
        line = "| " label[p] " | " (k ? sprintf("%.3f", median(q, k)) : why(p, "base"))
        for (j = 1; j <= 3; j++) line = line " | " ratio_cell(wall, p, bs[j])
        print line " |"
    }
    print ""
    print "| pair, CPU time | plain " head
    print "|---|---|---|---|---|"
    for (i = 1; i <= 3; i++) {
        p = ps[i]; x = per_pair(p, "base")
        line = "| " label[p] " | " (x == "" ? why(p, "base") : sprintf("%.1f ns", x))
        for (j = 1; j <= 3; j++) {
            x = per_pair(p, bs[j]); y = ratio_cell(cpu, p, bs[j])
            line = line " | " (x == "" ? why(p, bs[j]) : sprintf("%.1f ns, %s", x, y))
        }
        print line " |"
    }
    for (i = 1; i <= 2; i++) {
        p = ps[i]; x = over_malloc(p, "base")
        line = "| " label[p] " over `malloc` / `free` | " (x == "" ? why(p, "base") : sprintf("%.2f×", x))
        for (j = 1; j <= 3; j++) { x = over_malloc(p, bs[j]); line = line " | " (x == "" ? why(p, bs[j]) : sprintf("%.2f×", x)) }
        print line " |"
    }
}
