# SPDX-License-Identifier: MIT
# bench/report.awk - turns the measurements of bench/run.sh into the
# markdown report.  Inputs (awk -f report.awk results traces memory):
#   results: NAME BUILD ROUND WALL USER SYS MAXRSS_KB STATUS CHECKSUM OPS
#            BUILD is base, m3, m2, m1 (full size), small, heaptrack,
#            massif (peer size); the workload "startup" is an empty
#            program (small, heaptrack, massif): the peers' start-up
#   traces:  NAME BYTES RECORDS          (one MTRACE=1 trace per workload)
#   memory:  NAME LIVE OVERHEAD_BYTES    (workloads that print their peak
#            live block count; overhead from the MTRACE=2 summary)
#   stackinfo: stacks/NAME BUILD BYTES RECORDS STACKS TRACER_BYTES
#            (the call-stack part, first round: BUILD is m1, fp, d8, d30;
#            the trace's size, its + - < > records, its #stack records, and
#            tracer_bytes_at_peak of the JSON report)
# The call-stack part's results are under the names stacks/NAME, BUILD
# base, m1 (level 1), fp (level 1 with frame pointers, MTRACE_DEPTH unset),
# dN (the same binary with MTRACE_DEPTH=N); sorder lists its NAMEs.
# Variables: order (workload names in order, space-separated), size_NAME
# is not passed; sizes come in through -v sizes="NAME=ARGS;..." instead.

function median(list, n,    i, j, t, a) {
    # list: space-separated numbers
    n = split(list, a, " ")
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
            t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
        }
    if (n == 0) return ""
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function minof(list,    n, i, a, m) {
    n = split(list, a, " "); m = a[1]
    for (i = 2; i <= n; i++) if (a[i] + 0 < m + 0) m = a[i]
    return m
}
function maxof(list,    n, i, a, m) {
    n = split(list, a, " "); m = a[1]
    for (i = 2; i <= n; i++) if (a[i] + 0 > m + 0) m = a[i]
    return m
}
# Per-round ratios of BUILD to REF for workload NAME, as a list; field f
# of the measurement (wall, or cpu = user + sys).
function ratios(name, build, ref, f,    r, out, x, y) {
    out = ""
    for (r = 1; r <= maxround; r++) {
        x = val[name, build, r, f]; y = val[name, ref, r, f]
        if (x == "" || y == "" || y + 0 <= 0) continue
        out = out " " (x / y)
    }
    return out
}
function cell(name, build, ref, f,    l) {
    if (failed[name, build]) return "FAILED"
    l = ratios(name, build, ref, f)
    if (l == "") return "-"
    return sprintf("%.2f× [%.2f–%.2f]", median(l), minof(l), maxof(l))
}
function med_ratio(name, build, ref, f,    l) {
    l = ratios(name, build, ref, f)
    return l == "" ? "" : median(l)
}
function walls(name, build, f,    r, out) {
    out = ""
    for (r = 1; r <= maxround; r++)
        if (val[name, build, r, f] != "") out = out " " val[name, build, r, f]
    return out
}
function rss_mb(name, build,    r, out) {
    out = ""
    for (r = 1; r <= maxround; r++)
        if (rss[name, build, r] != "") out = out " " rss[name, build, r]
    if (out == "") return "-"
    return sprintf("%.0f", median(out) / 1024)
}
# Per-round ratios of a peer to the uninstrumented program at the peer
# size, both less their start-up (median time of the empty program under
# the same tool, and plain): what the tool costs on the work itself.
function net_ratios(name, build,    r, out, x, y) {
    out = ""
    for (r = 1; r <= maxround; r++) {
        x = val[name, build, r, "wall"]; y = val[name, "small", r, "wall"]
        if (x == "" || y == "") continue
        x -= start[build]; y -= start["small"]
        if (y <= 0) continue
        out = out " " (x / y)
    }
    return out
}
function net_cell(name, build,    l) {
    if (failed[name, build]) return "FAILED"
    l = net_ratios(name, build)
    if (l == "") return "-"
    return sprintf("%.1f× [%.1f–%.1f]", median(l), minof(l), maxof(l))
}
function fmt(x, d) { return x == "" ? "not measured" : sprintf("%." d "f×", x) }
function verdict(x, limit, cpu) {
    if (x == "") return "n/a"
    return (x <= limit ? sprintf("met (%.2f× ≤ %s×", x, limit) \
                       : sprintf("**NOT met** (%.2f× > %s×", x, limit)) \
           (cpu == "" ? "" : sprintf("; CPU time %.2f×", cpu)) ")"
}

