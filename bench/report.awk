# bench/report.awk - turns the measurements of bench/run.sh into the
# markdown report.  Inputs (awk -f report.awk results traces memory):
#   results: NAME BUILD ROUND WALL USER SYS MAXRSS_KB STATUS CHECKSUM OPS
#            BUILD is base, m3, m2, m1 (full size), small, heaptrack,
#            massif (peer size)
#   traces:  NAME BYTES RECORDS          (one MTRACE=1 trace per workload)
#   memory:  NAME LIVE OVERHEAD_BYTES    (workloads that print their peak
#            live block count; overhead from the MTRACE=2 summary)
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

END {
    nw = split(order, names, " ")
    ns = split(sizes, s, ";")
    for (i = 1; i <= ns; i++) { split(s[i], kv, "="); size[kv[1]] = kv[2] }
    peers = (peer_list != "")

    print "| workload | size | uninstrumented s | MTRACE=3 | MTRACE=2 | MTRACE=1 |" \
          (index(peer_list, "heaptrack") ? " heaptrack (peer size) |" : "") \
          (index(peer_list, "massif") ? " massif (peer size) |" : "") \
          " trace B/rec | peak RSS MB: 0 / 3 / 2 / 1 |"
    printf "|---|---|---|---|---|---|%s%s---|---|\n", \
           index(peer_list, "heaptrack") ? "---|" : "", index(peer_list, "massif") ? "---|" : ""
    for (i = 1; i <= nw; i++) {
        n = names[i]
        w = walls(n, "base", "wall")
        base = failed[n, "base"] ? "FAILED" : \
               (w == "" ? "-" : sprintf("%.3f [%.3f–%.3f]", median(w), minof(w), maxof(w)))
        line = sprintf("| %s | %s | %s | %s | %s | %s |", n, size[n], base,
                       cell(n, "m3", "base", "wall"), cell(n, "m2", "base", "wall"),
                       cell(n, "m1", "base", "wall"))
        if (index(peer_list, "heaptrack")) line = line " " cell(n, "heaptrack", "small", "wall") " |"
        if (index(peer_list, "massif")) line = line " " cell(n, "massif", "small", "wall") " |"
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
    if (peers)
        print "heaptrack and massif run the workload at the smaller peer size given in the size column" \
              " and are compared with the uninstrumented program at that size (" peer_rounds " round(s); their start-up, 0.4-0.5 s, is included)."
    print "trace B/rec: size of the whole MTRACE=1 trace file / its number of + - < > records."

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
            if (n !~ /^json-/) continue
            x = med_ratio(n, bb, "base", "wall"); y = med_ratio(n, bb, "base", "cpu")
            if (x == "" || x <= 0 || y == "" || y <= 0) continue
            lg += log(x); clg += log(y); k++
        }
        geo[bb] = k ? exp(lg / k) : ""; cgeo[bb] = k ? exp(clg / k) : ""
        nj = k
    }
    if (nj > 0) print ""
    if (nj > 0) printf "JSON pipeline (the realistic program), geometric mean of the median ratios over its %d workloads: " \
           "MTRACE=3 %.2f×, MTRACE=2 %.2f×, MTRACE=1 %.2f× (CPU time: %.2f×, %.2f×, %.2f×).\n", \
           nj, geo["m3"], geo["m2"], geo["m1"], cgeo["m3"], cgeo["m2"], cgeo["m1"]

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
}
function walls_rss(name, build,    r, out) {
    out = ""
    for (r = 1; r <= maxround; r++)
        if (rss[name, build, r] != "") out = out " " rss[name, build, r]
    return out
}
