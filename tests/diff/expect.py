# SPDX-License-Identifier: MIT
# tests/diff/expect.py BASE.json NEW.json - what mtrace-diff must print for
# two JSON reports, computed here from the reports' own figures with
# python's json module (independently of the tool's C reader): the header
# line, then one line per changed site "DPEAK DTOTAL DCALLS DLEAKED
# FUNC FILE:LINE [(new)|(gone)]", in no particular order (the test sorts
# both), then the count of unchanged sites.
import json
import sys


def sites(path):
    r = json.load(open(path))
    out = {}
    for s in r["sites"]:
        key = (s["function"], s["file"], s["line"])
        leaked = 0 if s["suppressed"] else s["live_bytes"] - s["reachable_bytes"]
        calls = s["calls"] if "calls" in s else s["allocations"]
        out[key] = [s["peak_bytes"], s.get("total_bytes"), calls, leaked]
    return r, out


def pct(x, y):
    if x == 0:
        return "(from 0)" if y else "(+0.0%)"
    return "(%+.1f%%)" % ((y - x) * 100.0 / x)


def delta(x, y):
    if x is None or y is None:
        return "-"
    return "0" if x == y else "%+d" % (y - x)


base, b = sites(sys.argv[1])
new, n = sites(sys.argv[2])
print("peak: %d -> %d bytes %s, leaked: %d -> %d bytes %s" % (
    base["peak_bytes"], new["peak_bytes"], pct(base["peak_bytes"], new["peak_bytes"]),
    base["leaked_bytes"], new["leaked_bytes"], pct(base["leaked_bytes"], new["leaked_bytes"])))
same = 0
for key in set(b) | set(n):
    zero = [0, 0, 0, 0]
    x, y = b.get(key), n.get(key)
    if x is None:
        x = [None if v is None else 0 for v in y]
    if y is None:
        y = [None if v is None else 0 for v in x]
    d = [delta(x[i], y[i]) for i in range(4)]
    tag = "(new)" if key not in b else "(gone)" if key not in n else ""
    if not tag and all(v in ("0", "-") for v in d):
        same += 1
        continue
    print(" ".join(d + [key[0], "%s:%d" % (key[1], key[2])] + ([tag] if tag else [])))
print("unchanged %d" % same)
