/* SPDX-License-Identifier: MIT */
// tests/diff/page.js - what tests/diff.sh checks in a page of mtrace-diff
// --html, run by tests/html/cdp.js inside headless Chromium.  ARGS: a JSON
// file of what the page must show: {name, kind, text (mtrace-diff's own
// output, the lines), grown, shrunk, fresh, gone (a substring of a site's
// label each, or null), search, hostile (a name, or null)}.  Returns
// "ok NAME" / "FAIL NAME: why" lines.  Calls: the page, through api.
'use strict';
const fs = require('fs');

// The frames drawn, their figures and their background colour.
const FRAMES = `(() => {
  document.querySelector('#flame').scrollIntoView({ block: 'start' });
  return [...document.querySelectorAll('#flame-graph .fr')].map(e => {
    const r = e.getBoundingClientRect(), bg = getComputedStyle(e).backgroundColor;
    return { node: +e.dataset.node, label: e.dataset.label, state: e.dataset.state, text: e.textContent,
      base: +e.dataset.base, new: +e.dataset.new, anc: e.classList.contains('anc'),
      hit: e.classList.contains('hit'), rgb: (bg.match(/\\d+(\\.\\d+)?/g) || []).map(Number),
      x: r.left + r.width / 2, y: r.top + r.height / 2, w: r.width };
  });
})()`;
const ROWS = `[...document.querySelectorAll('#sites-table tbody tr')].map(tr =>
  [...tr.children].map(td => td.textContent).join(' ').split(/\\s+/).filter(Boolean).join(' '))`;

