/* SPDX-License-Identifier: MIT */
// tests/html/checks.js - what tests/html.sh checks in one page, run by
// tests/html/cdp.js inside headless Chromium.  ARGS: a JSON file of what
// the page must show (from the program's summary, its JSON report and the
// converter's own Massif file).  Returns "ok NAME" / "FAIL NAME: why" lines.
'use strict';
const fs = require('fs');

// The peak snapshot's tree of a Massif file: [{path, bytes}], the root first.
function massifPeak(file) {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  let i = lines.indexOf('heap_tree=peak');
  if (i < 0) return null;
  const out = [], stack = [];
  for (i++; i < lines.length && /^ *n\d+: /.test(lines[i]); i++) {
    const m = /^( *)n\d+: (\d+) (.*)$/s.exec(lines[i]);   // s: U+2028 is no line end here
    const depth = m[1].length, label = m[3].replace(/^0x[0-9A-F]+: /, '');
    stack.length = depth;
    stack.push(label);
    if (/^in \d+ places?, /.test(label)) continue;        // insignificant ones, merged
    out.push({ path: depth ? stack.slice(1).join(' / ') : '', bytes: +m[2] });
  }
  return out;
}

// The frames drawn: {node: {path, bytes, blocks, ...}}, and the rest.
const FRAMES = `(() => {
  document.querySelector('#flame').scrollIntoView({ block: 'start' });
  const all = {}, list = [];
  for (const e of document.querySelectorAll('#flame-graph .fr')) {
    const r = e.getBoundingClientRect();
    const f = { node: +e.dataset.node, parent: +e.dataset.parent, depth: +e.dataset.depth,
      bytes: +e.dataset.bytes, blocks: +e.dataset.blocks, label: e.textContent,
      anc: e.classList.contains('anc'), hit: e.classList.contains('hit'),
      x: r.left + r.width / 2, y: r.top + r.height / 2, w: r.width };
    all[f.node] = f; list.push(f);
  }
  for (const f of list) {
    const p = [];
    for (let n = f.node; n > 0 && all[n]; n = all[n].parent) p.unshift(all[n].label);
    f.path = p.join(' / ');
  }
  return { list, width: document.querySelector('#flame-graph').getBoundingClientRect().width };
})()`;