FILENAME == ARGV[1] {
    name = $1; build = $2; r = $3
    if (r > maxround) maxround = r
    if ($8 != 0) { failed[name, build] = 1; next }
    val[name, build, r, "wall"] = $4
    val[name, build, r, "cpu"] = $5 + $6
    rss[name, build, r] = $7
    ops[name, build] = $10
    next
}
FILENAME == ARGV[2] { tbytes[$1] = $2; trecs[$1] = $3; next }
FILENAME == ARGV[3] { live[$1] = $2; over[$1] = $3; nlive++; next }
FILENAME == ARGV[4] { sbytes[$1, $2] = $3; srecs[$1, $2] = $4; nstk[$1, $2] = $5; tbytes_peak[$1, $2] = $6; next }

END {
    ns = split(sizes, s, ";")
    for (i = 1; i <= ns; i++) { split(s[i], kv, "="); size[kv[1]] = kv[2] }
    if (order != "") main_report()
    if (sorder != "") stacks_report()
}

function main_report() {
    nw = split(order, names, " ")
    peers = (peer_list != "")
    split("base m3 m2 m1", mb, " ")
    split("uninstrumented|MTRACE=3|MTRACE=2|MTRACE=1", mname, "|")
    np = split(peer_list, plist, " ")
    start["small"] = median(walls("startup", "small", "wall"))
    for (k = 1; k <= np; k++) start[plist[k]] = median(walls("startup", plist[k], "wall"))

    print "| workload | size | uninstrumented s | MTRACE=3 | MTRACE=2 | MTRACE=1 |" \
          " trace B/rec | peak RSS MB: 0 / 3 / 2 / 1 |"
    print "|---|---|---|---|---|---|---|---|"
    for (i = 1; i <= nw; i++) {
        n = names[i]
        w = walls(n, "base", "wall")
        base = failed[n, "base"] ? "FAILED" : \
               (w == "" ? "-" : sprintf("%.3f [%.3f–%.3f]", median(w), minof(w), maxof(w)))
        line = sprintf("| %s | %s | %s | %s | %s | %s |", n, size[n], base,
                       cell(n, "m3", "base", "wall"), cell(n, "m2", "base", "wall"),
                       cell(n, "m1", "base", "wall"))
        bpr = trecs[n] > 0 ? sprintf("%.1f", tbytes[n] / trecs[n]) : "-"
        line = line sprintf(" %s | %s / %s / %s / %s |", bpr, rss_mb(n, "base"),
                            rss_mb(n, "m3"), rss_mb(n, "m2"), rss_mb(n, "m1"))
        print line
        allbytes += tbytes[n]; allrecs += trecs[n]
    }
    print ""
    print "Wall-clock ratios to the uninstrumented build: median over the rounds of"
    print "(time of the build / time of the uninstrumented build in the same round),"
    print "[min–max] of those per-round ratios; " rounds " round(s), builds in rotating order."
    print "trace B/rec: size of the whole MTRACE=1 trace file / its number of + - < > records."

    # The peers, at their size, with their start-up subtracted.
    if (peers) {
        print ""
        printf "Peers (heaptrack, valgrind --tool=massif) at the peer size of the size column, %d round(s). " \
               "Their start-up, measured on an empty program in the same run, is ", peer_rounds
        for (k = 1; k <= np; k++) printf "%s%s %.3f s", (k > 1 ? ", " : ""), plist[k], start[plist[k]]
        printf " (uninstrumented: %.4f s); it is subtracted from both sides of each ratio: " \
               "(peer − its start-up) / (uninstrumented − its start-up), per round, median [min–max]. " \
               "The raw ratio (start-up included) and the share of the start-up in the peer's median time are given too.\n", start["small"]
        print ""
        hdr = "| workload | uninstrumented s |"; sep = "|---|---|"
        for (k = 1; k <= np; k++) {
            hdr = hdr " " plist[k] " s | " plist[k] " net | raw | start-up share |"; sep = sep "---|---|---|---|"
        }
        print hdr; print sep
        for (i = 1; i <= nw; i++) {
            n = names[i]
            w = walls(n, "small", "wall")
            if (w == "") continue
            line = sprintf("| %s | %.3f |", n, median(w))
            for (k = 1; k <= np; k++) {
                t = plist[k]; pw = walls(n, t, "wall")
                if (pw == "" || failed[n, t]) { line = line " FAILED | - | - | - |"; continue }
                l = net_ratios(n, t)
                if (l != "") { nr = median(l); if (!(t in pmin) || nr < pmin[t]) pmin[t] = nr
                               if (!(t in pmax) || nr > pmax[t]) pmax[t] = nr; pnet[n, t] = nr }
                line = line sprintf(" %.2f | %s | %s | %.0f%% |", median(pw), net_cell(n, t),
                                    cell(n, t, "small", "wall"), 100 * start[t] / median(pw))
            }
            print line
        }
    }

    # CPU time (user + sys, all threads): the tracer's cost without the
    # noise of other processes, and including any helper thread it runs.
    print ""
    print "CPU time (user + sys) ratios, same rounds:"
    print ""
    print "| workload | MTRACE=3 | MTRACE=2 | MTRACE=1 |"
    print "|---|---|---|---|"
    for (i = 1; i <= nw; i++) {
        n = names[i]
        printf "| %s | %s | %s | %s |\n", n, cell(n, "m3", "base", "cpu"),
               cell(n, "m2", "base", "cpu"), cell(n, "m1", "base", "cpu")
    }

    # Threads: cost per operation, 4 threads against 1, per build.
    print ""
    print "Threads: cost per allocator call with 2 and 4 threads on " ncpu " cores against 1 thread" \
          " (median wall time / calls; CPU time / calls in parentheses):"
    print ""
    print "| build | 1 thread ns/call | 2 threads ns/call | 4 threads ns/call | 2T / 1T | 4T / 1T |"
    print "|---|---|---|---|---|---|"
    split("base m3 m2 m1", builds, " ")
    split("uninstrumented MTRACE=3 MTRACE=2 MTRACE=1", bname, " ")
    for (b = 1; b <= 4; b++) {
        bb = builds[b]
        w1 = median(walls("threads-1", bb, "wall")); w4 = median(walls("threads-4", bb, "wall"))
        c1 = median(walls("threads-1", bb, "cpu")); c4 = median(walls("threads-4", bb, "cpu"))
        o1 = ops["threads-1", bb]; o4 = ops["threads-4", bb]
        if (w1 == "" || w4 == "" || o1 + 0 == 0 || o4 + 0 == 0) {
            printf "| %s | - | - | - | - | - |\n", bname[b]; continue
        }
        p1 = w1 / o1 * 1e9; p4 = w4 / o4 * 1e9
        q1 = c1 / o1 * 1e9; q4 = c4 / o4 * 1e9
        tr[bb] = p4 / p1; ctr[bb] = q4 / q1
        # 2 threads on 2 cores: contention without preemption, for comparison
        w2 = median(walls("threads-2", bb, "wall")); c2 = median(walls("threads-2", bb, "cpu"))
        o2 = ops["threads-2", bb]
        if (w2 != "" && o2 + 0 > 0) {
            p2 = w2 / o2 * 1e9; q2 = c2 / o2 * 1e9
            t2 = sprintf("%.1f (%.1f)", p2, q2); r2 = sprintf("%.2f× (%.2f×)", p2 / p1, q2 / q1)
            tr2[bb] = p2 / p1; ctr2[bb] = q2 / q1
        } else {
            t2 = "-"; r2 = "-"
        }
        printf "| %s | %.1f (%.1f) | %s | %.1f (%.1f) | %s | %.2f× (%.2f×) |\n", bname[b], p1, q1,
               t2, p4, q4, r2, p4 / p1, q4 / q1
    }

    # The realistic program: geometric mean over the json-* workloads.
    for (b = 2; b <= 4; b++) {
        bb = builds[b]; lg = 0; k = 0; clg = 0
        for (i = 1; i <= nw; i++) {
            n = names[i]
            if (n !~ /^json-/ || n ~ /^json-mt-/) continue
            x = med_ratio(n, bb, "base", "wall"); y = med_ratio(n, bb, "base", "cpu")
            if (x == "" || x <= 0 || y == "" || y <= 0) continue
            lg += log(x); clg += log(y); k++
        }
        geo[bb] = k ? exp(lg / k) : ""; cgeo[bb] = k ? exp(clg / k) : ""
        nj = k
    }
    if (nj > 0) print ""
    if (nj > 0) printf "JSON pipeline (the realistic program), geometric mean of the median ratios over its %d single-thread workloads: " \
           "MTRACE=3 %.2f×, MTRACE=2 %.2f×, MTRACE=1 %.2f× (CPU time: %.2f×, %.2f×, %.2f×).\n", \
           nj, geo["m3"], geo["m2"], geo["m1"], cgeo["m3"], cgeo["m2"], cgeo["m1"]

    # The JSON pipeline in 1, 2 and 4 threads, each over its own documents.
    if (walls("json-mt-1", "base", "wall") != "" && walls("json-mt-4", "base", "wall") != "") {
        print ""
        print "JSON pipeline in 1, 2 and 4 threads on " ncpu " cores (json-mt-*, each thread over its own documents):" \
              " overhead ratio to the uninstrumented build with the same threads (wall, median of the rounds)," \
              " its 4-thread value divided by its 1-thread value (target ≤ 1.25×), and the CPU time per document," \
              " 4 threads / 1 thread (uninstrumented: the machine's own figure). Peers: net ratios at the peer size."
        print ""
        print "| build | 1 thread | 2 threads | 4 threads | 4T ratio / 1T ratio | 2T ratio / 1T ratio | CPU per document 4T / 1T |"
        print "|---|---|---|---|---|---|---|"
        for (b = 1; b <= 4; b++) {
            bb = mb[b]
            c1 = median(walls("json-mt-1", bb, "cpu")); c4 = median(walls("json-mt-4", bb, "cpu"))
            o1 = ops["json-mt-1", bb]; o4 = ops["json-mt-4", bb]
            cpd = (c1 == "" || c4 == "" || o1 + 0 == 0 || o4 + 0 == 0) ? "-" : sprintf("%.2f×", (c4 / o4) / (c1 / o1))
            if (cpd != "-") jcpu[bb] = (c4 / o4) / (c1 / o1)
            if (bb == "base") {
                printf "| uninstrumented | %.3f s | %.3f s | %.3f s | - | - | %s |\n", median(walls("json-mt-1", bb, "wall")),
                       median(walls("json-mt-2", bb, "wall")), median(walls("json-mt-4", bb, "wall")), cpd
                continue
            }
            x1 = med_ratio("json-mt-1", bb, "base", "wall"); x2 = med_ratio("json-mt-2", bb, "base", "wall")
            x4 = med_ratio("json-mt-4", bb, "base", "wall")
            if (x1 != "" && x4 != "") jmt[bb] = x4 / x1
            printf "| %s | %s | %s | %s | %s | %s | %s |\n", mname[b], fmt(x1, 2), fmt(x2, 2), fmt(x4, 2),
                   (x1 != "" && x4 != "") ? sprintf("%.2f×", x4 / x1) : "-",
                   (x1 != "" && x2 != "") ? sprintf("%.2f×", x2 / x1) : "-", cpd
        }
        for (k = 1; k <= np; k++) {
            t = plist[k]
            x1 = pnet["json-mt-1", t]; x2 = pnet["json-mt-2", t]; x4 = pnet["json-mt-4", t]
            if (x1 != "" && x4 != "") jmt[t] = x4 / x1
            printf "| %s (net, peer size) | %s | %s | %s | %s | %s | - |\n", t, fmt(x1, 1), fmt(x2, 1), fmt(x4, 1),
                   (x1 != "" && x4 != "") ? sprintf("%.2f×", x4 / x1) : "-",
                   (x1 != "" && x2 != "") ? sprintf("%.2f×", x2 / x1) : "-"
        }
    }

    # Cost per call with a small and a large live set.
    if (ops["live-small", "base"] + 0 > 0 && ops["live-large", "base"] + 0 > 0) {
        print ""
        printf "Cost per allocator call with %s and with %s live blocks (live-small, live-large: wall ns per call, median; " \
               "the tracer's own cost is the traced build's less the uninstrumented one's):\n", \
               live["live-small"] == "" ? "few" : live["live-small"], live["live-large"] == "" ? "many" : live["live-large"]
        print ""
        print "| build | ns/call, small live set | ns/call, large live set | tracer's ns/call, small | tracer's ns/call, large | tracer's cost large / small |"
        print "|---|---|---|---|---|---|"
        for (b = 1; b <= 4; b++) {
            bb = mb[b]
            ws = median(walls("live-small", bb, "wall")); wl = median(walls("live-large", bb, "wall"))
            if (ws == "" || wl == "") { printf "| %s | - | - | - | - | - |\n", mname[b]; continue }
            ps = ws / ops["live-small", "base"] * 1e9; pl = wl / ops["live-large", "base"] * 1e9
            if (bb == "base") { ps0 = ps; pl0 = pl; printf "| uninstrumented | %.1f | %.1f | - | - | - |\n", ps, pl; continue }
            ds = ps - ps0; dl = pl - pl0
            if (ds > 0) livecost[bb] = dl / ds
            printf "| %s | %.1f | %.1f | %.1f | %.1f | %s |\n", mname[b], ps, pl, ds, dl, (ds > 0 ? sprintf("%.2f×", dl / ds) : "-")
        }
    }

    # Lua 5.4 running bench/alloc.lua (and any other lua* workload).
    for (b = 2; b <= 4; b++) {
        bb = builds[b]; lg = 0; k = 0
        for (i = 1; i <= nw; i++) {
            n = names[i]
            if (n !~ /^lua/) continue
            x = med_ratio(n, bb, "base", "wall")
            if (x == "" || x <= 0) continue
            lg += log(x); k++
        }
        lgeo[bb] = k ? exp(lg / k) : ""; nl = k
    }
    if (nl > 0) printf "\nLua 5.4 (bench/alloc.lua), geometric mean over %d script(s): MTRACE=3 %.2f×, MTRACE=2 %.2f×, MTRACE=1 %.2f×.\n", \
                       nl, lgeo["m3"], lgeo["m2"], lgeo["m1"]

    # Tracer memory, for the workloads that report their peak live blocks.
    if (nlive > 0) {
        print ""
        print "Tracer memory per live block at the peak (workloads that report their peak live block count):"
        print ""
        print "| workload | live blocks | summary's overhead / block (MTRACE=2) | (RSS MTRACE=3 − RSS uninstrumented) / block |"
        print "|---|---|---|---|"
        for (i = 1; i <= nw; i++) {
            n = names[i]
            if (!(n in live)) continue
            r0 = median(walls_rss(n, "base")); r3 = median(walls_rss(n, "m3"))
            printf "| %s | %d | %s | %s |\n", n, live[n],
                   over[n] == "" ? "n/a" : sprintf("%.1f B", over[n] / live[n]),
                   (r0 == "" || r3 == "") ? "-" : sprintf("%.1f B", (r3 - r0) * 1024 / live[n])
            if (n == "tree" && over[n] != "") treemem = over[n] / live[n]
        }
    }

    print ""
    print "Targets (issue 6):"
    print ""
    print "- churn, MTRACE=1 ≤ 3×: " verdict(med_ratio("churn", "m1", "base", "wall"), 3, \
                                          med_ratio("churn", "m1", "base", "cpu"))
    print "- churn, MTRACE=2 ≤ 1.6×: " verdict(med_ratio("churn", "m2", "base", "wall"), 1.6, \
                                            med_ratio("churn", "m2", "base", "cpu"))
    print "- churn, MTRACE=3 ≤ 1.5×: " verdict(med_ratio("churn", "m3", "base", "wall"), 1.5, \
                                            med_ratio("churn", "m3", "base", "cpu"))
    print "- JSON geometric mean, MTRACE=1 ≤ 1.5×: " verdict(geo["m1"], 1.5, cgeo["m1"])
    print "- JSON geometric mean, MTRACE=2 ≤ 1.2×: " verdict(geo["m2"], 1.2, cgeo["m2"])
    for (b = 2; b <= 4; b++)
        print "- threads, cost per call 4T/1T ≤ 2×, " bname[b] ": " verdict(tr[builds[b]], 2, ctr[builds[b]])
    if (allrecs > 0) {
        x = allbytes / allrecs
        print "- trace ≤ 32 B per record (all traces together): " \
              (x <= 32 ? sprintf("met (%.1f B)", x) : sprintf("**NOT met** (%.1f B)", x))
    }
    if (treemem != "")
        print "- tracer memory ≤ 32 B per live block (tree, summary's figure): " \
              (treemem <= 32 ? sprintf("met (%.1f B)", treemem) : sprintf("**NOT met** (%.1f B)", treemem))

    print ""
    print "Issue 12 (wall-clock figures unless said; \"not measured\": the run had no such workload):"
    print ""
    print "| measure | now | target |"
    print "|---|---|---|"
    printf "| cost per call, 2 threads / 1 thread, levels 2 and 3 (threads workload) | %s / %s (CPU %s / %s) | ≤ 1.5× |\n", \
           fmt(tr2["m2"], 2), fmt(tr2["m3"], 2), fmt(ctr2["m2"], 2), fmt(ctr2["m3"], 2)
    printf "| cost per call, 2 threads / 1 thread, level 1 | %s (CPU %s) | ≤ 1.5× |\n", fmt(tr2["m1"], 2), fmt(ctr2["m1"], 2)
    printf "| CPU time per call, 4 threads / 1 thread, levels 3 / 2 / 1 (threads; json-mt per document) | %s / %s / %s (json-mt: %s / %s / %s; uninstrumented %s, %s) | ≤ 2× |\n", \
           fmt(ctr["m3"], 2), fmt(ctr["m2"], 2), fmt(ctr["m1"], 2), fmt(jcpu["m3"], 2), fmt(jcpu["m2"], 2), fmt(jcpu["m1"], 2), \
           fmt(ctr["base"], 2), fmt(jcpu["base"], 2)
    printf "| realistic MT workload (json-mt), 4 threads: overhead ratio / its 1-thread ratio, levels 3 / 2 / 1 | %s / %s / %s (heaptrack %s, massif %s) | ≤ 1.25× |\n", \
           fmt(jmt["m3"], 2), fmt(jmt["m2"], 2), fmt(jmt["m1"], 2), fmt(jmt["heaptrack"], 2), fmt(jmt["massif"], 2)
    printf "| churn, levels 2 and 3 | %s / %s | ≤ 1.5× |\n", fmt(med_ratio("churn", "m2", "base", "wall"), 2), fmt(med_ratio("churn", "m3", "base", "wall"), 2)
    printf "| churn, level 1 | %s | ≤ 4× |\n", fmt(med_ratio("churn", "m1", "base", "wall"), 2)
    printf "| JSON pipeline geomean, level 2 / level 1 | %s / %s | ≤ 1.4× / ≤ 2.2× |\n", fmt(geo["m2"], 2), fmt(geo["m1"], 2)
    r0 = median(walls_rss("tree", "base")); r3 = median(walls_rss("tree", "m3"))
    printf "| tracer memory per live block (tree workload, summary and RSS) | %s / %s | ≤ 32 B both |\n", \
           treemem == "" ? "not measured" : sprintf("%.1f B", treemem), \
           (r0 == "" || r3 == "" || live["tree"] == "") ? "not measured" : sprintf("%.1f B", (r3 - r0) * 1024 / live["tree"])
    printf "| large tree (bigtree, %s live nodes), level 2 / level 1 | %s / %s | ≤ 2× / ≤ 3× |\n", live["bigtree"] == "" ? "5 M" : live["bigtree"], \
           fmt(med_ratio("bigtree", "m2", "base", "wall"), 2), fmt(med_ratio("bigtree", "m1", "base", "wall"), 2)
    printf "| tracer's cost per call, large live set / small (live-large / live-small), levels 3 / 2 / 1 | %s / %s / %s | – |\n", \
           fmt(livecost["m3"], 2), fmt(livecost["m2"], 2), fmt(livecost["m1"], 2)
    printf "| Lua 5.4 allocation-heavy scripts geomean, level 2 / level 1 | %s / %s | ≤ 1.3× / ≤ 1.8× |\n", fmt(lgeo["m2"], 2), fmt(lgeo["m1"], 2)
    printf "| heaptrack / Massif, start-up subtracted (range over the workloads) | %s | – |\n", \
           ("heaptrack" in pmin && "massif" in pmin) ? sprintf("%.1f–%.1f× / %.1f–%.1f×", pmin["heaptrack"], pmax["heaptrack"], pmin["massif"], pmax["massif"]) : "not measured"
}
function walls_rss(name, build,    r, out) {
    out = ""
    for (r = 1; r <= maxround; r++)
        if (rss[name, build, r] != "") out = out " " rss[name, build, r]
    return out
}

