/* SPDX-License-Identifier: MIT */
/* run.js - the script of an MPI run's page (mtrace2massif --html=FILE with
   several traces and no %r or %n in FILE).  Hand-written for mtrace, under
   the project's licence; embedded by convert/html/embed.awk after page.js.
   It reads "mtrace-run" (the traces in rank order) and each converted
   rank's figures ("mtrace-rank-K": what a one-trace page holds), and draws:
   every rank's memory on one time axis with the sum over the ranks, one
   small graph per rank, the ranks table with its extremes marked; a rank
   picked (a row, a small graph) gets its own views below, drawn by page.js
   (mtracePage).  The axis is seconds when every trace has the clock
   (#time), each rank placed by its start on the wall clock (#clock);
   else records, each rank from 0, and no sum (no common clock).  Text
   from the traces is only ever set as text. */
function mtraceRun(R) {
  const SLICES = 800;   /* the sum: each rank's highest in each slice */
  const ranks = R.ranks.map(r => Object.assign({}, r, { D: r.part < 0 ? null :
    JSON.parse(document.getElementById('mtrace-rank-' + r.part).textContent) }));
  const ok = ranks.filter(r => r.D);
  const timed = ok.length > 0 && ok.every(r => r.D.has_time);
  const clocked = timed && ok.every(r => r.D.clock !== null);
  const c0 = clocked ? ok.reduce((m, r) => Math.min(m, r.D.clock), Infinity) : 0;
  const xText = x => timed ? seconds(x) : fmt(x);

  /* each rank: its curve (steps: the highest heap of each stretch, at its
     moment), its peak, when, what is left at the end */
  for (const r of ok) {
    const D = r.D, B = D.b, off = clocked ? (D.clock - c0) / 1e9 : 0;
    const x = k => timed ? off + B.hns[k] / 1e9 : B.hrec[k] + 1;
    r.start = off;
    r.end = timed ? off + D.end.ns / 1e9 : D.end.rec;
    r.pts = [[off, 0]];
    for (let k = 0; k < B.hi.length; k++) r.pts.push([x(k), B.hi[k]]);
    r.pts.push([r.end, D.end.bytes]);
    r.peak = D.peak ? D.peak.bytes : 0;
    r.when = D.peak ? (timed ? off + D.peak.ns / 1e9 : D.peak.record) : null;
  }
  const xmax = Math.max(timed ? 1e-3 : 1, ...ok.map(r => r.end));
  const sum = timed ? sumOverRanks() : null;
  let sumPeak = 0, sumAt = 0;
  if (sum) for (let g = 0; g < SLICES; g++) if (sum[g] > sumPeak) { sumPeak = sum[g]; sumAt = g; }

  /* A rank's heap is the value of its last point (0 before it starts and
     after it ends); a slice gets the highest it held in the slice. */
  function sumOverRanks() {
    const s = new Float64Array(SLICES), dx = xmax / SLICES;
    for (const r of ok) {
      let j = 0, cur = 0;
      for (let g = 0; g < SLICES; g++) {
        const a = g * dx, b = a + dx;
        let m = a >= r.start && a < r.end ? cur : 0;
        while (j < r.pts.length && r.pts[j][0] < b) { cur = r.pts[j][1]; m = Math.max(m, cur); j++; }
        if (a >= r.end) cur = 0;
        s[g] += m;
      }
    }
    return s;
  }

  const main = el('main');
  document.body.append(main, tip);
  const first = ok.length ? ok[0].D : null;
  const program = first && first.cmd ? first.cmd.split(' ')[0] : ranks[0].trace;
  document.title = 'mtrace: ' + program + ' (' + ranks.length + ' ranks)';

  function header() {
    const dl = el('dl', { class: 'facts' });
    const fact = (id, name, text, value) => {
      const dd = el('dd', { id }, text);
      if (value !== undefined) dd.setAttribute('data-value', String(value));
      dl.append(el('dt', { text: name }), dd);
    };
    fact('run-cmd', 'command line', first && first.cmd !== null ? first.cmd : '(not in the trace)');
    fact('run-ranks', 'ranks', fmt(ranks.length) + (ok.length < ranks.length ?
      ' (' + fmt(ranks.length - ok.length) + ' not converted)' : ''), ranks.length);
    if (sum) fact('run-sum-peak', 'the run\'s peak (sum over ranks)', bytes(sumPeak) + ' at ' +
      seconds((sumAt + 0.5) * xmax / SLICES), sumPeak);
    fact('run-axis', 'time', timed ? (clocked ? 'seconds since the first rank started (each trace\'s #clock)'
      : 'seconds since each rank started') : 'records, each rank from 0: a trace without #time has no clock');
    return el('header', null, el('h1', { text: 'mtrace heap profile of a run: ' + program }), dl);
  }

  /* ---- every rank on one axis, and the sum ---------------------------- */
  function steps(pts, X, Y) {
    let s = '', y = null;
    for (const [px, py] of pts) {
      const a = X(px).toFixed(1), b = Y(py).toFixed(1);
      if (y !== null) s += ' ' + a + ',' + y;
      s += ' ' + a + ',' + b;
      y = b;
    }
    return s;
  }
  function color(i) { return 'hsl(' + Math.round(i * 360 / Math.max(1, ok.length)) + ',65%,45%)'; }

  function overview() {
    const W = 1000, H = 330, L = 78, Rm = 12, T = 14, Bm = 34;
    const ymax = Math.max(1, sum ? sumPeak : 0, ...ok.map(r => r.peak)) * 1.08;
    const X = x => L + (W - L - Rm) * x / xmax, Y = y => H - Bm - (H - Bm - T) * y / ymax;
    const svg = sv('svg', { viewBox: '0 0 ' + W + ' ' + H, role: 'img', 'aria-label': 'every rank\'s memory over time' });
    const ystep = niceStepBytes(ymax, 5), xstep = niceStep(xmax, 6);
    for (let y = 0; y <= ymax; y += ystep) {
      svg.append(sv('line', { x1: L, x2: W - Rm, y1: Y(y), y2: Y(y), stroke: '#eef1f4' }));
      svg.append(sv('text', { x: L - 6, y: Y(y) + 4, 'text-anchor': 'end', class: 'tick' }, human(y)));
    }
    for (let x = 0; x <= xmax; x += xstep)
      svg.append(sv('text', { x: X(x), y: H - Bm + 15, 'text-anchor': 'middle', class: 'tick' }, xText(x)));
    svg.append(sv('text', { x: (L + W - Rm) / 2, y: H - 4, 'text-anchor': 'middle', class: 'tick' },
      'time: ' + (timed ? 'seconds' : 'records')));
    if (sum) {
      const pts = [[0, 0]];
      for (let g = 0; g < SLICES; g++) pts.push([g * xmax / SLICES, sum[g]]);
      pts.push([xmax, 0]);
      svg.append(sv('polygon', { points: steps(pts, X, Y), fill: '#c9ced4', 'fill-opacity': 0.6, id: 'run-sum' }));
    }
    ok.forEach((r, i) => svg.append(sv('polyline', { points: steps(r.pts, X, Y), fill: 'none', stroke: color(i),
      'stroke-width': 1.2, 'stroke-opacity': 0.85, class: 'rank-line', 'data-rank': r.rank })));
    svg.append(sv('line', { x1: L, x2: L, y1: T, y2: H - Bm, class: 'axis' }),
               sv('line', { x1: L, x2: W - Rm, y1: H - Bm, y2: H - Bm, class: 'axis' }));
    const box = el('div', { class: 'graph', id: 'run-graph' }, svg);
    svg.addEventListener('mousemove', ev => {
      const b = svg.getBoundingClientRect(), vx = (ev.clientX - b.left) * W / b.width;
      const x = Math.min(xmax, Math.max(0, (vx - L) * xmax / (W - L - Rm)));
      let t = 'at ' + xText(x);
      if (sum) t += '\nsum over ranks: ' + bytes(sum[Math.min(SLICES - 1, Math.floor(x / xmax * SLICES))]);
      showTip(ev, t + '\n(pick a rank below for its views)');
    });
    svg.addEventListener('mouseleave', hideTip);
    return el('section', { id: 'run-time' }, el('h2', { text: 'Memory over time, every rank' }),
      el('p', { class: 'note', text: 'Traced heap (requested bytes) of each rank, one colour a rank' +
        (sum ? '; in grey the sum over the ranks (each rank\'s highest in each of ' + SLICES + ' slices of time).' :
          '. No sum: without #time the ranks have no common clock.') }), box);
  }

  /* ---- one small graph a rank ----------------------------------------- */
  const cards = new Map(), rows = new Map();
  function smalls() {
    const W = 240, H = 64, ymax = Math.max(1, ...ok.map(r => r.peak)) * 1.05;
    const X = x => 2 + (W - 4) * x / xmax, Y = y => H - 2 - (H - 4) * y / ymax;
    const grid = el('div', { class: 'smalls', id: 'run-smalls' });
    ok.forEach((r, i) => {
      const svg = sv('svg', { viewBox: '0 0 ' + W + ' ' + H });
      svg.append(sv('polyline', { points: steps(r.pts, X, Y), fill: 'none', stroke: color(i), 'stroke-width': 1.3 }));
      if (r.when !== null) svg.append(sv('circle', { cx: X(r.when), cy: Y(r.peak), r: 3, fill: '#d62728' }));
      const card = el('div', { class: 'small', id: 'small-' + r.rank, 'data-rank': r.rank, onclick: () => showRank(r) },
        el('div', { text: 'rank ' + r.rank + ' \u00b7 peak ' + human(r.peak) }), svg);
      cards.set(r, card);
      grid.append(card);
    });
    return el('section', { id: 'run-ranks' }, el('h2', { text: 'Each rank' }),
      el('p', { class: 'note', text: 'One scale for all; the red dot is the rank\'s peak. Click one for its views.' }), grid);
  }

  /* ---- the ranks table, its extremes marked -------------------------- */
  const COLS = [['peak', 'peak bytes'], ['when', timed ? 'peak at' : 'peak at record'],
                ['leaked', 'leaked bytes'], ['nleaked', 'leaked blocks'], ['records', 'records']];
  function table() {
    for (const r of ok) { r.leaked = r.D.end.bytes; r.nleaked = r.D.end.blocks; r.records = r.D.records; }
    const ext = {};
    for (const [k] of COLS) {
      if (k === 'when') continue;
      const v = ok.map(r => r[k]);
      ext[k] = [Math.min(...v), Math.max(...v)];
    }
    const head = el('tr', null, el('th', { text: 'rank' }), el('th', { class: 'txt', text: 'trace' }),
      ...COLS.map(([, name]) => el('th', { text: name })));
    const body = el('tbody');
    for (const r of ranks) {
      const tr = el('tr', { 'data-rank': r.rank }, el('td', { text: String(r.rank) }),
        el('td', { class: 'txt', text: r.trace + (r.D ? (r.D.truncated ? ' (truncated)' : '') : ' (not converted)') }));
      for (const [k] of COLS) {
        const td = el('td', { 'data-key': k });
        if (r.D) {
          td.textContent = k === 'when' ? (r.when === null ? '-' : xText(r.when)) : fmt(r[k]);
          td.setAttribute('data-value', String(k === 'when' ? r.when : r[k]));
          const e = ext[k];
          if (e && e[0] !== e[1] && (r[k] === e[0] || r[k] === e[1])) {
            const most = r[k] === e[1];
            td.classList.add(most ? 'max' : 'min');
            td.setAttribute('data-extreme', most ? 'max' : 'min');
            td.title = most ? 'the most of all ranks' : 'the least of all ranks';
            td.append(most ? ' \u25b2' : ' \u25bc');
          }
        }
        tr.append(td);
      }
      if (r.D) { tr.addEventListener('click', () => showRank(r)); rows.set(r, tr); }
      body.append(tr);
    }
    return el('section', { id: 'run-table' }, el('h2', { text: 'Ranks' }),
      el('p', { class: 'note', text: '\u25b2 the most of all ranks, \u25bc the least. Click a row for the rank\'s views.' }),
      el('div', { class: 'tablebox' }, el('table', { id: 'ranks-table' }, el('thead', null, head), body)));
  }

  /* ---- one rank's views ------------------------------------------------ */
  const detail = el('div', { id: 'rank-views' });
  function showRank(r) {
    for (const [x, e] of cards) e.classList.toggle('on', x === r);
    for (const [x, e] of rows) e.classList.toggle('picked', x === r);
    const host = el('div');
    detail.replaceChildren(el('h2', { class: 'rank-title', id: 'rank-title', text: 'Rank ' + r.rank + ': ' + r.trace }), host);
    detail.setAttribute('data-rank', String(r.rank));
    mtracePage(r.D, host, false);
    detail.scrollIntoView({ block: 'start' });
  }

  main.append(header(), overview(), table(), smalls(), detail,
    el('footer', { text: 'Written by ' + R.tool + ' from the traces alone; nothing is loaded from elsewhere.' }));
  document.body.setAttribute('data-ready', String(Math.round(performance.now())));
}
{
  const run = document.getElementById('mtrace-run');   /* an MPI run's page */
  if (run) mtraceRun(JSON.parse(run.textContent));
}