module.exports = async function (api, args) {
  const X = JSON.parse(fs.readFileSync(args[0], 'utf8'));
  const out = [], tag = X.name + ': ';
  const ok = (cond, name, why) => out.push((cond ? 'ok   ' : 'FAIL ') + tag + name + (cond ? '' : ': ' + why));
  const ev = e => api.evaluate(e);
  const attr = (sel, a) => ev(`(() => { const e = document.querySelector(${JSON.stringify(sel)}); return e ? e.getAttribute(${JSON.stringify(a)}) : null; })()`);

  // the header = the text's first line
  const head = /^peak: (\d+) -> (\d+) bytes .*, leaked: (\d+) -> (\d+) bytes/.exec(X.text[0]);
  const peak = [+(await attr('#fact-peak', 'data-base')), +(await attr('#fact-peak', 'data-new'))];
  const leak = [+(await attr('#fact-leaked', 'data-base')), +(await attr('#fact-leaked', 'data-new'))];
  ok(head && peak[0] === +head[1] && peak[1] === +head[2], 'header peaks = the text\'s ' + (head && head[1] + ' -> ' + head[2]), peak);
  ok(head && leak[0] === +head[3] && leak[1] === +head[4], 'header leaks = the text\'s', leak);

  // the table: the text's rows, in its order, cell for cell
  const want = X.text.slice(2).filter(l => !/^\(/.test(l)).map(l => l.trim().split(/\s+/).join(' '));
  const rows = await ev(ROWS);
  // (a byte that is not UTF-8 is U+FFFD in the text as node reads it, Latin-1 in the page)
  const sameText = (a, b) => a.length === b.length && [...a].every((ch, i) => ch === b[i] || b[i] === '\uFFFD');
  ok(rows.length === want.length && rows.every((r, i) => sameText(r, want[i])),
    'table = the text\'s ' + want.length + ' rows, in order',
    JSON.stringify(rows).slice(0, 400) + ' vs ' + JSON.stringify(want).slice(0, 400));
  const unchanged = X.text.map(l => /^\((\d+) sites? unchanged\)$/.exec(l)).find(Boolean);
  ok(+(await attr('#sites-note', 'data-same')) === (unchanged ? +unchanged[1] : 0), 'unchanged sites counted as the text',
    await attr('#sites-note', 'data-same'));
  // sorted by a column: calls, largest change first, then smallest
  await ev("document.querySelector('#sites-table th[data-key=calls]').click()");
  const calls = await ev("[...document.querySelectorAll('#sites-table tbody td[data-fig=calls]')].map(t => t.textContent)");
  const num = s => s === '-' ? -Infinity : +s;
  ok(calls.every((c, i) => i === 0 || num(calls[i - 1]) >= num(c)), 'sorted by calls, largest first', calls);
  await ev("document.querySelector('#sites-table th[data-key=calls]').click()");
  const calls2 = await ev("[...document.querySelectorAll('#sites-table tbody td[data-fig=calls]')].map(t => t.textContent)");
  ok(calls2.every((c, i) => i === 0 || num(calls2[i - 1]) <= num(c)), 'click again: smallest first', calls2);

  // hover a cell: its title is both runs' figures, BASE -> NEW, whose
  // difference is the cell's change; '-' says one run lacks the figure
  const cells = await ev(`[...document.querySelectorAll('#sites-table tbody td[data-fig]:not([data-fig=site])')].map(t => [t.textContent, t.title])`);
  const n0 = s => +s.replace(/,/g, '').replace('\u2212', '-');
  const cellOk = ([c, t]) => c === '-' ? /lacks/.test(t)
    : (m => !!m && n0(m[2]) - n0(m[1]) === n0(c))(/^([\d,]+) \u2192 ([\d,]+)$/.exec(t));
  ok(cells.length > 0 && cells.every(cellOk), 'hover a cell: both runs\' figures, NEW - BASE = the change',
    JSON.stringify(cells.filter(c => !cellOk(c)).slice(0, 3)));
  // the filter: a site's "file:line" typed, only the rows whose name holds it
  const sites = await ev("[...document.querySelectorAll('#sites-table tbody td[data-fig=site]')].map(t => t.firstChild.textContent)");
  const q = sites.length ? sites[sites.length - 1].split(' ').pop().toUpperCase() : '';
  await ev(`(() => { const f = document.querySelector('#sites-filter'); f.value = ${JSON.stringify(q)}; f.dispatchEvent(new Event('input')); })()`);
  const kept = await ev("[...document.querySelectorAll('#sites-table tbody td[data-fig=site]')].map(t => t.firstChild.textContent)");
  ok(q && kept.length > 0 && kept.length === sites.filter(t => t.toLowerCase().includes(q.toLowerCase())).length &&
    kept.every(t => t.toLowerCase().includes(q.toLowerCase())), 'filter by name (any case): only the rows that hold it',
    q + ': ' + JSON.stringify(kept).slice(0, 200));
  await ev(`(() => { const f = document.querySelector('#sites-filter'); f.value = ''; f.dispatchEvent(new Event('input')); })()`);

  // the time graph, or the two bars
  if (X.kind === 'trace') {
    ok(await ev("!!document.querySelector('#line-base') && !!document.querySelector('#line-new')"),
      'the two runs\' heap lines, overlaid', 'missing');
    ok(+(await attr('#peak-base', 'data-bytes')) === peak[0] && +(await attr('#peak-new', 'data-bytes')) === peak[1],
      'both peaks marked on the time graph', [await attr('#peak-base', 'data-bytes'), await attr('#peak-new', 'data-bytes')]);
    await ev("(() => { const s = document.querySelector('#time-unit'); s.value = 'B'; s.dispatchEvent(new Event('change')); })()");
    ok(+(await attr('#peak-new', 'data-bytes')) === peak[1], 'time in bytes: redrawn, peak still marked', 'gone');
  } else {
    ok(await ev("!!document.querySelector('#no-series') && /no time series/.test(document.querySelector('#no-series').textContent)"),
      'reports: the page says they carry no time series', 'no note');
    ok(+(await attr('#bar-base', 'data-bytes')) === peak[0] && +(await attr('#bar-new', 'data-bytes')) === peak[1],
      'reports: the peaks as two bars', 'bars');
  }

  // the flame graph
  let F = await ev(FRAMES);
  const root = F.find(f => f.node === 0);
  if (X.kind === 'trace')
    ok(root && root.base === peak[0] && root.new === peak[1], 'flame root = the two peaks (live at each peak)', JSON.stringify(root));
  const find = s => F.find(f => f.node && f.label.includes(s) && !f.anc);
  const red = f => f && f.rgb[0] > f.rgb[2] + 40, blue = f => f && f.rgb[2] > f.rgb[0] + 40;
  if (X.grown) {
    const f = find(X.grown);
    ok(f && f.state === 'grown' && f.new > f.base && red(f), 'a grown frame (' + X.grown + ') is red', JSON.stringify(f));
  }
  if (X.shrunk) {
    const f = find(X.shrunk);
    ok(f && f.state === 'shrunk' && f.new < f.base && blue(f), 'a shrunk frame (' + X.shrunk + ') is blue', JSON.stringify(f));
  }
  if (X.fresh) {
    const f = find(X.fresh);
    ok(f && f.state === 'new' && f.base === 0 && red(f) && /\[new\]/.test(f.text), 'a new frame is marked [new], red', JSON.stringify(f));
  }
  if (X.gone) {
    const f = find(X.gone);
    ok(f && f.state === 'gone' && f.new === 0 && blue(f) && /\[gone\]/.test(f.text), 'a gone frame is marked [gone], blue', JSON.stringify(f));
  }
  if (X.kind === 'report' && X.grown) {   // a report's frames are its sites' peaks: the table's change
    const f = find(X.grown), line = X.text.find(l => l.includes(X.grown));
    ok(f && line && f.new - f.base === +line.trim().split(/\s+/)[0], 'reports: a frame\'s change = the table\'s peak change',
      JSON.stringify(f) + ' / ' + line);
  }
  // widths: the larger of the two, summed up the tree
  const kids = F.filter(f => f.node && !f.anc);
  ok(root && kids.every(f => f.w <= root.w + 1), 'no frame wider than the root', '');
  // hover: base, new and the change
  const pick = find(X.grown || X.shrunk || X.fresh || X.gone) || kids[0];
  if (pick) {
    await api.hover(pick.x, pick.y);
    await api.sleep(50);
    const t = await ev("document.querySelector('.tip').style.display === 'block' ? document.querySelector('.tip').textContent : ''");
    const d = pick.new - pick.base;
    ok(t.includes('BASE: ' + pick.base.toLocaleString('en-US')) && t.includes('NEW:  ' + pick.new.toLocaleString('en-US')) &&
      t.includes('change: ' + (d >= 0 ? '+' : '\u2212') + Math.abs(d).toLocaleString('en-US') + ' B'),
      'hover: base, new and the change', JSON.stringify(t));
    // click: zoom in, the frame spans the graph
    await api.click(pick.x, pick.y);
    F = await ev(FRAMES);
    const z = F.find(f => f.label === pick.label && !f.anc);
    const r0 = F.find(f => f.node === 0);
    ok(z && r0 && r0.anc && Math.abs(z.w - r0.w) < 2, 'click: zoomed, the frame spans the graph, the root greyed', JSON.stringify(z));
    await ev("document.querySelector('#zoom-reset').click()");
    F = await ev(FRAMES);
    ok(!F.some(f => f.anc), 'reset zoom', 'still zoomed');
  }
  // search
  if (X.search) {
    await ev(`(() => { const s = document.querySelector('#flame-search'); s.focus(); s.value = ''; })()`);
    await api.type(X.search);
    F = await ev(FRAMES);
    const hits = F.filter(f => f.hit), want = F.filter(f => f.node && f.label.toLowerCase().includes(X.search.toLowerCase()));
    ok(hits.length > 0 && hits.length === want.length && +(await attr('#search-result', 'data-frames')) === hits.length,
      'search "' + X.search + '": ' + hits.length + ' frame(s) highlighted', hits.length + ' of ' + want.length);
  }
  // call stacks: callers first puts main's callers... at the root; same totals
  if (X.stacks) {
    await ev("(() => { const s = document.querySelector('#flame-order'); s.value = 'callers'; s.dispatchEvent(new Event('change')); })()");
    F = await ev(FRAMES);
    const r = F.find(f => f.node === 0), top = F.filter(f => f.node && f.label.includes(X.stacks));
    ok(r && r.base === peak[0] && r.new === peak[1] && top.length > 0, 'callers first: the same root, ' + X.stacks + ' drawn',
      JSON.stringify(r));
    const deep = F.filter(f => f.label.includes(X.grown || '\u0000'));
    ok(deep.length > 0 && deep.every(f => red(f) || f.state !== 'grown'), 'callers first: the grown site still red', JSON.stringify(deep[0]));
  }
  // hostile names: shown as text, never markup
  if (X.hostile) {
    const cells = await ev("[...document.querySelectorAll('#sites-table td[data-fig=site]')].map(t => t.textContent)");
    ok(cells.some(c => c.includes(X.hostile)), 'a hostile name is shown as text in the table', JSON.stringify(cells).slice(0, 300));
    F = await ev(FRAMES);
    ok(F.some(f => f.label.includes(X.hostile)), 'a hostile name is a frame\'s text', '');
    ok(await ev("document.querySelectorAll('img, iframe, object, embed').length === 0 && document.scripts.length === 2"),
      'no element made from a name (no img, two scripts)', 'markup');
    ok(await ev('window.__pwned === undefined'), 'no script of a name ran', 'ran');
  }
  return out;
};