module.exports = async function (api, args) {
  const X = JSON.parse(fs.readFileSync(args[0], 'utf8'));
  const out = [], tag = X.name + ': ';
  const ok = (cond, name, why) => out.push((cond ? 'ok   ' : 'FAIL ') + tag + name + (cond ? '' : ': ' + why));
  const ev = e => api.evaluate(e);
  const attr = (sel, a) => ev(`(() => { const e = document.querySelector(${JSON.stringify(sel)}); return e ? e.getAttribute(${JSON.stringify(a)}) : null; })()`);
  const text = sel => ev(`(() => { const e = document.querySelector(${JSON.stringify(sel)}); return e ? e.textContent : null; })()`);
  const fmt = n => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

  // the header's figures = the summary's and the JSON report's
  ok(+(await attr('#fact-peak', 'data-value')) === X.peak_bytes, 'header peak = report peak_bytes ' + X.peak_bytes,
    await text('#fact-peak'));
  ok(+(await attr('#fact-peak', 'data-record')) === X.peak_record, 'header peak record = report peak_record ' + X.peak_record,
    await attr('#fact-peak', 'data-record'));
  ok((await text('#fact-peak')).startsWith(fmt(X.peak_bytes) + ' B') &&
     (await text('#fact-peak')).endsWith(' at record ' + fmt(X.peak_record)),
    'peak shown as text', await text('#fact-peak'));
  ok((await text('#peak-label')).includes(fmt(X.peak_bytes)), 'the time graph marks the peak', await text('#peak-label'));
  ok(+(await attr('#fact-records', 'data-value')) === X.records, 'records = report records ' + X.records,
    await text('#fact-records'));
  ok(+(await attr('#fact-leaks', 'data-value')) === X.leak_bytes && +(await attr('#fact-leaks', 'data-blocks')) === X.leak_blocks,
    'live at exit = the leaks: ' + X.leak_bytes + ' B in ' + X.leak_blocks + ' blocks', await text('#fact-leaks'));
  ok((await text('#fact-cmd')) === X.cmd, 'the command line', await text('#fact-cmd'));

  // the flame graph at the peak
  let F = await ev(FRAMES);
  const root = F.list.find(f => f.node === 0);
  ok(root && root.bytes === X.peak_bytes, 'flame graph of the peak: ' + X.peak_bytes + ' B', JSON.stringify(root));

  // callers first: the outermost callers at the root, the same bytes
  if (X.stacks) {
    const leaves = new Set(F.list.filter(f => !F.list.some(g => g.parent === f.node)).map(f => f.label));
    await ev("(() => { const s = document.querySelector('#flame-order'); s.value = 'callers'; s.dispatchEvent(new Event('change')); })()");
    const V = await ev(FRAMES);
    const tops = new Set(V.list.filter(f => f.depth === 1).map(f => f.label));
    const r = V.list.find(f => f.node === 0);
    ok(r && r.bytes === X.peak_bytes && tops.size === leaves.size && [...tops].every(l => leaves.has(l)),
      'callers first: the outermost callers at the root (' + [...tops].join(', ') + ')',
      JSON.stringify([...tops]) + ' vs ' + JSON.stringify([...leaves]));
    await ev("(() => { const s = document.querySelector('#flame-order'); s.value = 'massif'; s.dispatchEvent(new Event('change')); })()");
    F = await ev(FRAMES);
  }

  // hovering a frame tells bytes, blocks, percent
  let big = F.list.filter(f => f.depth === 1).sort((a, b) => b.bytes - a.bytes)[0];
  await api.hover(big.x, big.y);
  const tipText = await text('.tip');
  ok(tipText.includes(fmt(big.bytes) + ' B') && /block/.test(tipText) && /% of all/.test(tipText),
    'hover shows bytes, blocks and percent', tipText);

  // a click zooms: the frame spans the graph, its parents greyed
  await api.click(big.x, big.y);
  F = await ev(FRAMES);
  const z = F.list.find(f => f.node === big.node);
  ok(z && !z.anc && Math.abs(z.w - F.width) < 3 && F.list.find(f => f.node === 0).anc,
    'a click on "' + big.label + '" zooms to it', JSON.stringify(z) + ' width ' + F.width);
  await ev("document.querySelector('#zoom-reset').click()");

  // the search box highlights
  await ev("document.querySelector('#flame-search').focus()");
  await api.type(X.search);
  F = await ev(FRAMES);
  const hits = F.list.filter(f => f.hit);
  ok(hits.length > 0 && hits.every(f => f.label.toLowerCase().includes(X.search.toLowerCase())) &&
     F.list.filter(f => !f.hit && f.node && f.label.toLowerCase().includes(X.search.toLowerCase())).length === 0,
    'search "' + X.search + '" highlights ' + hits.length + ' frames', JSON.stringify(F.list.map(f => [f.label, f.hit])));
  await ev("(() => { const s = document.querySelector('#flame-search'); s.value = ''; s.dispatchEvent(new Event('input')); })()");

  // the temporal view: a click on the peak of the time graph gives the
  // tree of the Massif file's peak snapshot
  const pk = await ev("(() => { document.querySelector('#time').scrollIntoView({ block: 'start' }); const r = document.querySelector('#peak-marker').getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()");
  await api.click(pk[0], pk[1]);
  F = await ev(FRAMES);
  const cap = await text('#flame-caption');
  ok(/picked on the time graph/.test(cap) && cap.includes('record ' + fmt(X.peak_record)),
    'a click at the peak picks its moment', cap);
  const tree = massifPeak(X.massif);
  const mine = new Map(F.list.map(f => [f.path, f.bytes]));
  const bad = tree.filter(m => mine.get(m.path) !== m.bytes);
  ok(tree.length > 1 && bad.length === 0, 'the moment of the peak = the Massif peak snapshot\'s tree (' + tree.length + ' nodes)',
    JSON.stringify(bad) + ' page: ' + JSON.stringify([...mine]));

  // a range: the largest moment in it is the peak
  const gb = await ev("(() => { document.querySelector('#time').scrollIntoView({ block: 'start' }); const r = document.querySelector('#time svg').getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()");
  await api.drag(gb[0] + gb[2] * 0.09, gb[1] + gb[3] / 2, gb[0] + gb[2] * 0.985, gb[1] + gb[3] / 2);
  F = await ev(FRAMES);
  ok(F.list.find(f => f.node === 0).bytes === X.peak_bytes && /range/.test(await text('#flame-caption')),
    'a range over the whole run shows the largest live set, the peak\'s', await text('#flame-caption'));

  // leaks: what is live at exit
  await ev("document.querySelector('#mode-leaks').click()");
  F = await ev(FRAMES);
  const lr = F.list.find(f => f.node === 0);
  ok(X.leak_bytes === 0 ? F.list.length === 0 : lr && lr.bytes === X.leak_bytes && lr.blocks === X.leak_blocks,
    'leaks view: ' + X.leak_bytes + ' B in ' + X.leak_blocks + ' blocks', JSON.stringify(lr));

  // flame orientation: the root at the bottom
  if (X.leak_bytes) {
    await ev("document.querySelector('#orient-flame').click()");
    F = await ev(FRAMES);
    const r2 = F.list.find(f => f.node === 0);
    ok(F.list.every(f => f.y <= r2.y), 'flame orientation puts the root below', JSON.stringify(F.list.map(f => f.y)));
  }

  // the sites table: largest peak first, as the report's; sorting; filter
  const rows = () => ev("[...document.querySelectorAll('#sites-table tbody tr')].map(r => [...r.cells].map(c => c.textContent))");
  let R = await rows();
  ok(R.length === X.sites.length && R[0][0] === X.sites[0].function && R[0][2] === fmt(X.sites[0].peak_bytes),
    'sites table: ' + X.sites.length + ' sites, the largest peak first', JSON.stringify(R));
  const calls = X.sites.reduce((s, x) => s + x.allocations, 0);
  ok(R.reduce((s, r) => s + +r[5].replace(/,/g, ''), 0) === calls, 'calls add up to the report\'s allocations ' + calls, JSON.stringify(R));
  await ev("document.querySelector('#sites-table th[data-key=calls]').click()");
  R = await rows();
  const col = R.map(r => +r[5].replace(/,/g, ''));
  ok(col.every((v, i) => i === 0 || col[i - 1] >= v), 'sorting by calls', JSON.stringify(col));
  await ev("document.querySelector('#sites-filter').focus()");
  await api.type(X.filter);
  R = await rows();
  ok(R.length > 0 && R.every(r => (r[0] + r[1]).toLowerCase().includes(X.filter.toLowerCase())),
    'filter "' + X.filter + '": ' + R.length + ' rows', JSON.stringify(R));

  // the sizes histogram of the site picked
  await ev("document.querySelector('#sites-table tbody tr').click()");
  const picked = (await rows())[0];
  const counts = await ev("[...document.querySelectorAll('#hist .hl[data-class]')].reduce((s, e) => s + +e.textContent.replace(/,/g, ''), 0)");
  ok(counts === +picked[5].replace(/,/g, ''), 'the sizes of the site picked add up to its calls', counts + ' vs ' + picked[5]);

  if (X.hostile) {
    const body = await ev('document.body.textContent');
    const imgs = await ev("document.querySelectorAll('img, iframe, object, embed').length");
    const scripts = await ev("document.scripts.length");
    ok(body.includes(X.hostile) && imgs === 0 && scripts === 2, 'a hostile name is shown as text and runs nothing',
      'imgs ' + imgs + ' scripts ' + scripts);
  }
  return out;
};