# The call stacks of issue 13: the level-1 program built with frame
# pointers, run with MTRACE_DEPTH unset (fp), 8 (d8) and 30 (d30), against
# the same binary without stacks, the uninstrumented program (base) and
# the level-1 build without frame pointers (m1).
function sratio(n, b, ref, f) { return med_ratio("stacks/" n, b, ref, f) }
# The geometric mean of one ratio of the call-stack part (build b against
# ref, f "wall" or "cpu") over the json-* workloads among the ns names sn,
# "" if none; json_n: over how many.
function json_geomean(ns, sn, b, ref, f,    i, x, lg, k) {
    lg = 0; k = 0
    for (i = 1; i <= ns; i++) {
        if (sn[i] !~ /^json-/) continue
        x = sratio(sn[i], b, ref, f)
        if (x == "" || x <= 0) continue
        lg += log(x); k++
    }
    json_n = k
    return k ? exp(lg / k) : ""
}
function stacks_report(    ns, sn, i, n, k, c, cols, refs, colname, cnt, x, gm, gmc, m, mb_, d, t, dn, per,
                           hdr, line, r0, r1, r8, r30, sd, marg) {
    ns = split(sorder, sn, " ")
    # columns: build / reference
    split("fp d8 d30 d8 d30 fp", cols, " "); split("base fp fp base base m1", refs, " ")
    split("level 1 (frame pointers) / uninstrumented|depth 8 / level 1|depth 30 / level 1|depth 8 / uninstrumented|" \
          "depth 30 / uninstrumented|level 1 with / without frame pointers", colname, "|")
    print ""
    print "### Call stacks (issue 13)"
    print ""
    print "The level-1 program built with frame pointers, as mtrace-cc and pkg-config build it " \
          "(-DMTRACE=1 -DMTRACE_LIB -fno-omit-frame-pointer -DMTRACE_FRAME_POINTERS -include mtrace.h, libmtrace), " \
          "run with MTRACE_DEPTH unset (\"level 1\"), =8 and =30: the same binary, so depth N / level 1 is the cost of the stacks alone. " \
          "Wall-clock ratios, median over " rounds " round(s) of the per-round ratio [min–max], the five builds " \
          "(uninstrumented, level 1 without frame pointers, level 1, depth 8, depth 30) in rotating order. " \
          "JSON: geometric mean of the medians over the five single-thread json-* workloads."
    print ""
    hdr = "| workload | size | uninstrumented s |"
    for (c = 1; c <= 6; c++) hdr = hdr " " colname[c] " |"
    print hdr
    print "|---|---|---|---|---|---|---|---|---|"
    for (i = 1; i <= ns; i++) {
        n = sn[i]
        t = walls("stacks/" n, "base", "wall")
        line = sprintf("| %s | %s | %s |", n, size["stacks/" n],
                       t == "" ? "-" : sprintf("%.3f [%.3f–%.3f]", median(t), minof(t), maxof(t)))
        for (c = 1; c <= 6; c++) line = line " " cell("stacks/" n, cols[c], refs[c], "wall") " |"
        print line
    }
    # the JSON pipeline: geometric means, wall and CPU
    for (c = 1; c <= 6; c++) {
        gmc[c] = json_geomean(ns, sn, cols[c], refs[c], "cpu")
        gm[c] = json_geomean(ns, sn, cols[c], refs[c], "wall")
        cnt = json_n
    }
    if (cnt > 0) {
        line = "| JSON (geomean of " cnt ") | | |"
        for (c = 1; c <= 6; c++) line = line " " fmt(gm[c], 2) " |"
        print line
    }
    print ""
    print "CPU time (user + sys), the same ratios:"
    print ""
    hdr = "| workload |"
    for (c = 1; c <= 6; c++) hdr = hdr " " colname[c] " |"
    print hdr
    print "|---|---|---|---|---|---|---|"
    for (i = 1; i <= ns; i++) {
        n = sn[i]; line = "| " n " |"
        for (c = 1; c <= 6; c++) line = line " " cell("stacks/" n, cols[c], refs[c], "cpu") " |"
        print line
    }
    if (cnt > 0) {
        line = "| JSON (geomean) |"
        for (c = 1; c <= 6; c++) line = line " " fmt(gmc[c], 2) " |"
        print line
    }

    print ""
    print "Memory (first round): trace bytes per + - < > record; peak RSS (median of the rounds); " \
          "distinct stacks (the trace's #stack records); the tracer's own bytes at the peak of traced memory " \
          "(tracer_bytes_at_peak of MTRACE_REPORT, the figure behind the summary's \"tracing overhead\" %); " \
          "per stack: (tracer bytes at depth N − at level 1) / stacks at depth N, which includes the fixed cost of " \
          "switching stacks on (the segment table and the first chunk of frame storage); marginal: " \
          "(bytes at depth 30 − at depth 8) / (stacks at 30 − stacks at 8), when they differ. " \
          "(Peak RSS moves by more than these bytes from run to run: it is no measure of them.)"
    print ""
    print "| workload | trace B/rec: level 1 / depth 8 / depth 30 | peak RSS kB: 0 / level 1 / depth 8 / depth 30 | stacks: depth 8 / 30 | tracer bytes at peak: level 1 / depth 8 / depth 30 | per stack: depth 8 / 30 | marginal per stack |"
    print "|---|---|---|---|---|---|---|"
    for (i = 1; i <= ns; i++) {
        n = "stacks/" sn[i]
        line = "| " sn[i] " |"
        split("fp d8 d30", mb_, " ")
        t = ""
        for (k = 1; k <= 3; k++)
            t = t (k > 1 ? " / " : "") (srecs[n, mb_[k]] > 0 ? sprintf("%.1f", sbytes[n, mb_[k]] / srecs[n, mb_[k]]) : "-")
        line = line " " t " |"
        r0 = median(walls_rss(n, "base")); r1 = median(walls_rss(n, "fp"))
        r8 = median(walls_rss(n, "d8")); r30 = median(walls_rss(n, "d30"))
        line = line sprintf(" %s / %s / %s / %s |", r0 == "" ? "-" : r0, r1 == "" ? "-" : r1, r8 == "" ? "-" : r8, r30 == "" ? "-" : r30)
        line = line sprintf(" %s / %s |", nstk[n, "d8"] == "" ? "-" : nstk[n, "d8"], nstk[n, "d30"] == "" ? "-" : nstk[n, "d30"])
        line = line sprintf(" %s / %s / %s |", tb_(n, "fp"), tb_(n, "d8"), tb_(n, "d30"))
        per = ""
        for (k = 2; k <= 3; k++) {
            d = mb_[k]
            x = (tb_(n, d) != "-" && tb_(n, "fp") != "-" && nstk[n, d] > 0) ? \
                sprintf("%.0f B", (tbytes_peak[n, d] - tbytes_peak[n, "fp"]) / nstk[n, d]) : "-"
            per = per (k > 2 ? " / " : "") x
        }
        line = line " " per " |"
        marg = (tb_(n, "d8") != "-" && tb_(n, "d30") != "-" && nstk[n, "d30"] > nstk[n, "d8"]) ? \
               sprintf("%.0f B", (tbytes_peak[n, "d30"] - tbytes_peak[n, "d8"]) / (nstk[n, "d30"] - nstk[n, "d8"])) : "-"
        line = line " " marg " |"
        print line
    }
    print ""
    print "Targets (issue 13, item 7), wall clock (CPU time in parentheses):"
    print ""
    print "- churn, depth 8 ≤ 1.3× level 1: " verdict(sratio("churn", "d8", "fp", "wall"), 1.3, sratio("churn", "d8", "fp", "cpu"))
    print "- JSON pipeline geomean, depth 8 ≤ 1.15× level 1: " verdict(gm[2], 1.15, gmc[2])
}
function tb_(n, b) { return (tbytes_peak[n, b] == "" || tbytes_peak[n, b] == "-") ? "-" : tbytes_peak[n, b] }
