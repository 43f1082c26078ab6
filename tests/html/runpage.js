/* SPDX-License-Identifier: MIT */
// tests/html/runpage.js - what tests/html.sh checks in an MPI run's page
// (mtrace2massif --html=FILE with several traces), run by tests/html/cdp.js
// inside headless Chromium.  ARGS: a JSON file of what the page must show:
//   { name, timed, sum_peak (or null: not checked), pick, other,
//     ranks: [{ rank, trace, peak, leaked, records } or { rank, trace, failed: true }] }
// Returns "ok NAME" / "FAIL NAME: why" lines.
'use strict';
const fs = require('fs');

module.exports = async function (api, args) {
  const X = JSON.parse(fs.readFileSync(args[0], 'utf8'));
  const out = [], tag = X.name + ': ';
  const ok = (cond, what, why) => out.push((cond ? 'ok   ' : 'FAIL ') + tag + what + (cond ? '' : ': ' + why));
  const ev = e => api.evaluate(e);
  const conv = X.ranks.filter(r => !r.failed);

  ok(+(await ev("document.querySelector('#run-ranks').getAttribute('data-value')")) === X.ranks.length,
    'the header counts ' + X.ranks.length + ' ranks', await ev("document.querySelector('#run-ranks').textContent"));
  const rows = await ev(`[...document.querySelectorAll('#ranks-table tbody tr')].map(tr => ({
    rank: +tr.dataset.rank, trace: tr.children[1].textContent,
    v: Object.fromEntries([...tr.querySelectorAll('td[data-key]')].map(td => [td.dataset.key, td.dataset.value])),
    ext: Object.fromEntries([...tr.querySelectorAll('td[data-extreme]')].map(td => [td.dataset.key, td.dataset.extreme])) }))`);
  ok(rows.length === X.ranks.length && rows.every((r, i) => r.rank === X.ranks[i].rank),
    'one row a rank, in rank order', JSON.stringify(rows.map(r => r.rank)));
  let bad = [];
  X.ranks.forEach((x, i) => {
    const r = rows[i] || { v: {}, trace: '' };
    if (x.failed) { if (!r.trace.endsWith(' (not converted)') || r.v.peak !== undefined) bad.push(x.rank); return; }
    if (+r.v.peak !== x.peak || +r.v.leaked !== x.leaked || +r.v.records !== x.records || !r.trace.startsWith(x.trace))
      bad.push(x.rank + ':' + JSON.stringify(r));
  });
  ok(bad.length === 0, 'each row: the trace, its peak, leaked bytes and records (the converter\'s table)', bad.join(' '));
  // the extremes: the most and the least of each column, every tie marked
  for (const k of ['peak', 'leaked', 'records']) {
    const vals = conv.map(r => r[k]), hi = Math.max(...vals), lo = Math.min(...vals);
    const want = lo === hi ? [] : conv.filter(r => r[k] === hi || r[k] === lo).map(r => r.rank + (r[k] === hi ? 'max' : 'min'));
    const got = rows.filter(r => r.ext[k]).map(r => r.rank + r.ext[k]);
    ok(JSON.stringify(got) === JSON.stringify(want), k + ': the extremes marked (' + want.join(', ') + ')', got.join(', '));
  }
  ok(await ev("document.querySelectorAll('#run-smalls .small').length") === conv.length,
    'one small graph a converted rank', await ev("document.querySelectorAll('#run-smalls .small').length"));
  ok(await ev("document.querySelectorAll('#run-graph polyline.rank-line').length") === conv.length,
    'one curve a converted rank on the common axis', '');
  const axis = await ev("document.querySelector('#run-axis').textContent");
  if (X.timed) {
    ok(axis.startsWith('seconds'), 'the axis is seconds', axis);
    ok(await ev("document.querySelector('#run-sum') !== null"), 'the sum over the ranks is drawn', 'no #run-sum');
    const s = +(await ev("document.querySelector('#run-sum-peak').getAttribute('data-value')"));
    if (X.sum_peak !== null)
      ok(s === X.sum_peak, 'the sum\'s peak is ' + X.sum_peak, s);
    const peaks = conv.map(r => r.peak);
    ok(s >= Math.max(...peaks) && s <= peaks.reduce((a, b) => a + b, 0),
      'the sum\'s peak lies between the largest rank\'s and the sum of the peaks', s);
  } else {
    ok(axis.startsWith('records'), 'no #time: the axis is records', axis);
    ok(await ev("document.querySelector('#run-sum') === null && document.querySelector('#run-sum-peak') === null"),
      'no #time: no sum (no common clock)', 'a sum is drawn');
  }
  ok(await ev("document.querySelector('#rank-views').children.length") === 0, 'no rank\'s views before a pick', '');
  // a row picked: that rank's own views (page.js), its flame graph drawn
  const pick = X.ranks.find(r => r.rank === X.pick);
  await ev(`document.querySelector('#ranks-table tbody tr[data-rank="${X.pick}"]').click()`);
  const v = await ev(`({ rank: document.querySelector('#rank-views').dataset.rank,
    peak: document.querySelector('#rank-views #fact-peak').dataset.value,
    trace: document.querySelector('#rank-views #fact-trace').textContent,
    frames: document.querySelectorAll('#rank-views #flame-graph .fr').length,
    picked: document.querySelector('#ranks-table tr.picked').dataset.rank })`);
  ok(+v.rank === X.pick && +v.peak === pick.peak && v.trace === pick.trace && +v.picked === X.pick,
    'a row clicked: rank ' + X.pick + '\'s views (its peak, its trace)', JSON.stringify(v));
  ok(v.frames >= 2, '... its flame graph at the peak is drawn', v.frames + ' frames');
  await ev("document.querySelector('#mode-leaks').click()");
  const leak = +(await ev("(() => { const e = document.querySelector('#rank-views #flame-graph .fr[data-node=\"0\"]'); return e ? e.dataset.bytes : 0; })()"));
  ok(leak === pick.leaked, '... and its leaks\' flame graph (' + pick.leaked + ' B)', leak);
  await ev(`document.querySelector('#small-${X.other}').click()`);
  const o = await ev("document.querySelector('#rank-views').dataset.rank + ' ' + document.querySelector('#rank-views #fact-peak').dataset.value");
  const other = X.ranks.find(r => r.rank === X.other);
  ok(o === X.other + ' ' + other.peak, 'a small graph clicked: rank ' + X.other + '\'s views instead', o);
  ok(await ev("document.querySelectorAll('#time, #flame, #sites').length") === 3, '... one rank\'s views at a time', '');
  ok(await ev("document.querySelectorAll('img, iframe, object, embed').length") === 0, 'no element made from a name', '');
  return out;
};
