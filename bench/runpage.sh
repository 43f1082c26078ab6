#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/runpage.sh [RANKS [RECORDS]] - an MPI run's page (mtrace2massif
# --html=FILE with several traces) at scale: RANKS traces (default 64) of
# RECORDS records each (default 1 million; about 37 MB a trace in $TMPDIR),
# made by bench/mtrace2massif.sh's generator with the tracer's clock added
# (#clock, rank r starting r * 3 ms after rank 0; #time every 1000 records,
# 10 us a record).  Prints the conversion's time and memory, the page's size,
# and how long headless Chromium takes to draw it (tests/html/cdp.js) and
# then one rank's views.
set -e
RANKS=${1:-64}
N=${2:-1000000}
TOP=$(cd "$(dirname "$0")/.." && pwd)
DIR=$(mktemp -d "${TMPDIR:-/tmp}/m2m-runpage.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
[ -x "$TOP/mtrace2massif" ] || make -C "$TOP" mtrace2massif >/dev/null
awk '/^cat > "\$DIR\/gen.c" <<.GEN.$/ { on = 1; next } /^GEN$/ { on = 0 } on' \
    "$TOP/bench/mtrace2massif.sh" > "$DIR/gen.c"
cc -O2 -o "$DIR/gen" "$DIR/gen.c"
"$DIR/gen" "$N" > "$DIR/g.trace"
names=
r=0
while [ "$r" -lt "$RANKS" ]; do
    f=tr; [ "$r" -gt 0 ] && f=tr-$r
    awk -v r="$r" 'NR == 1 { printf "#cmd ./bench\n#clock 1700000000%09d\n#time 0\n", r * 3000000 }
        /^[-+<>] / && ++n % 1000 == 0 { printf "#time %d\n", n * 10000 } { print }' \
        "$DIR/g.trace" > "$DIR/$f"
    names="$names $f"
    r=$((r + 1))
done
rm "$DIR/g.trace"
cd "$DIR"
/usr/bin/time -f '%e s, %M KiB' "$TOP/mtrace2massif" --html=run.html -o 'm.%r' $names > /dev/null 2> time.txt
echo "$RANKS traces of $N records: converted with the page in $(tail -1 time.txt)"
echo "page: $(wc -c < run.html) bytes"
cat > steps.js <<'STEPS'
module.exports = async function (api) {
  const t0 = Date.now();
  await api.evaluate("document.querySelector('#ranks-table tbody tr[data-rank=\"1\"]').click()");
  return ['a rank\'s views: ' + (Date.now() - t0) + ' ms'];
};
STEPS
for i in 1 2 3; do
    node --experimental-websocket "$TOP/tests/html/cdp.js" run.html steps.js | grep -E '^(ready_ms|a rank|errors)' | tr '\n' ' '
    echo
done
