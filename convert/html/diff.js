/* SPDX-License-Identifier: MIT */
/* diff.js - the script of mtrace-diff's HTML page (--html).  Hand-written
   for mtrace, under the project's licence; embedded by convert/html/embed.awk.
   It reads the figures from the <script type="application/json"> element
   (written by convert/diff_html.c: doc/mtrace-diff.md, "The HTML page")
   and draws: the header, the two runs' heap over time overlaid (or, for
   JSON reports, which have no time series, their peaks as two bars), the
   differential flame graph of the peak and the table of changes per site.
   It calls nothing but the DOM.  Text from the inputs is only ever set
   with textContent, setAttribute or as a Text node: never parsed as HTML. */
'use strict';
(function () {
  const D = JSON.parse(document.getElementById('mtrace-diff-data').textContent);
  const R = D.runs, WHO = ['base', 'new'];

  /* ---- helpers -------------------------------------------------------- */
  /* the change from x to y in percent, as the text's header */
  function pctText(x, y) {
    if (x === 0) return y ? '(from 0)' : '(+0.0%)';
    const p = (y - x) * 100 / x;
    return '(' + (p >= 0 ? '+' : '') + p.toFixed(1) + '%)';
  }
  const COLOR = { base: '#6b7580', new: '#d95f02' };

  const main = el('main');
  document.body.append(main, tip);
  const traces = R[0].kind === 'trace';
  document.title = 'mtrace-diff: ' + R[0].file + ' \u2192 ' + R[1].file;

  /* ---- header ---------------------------------------------------------- */
  function header() {
    const dl = el('dl', { class: 'facts' });
    function fact(id, name, text) {
      const dd = el('dd', { id }, text);
      dl.append(el('dt', { text: name }), dd);
      return dd;
    }
    fact('fact-base', 'BASE', R[0].file + (R[0].cmd !== null ? '  (' + R[0].cmd + ')' : ''));
    fact('fact-new', 'NEW', R[1].file + (R[1].cmd !== null ? '  (' + R[1].cmd + ')' : ''));
    for (const [id, key, name] of [['fact-peak', 'peak', 'peak'], ['fact-leaked', 'leaked', 'leaked']]) {
      const x = R[0][key], y = R[1][key];
      const dd = fact(id, name, fmt(x) + ' \u2192 ' + fmt(y) + ' B ' + pctText(x, y) + ', ' +
        (y >= x ? '+' : '\u2212') + bytes(Math.abs(y - x)));
      dd.setAttribute('data-base', String(x));
      dd.setAttribute('data-new', String(y));
    }
    fact('fact-kind', 'compared', traces ? 'two traces' + (R[0].stacks || R[1].stacks ? ' (with call stacks)' : '')
      : 'two JSON reports (version ' + R[0].version + ' and ' + R[1].version + ')');
    return el('header', null, el('h1', { text: 'mtrace-diff: ' + R[0].file + ' \u2192 ' + R[1].file }), dl);
  }

  /* ---- memory over time ------------------------------------------------ */
  const TG = { W: 1000, H: 300, L: 78, R: 12, T: 14, Bm: 34 };
  let unit = 'i';
  const timeBox = el('div', { class: 'graph', id: 'time-graph' });
  function tx(s, k) { return unit === 'i' ? s.rec[k] + 1 : s.tb[k]; }
  function endOf(s) { return unit === 'i' ? s.end.rec : s.end.tb; }
  function peakX(s) { return unit === 'i' ? s.peak.rec + 1 : s.peak.tb; }

  function drawTime() {
    const { W, H, L, T, Bm } = TG, Rm = TG.R;
    const S = R.map(r => r.series);
    const xmax = Math.max(1, endOf(S[0]), endOf(S[1]));
    const ymax = Math.max(1, R[0].peak, R[1].peak) * 1.12;
    const X = x => L + (W - L - Rm) * x / xmax, Y = y => H - Bm - (H - Bm - T) * y / ymax;
    const svg = sv('svg', { viewBox: '0 0 ' + W + ' ' + H, role: 'img', 'aria-label': 'heap over time, both runs' });
    const ystep = niceStepBytes(ymax, 5), xstep = niceStep(xmax, 6);
    for (let y = 0; y <= ymax; y += ystep) {
      svg.append(sv('line', { x1: L, x2: W - Rm, y1: Y(y), y2: Y(y), stroke: '#eef1f4' }));
      svg.append(sv('text', { x: L - 6, y: Y(y) + 4, 'text-anchor': 'end', class: 'tick' }, human(y)));
    }
    for (let x = 0; x <= xmax; x += xstep)
      svg.append(sv('text', { x: X(x), y: H - Bm + 15, 'text-anchor': 'middle', class: 'tick' },
        unit === 'i' ? fmt(x) : human(x)));
    svg.append(sv('text', { x: (L + W - Rm) / 2, y: H - 4, 'text-anchor': 'middle', class: 'tick' },
      'time: ' + (unit === 'i' ? 'records' : 'bytes allocated + freed')));
    svg.append(sv('line', { x1: L, x2: L, y1: T, y2: H - Bm, class: 'axis' }),
               sv('line', { x1: L, x2: W - Rm, y1: H - Bm, y2: H - Bm, class: 'axis' }));
    for (let r = 0; r < 2; r++) {
      const s = S[r];
      let pts = X(0) + ',' + Y(0);
      for (let k = 0; k < s.hi.length; k++) pts += ' ' + X(tx(s, k)).toFixed(1) + ',' + Y(s.hi[k]).toFixed(1);
      pts += ' ' + X(endOf(s)).toFixed(1) + ',' + Y(s.end.bytes).toFixed(1);
      svg.append(sv('polyline', { points: pts, fill: 'none', stroke: COLOR[WHO[r]], 'stroke-width': r ? 1.8 : 1.5,
        'stroke-dasharray': r ? '' : '5 3', id: 'line-' + WHO[r] }));
    }
    for (let r = 0; r < 2; r++) {
      const s = S[r];
      if (!s.peak.bytes) continue;
      const px = X(peakX(s)), py = Y(s.peak.bytes), right = px > W * 0.6;
      svg.append(sv('circle', { cx: px, cy: py, r: 4.5, fill: COLOR[WHO[r]], id: 'peak-' + WHO[r],
        'data-bytes': s.peak.bytes, 'data-record': s.peak.rec }));
      svg.append(sv('text', { x: right ? px - 8 : px + 8, y: Math.max(T + 10, py - 6 - 13 * r),
        'text-anchor': right ? 'end' : 'start', class: 'tick', id: 'peak-label-' + WHO[r],
        style: 'fill:' + COLOR[WHO[r]] + ';font-weight:600' },
        (r ? 'NEW' : 'BASE') + ' peak ' + fmt(s.peak.bytes) + ' B at record ' + fmt(s.peak.rec)));
    }
    const hover = sv('line', { x1: 0, x2: 0, y1: T, y2: H - Bm, class: 'hover', visibility: 'hidden' });
    svg.append(hover);
    timeBox.replaceChildren(svg);
    svg.addEventListener('mousemove', ev => {
      const b = svg.getBoundingClientRect(), vx = (ev.clientX - b.left) * W / b.width;
      const x = Math.min(xmax, Math.max(0, (vx - L) * xmax / (W - L - Rm)));
      hover.setAttribute('x1', X(x)); hover.setAttribute('x2', X(x));
      hover.setAttribute('visibility', 'visible');
      let t = 'time ' + (unit === 'i' ? 'record ' + fmt(x) : human(x));
      for (let r = 0; r < 2; r++) {
        const s = S[r];
        let best = -1, bd = Infinity;
        for (let k = 0; k < s.hi.length; k++) {
          const d = Math.abs(tx(s, k) - x);
          if (d < bd) { bd = d; best = k; }
        }
        t += '\n' + (r ? 'NEW ' : 'BASE') + ': ' + (best < 0 || x > endOf(s) ? 'ended' : bytes(s.hi[best]) +
          ' (the most near record ' + fmt(s.rec[best]) + ')');
      }
      showTip(ev, t);
    });
    svg.addEventListener('mouseleave', () => { hover.setAttribute('visibility', 'hidden'); hideTip(); });
  }

  /* Reports: no time series, the two peaks as bars. */
  function peakBars() {
    const max = Math.max(1, R[0].peak, R[1].peak), box = el('div', { class: 'bars', id: 'peak-bars' });
    for (let r = 0; r < 2; r++) {
      const bar = el('div', { class: 'pb', id: 'bar-' + WHO[r], 'data-bytes': R[r].peak });
      bar.style.width = (100 * R[r].peak / max) + '%';
      bar.style.background = COLOR[WHO[r]];
      box.append(el('div', { class: 'pl', text: (r ? 'NEW' : 'BASE') + ' peak' }), el('div', null, bar),
        el('div', { class: 'pv', text: bytes(R[r].peak) }));
    }
    return box;
  }

  function timeSection() {
    const sec = el('section', { id: 'time' }, el('h2', { text: traces ? 'Memory over time' : 'Peaks' }));
    if (!traces || !R[0].series || !R[1].series) {
      sec.append(el('p', { class: 'note', id: 'no-series', text: 'JSON reports carry no time series: only ' +
        'their peaks are compared here. Compare the two traces (MTRACE) for the heap over time.' }), peakBars());
      return sec;
    }
    const unitSel = el('select', { id: 'time-unit', onchange: () => { unit = unitSel.value; drawTime(); } },
      el('option', { value: 'i', text: 'records' }), el('option', { value: 'B', text: 'bytes allocated + freed' }));
    const legend = el('div', { class: 'legend' });
    for (let r = 0; r < 2; r++)
      legend.append(el('span', null, el('span', { class: 'sw', style: 'background:' + COLOR[WHO[r]] }),
        (r ? 'NEW: ' : 'BASE: ') + R[r].file));
    sec.append(el('div', { class: 'bar' }, el('label', { text: 'time: ' }, unitSel),
      el('span', { class: 'note', text: 'Traced heap (requested bytes) of both runs on one time axis, ' +
        'each line the highest heap of its stretch; the dots are the peaks. Hover for values.' })),
      timeBox, legend);
    drawTime();
    return sec;
  }

  /* ---- the differential flame graph ------------------------------------ */
  /* A label's key: Massif's frame labels without their addresses. */
  function keyOf(l) { return l.split('\n').map(s => s.replace(/^0x[0-9A-Fa-f]+: /, '')).join('\n'); }
  const anyStacks = R[0].stacks || R[1].stacks;
  const FL = { order: 'site', zoom: 0, query: '', tree: null };

  /* The merged tree: node 0 the root; each node its key, parent, kids,
     bytes of both runs under it (b, n), its own (sb, sn) and its width w. */
  function buildTree() {
    const key = ['all traced heap'], par = [-1], kids = [[]], b = [0], n = [0], sb = [0], sn = [0];
    const made = new Map();
    for (let r = 0; r < 2; r++) {
      const f = R[r].flame, P = f.paths, keys = f.labels.map(keyOf);
      for (let i = 0; i < P.length;) {
        const len = P[i], by = P[i + 1];
        let path = P.slice(i + 2, i + 2 + len).map(j => keys[j]);
        i += 2 + len;
        if (FL.order === 'callers') path = path.reverse();
        let at = 0;
        (r ? n : b)[0] += by;
        for (const k of path) {
          const mk = at + '\u0000' + k;
          let v = made.get(mk);
          if (v === undefined) {
            v = key.length;
            made.set(mk, v);
            key.push(k); par.push(at); kids.push([]); b.push(0); n.push(0); sb.push(0); sn.push(0);
            kids[at].push(v);
          }
          (r ? n : b)[v] += by;
          at = v;
        }
        (r ? sn : sb)[at] += by;
      }
    }
    const N = key.length, w = new Float64Array(N);
    for (let i = N - 1; i >= 0; i--) {        /* children come after their parents */
      w[i] += Math.max(sb[i], sn[i]);
      if (i) w[par[i]] += w[i];
    }
    return { key, par, kids, b, n, w, N };
  }

  function state(t, i) {
    const x = t.b[i], y = t.n[i];
    return x === 0 && y > 0 ? 'new' : y === 0 && x > 0 ? 'gone' : y > x ? 'grown' : y < x ? 'shrunk' : 'same';
  }
  /* grown: reds, shrunk: blues, the deeper the larger the change in
     proportion; new and gone the deepest; unchanged grey */
  function color(t, i) {
    const s = state(t, i), x = t.b[i], y = t.n[i];
    if (s === 'new') return 'hsl(0,78%,40%)';
    if (s === 'gone') return 'hsl(214,72%,38%)';
    if (s === 'same') return '#d3d8de';
    const r = Math.min(1, Math.abs(y - x) / Math.max(x, y));
    return s === 'grown' ? 'hsl(0,' + (55 + 25 * r) + '%,' + (82 - 30 * r) + '%)'
      : 'hsl(214,' + (50 + 25 * r) + '%,' + (82 - 30 * r) + '%)';
  }
  function firstLine(k) { return k.split('\n')[0]; }
  function changeText(x, y) {
    return (y - x >= 0 ? '+' : '\u2212') + fmt(Math.abs(y - x)) + ' B ' + pctText(x, y);
  }

  const FH = 18;
  const flameBox = el('div', { class: 'flame', id: 'flame-graph' });
  const caption = el('p', { class: 'caption', id: 'flame-caption' });
  const found = el('span', { class: 'note', id: 'search-result' });

  function renderFlame() {
    const t = FL.tree;
    flameBox.replaceChildren();
    if (!t || t.w[0] <= 0) {
      flameBox.style.height = '40px';
      flameBox.append(el('p', { class: 'note', text: 'Nothing live at either peak.' }));
      markSearch();
      return;
    }
    const W = Math.max(200, flameBox.clientWidth || 1000), items = [], anc = [];
    for (let i = FL.zoom; ; i = t.par[i]) { anc.unshift(i); if (i === 0) break; }
    anc.forEach((i, d) => items.push({ i, x: 0, w: W, d, anc: i !== FL.zoom }));
    let maxd = anc.length - 1;
    (function lay(i, x, w, d) {
      if (t.w[i] <= 0) return;
      const ch = t.kids[i].filter(k => t.w[k] > 0)
        .sort((a, b) => t.w[b] - t.w[a] || (t.key[a] < t.key[b] ? -1 : t.key[a] > t.key[b] ? 1 : 0));
      let cx = x;
      for (const k of ch) {
        const cw = w * t.w[k] / t.w[i];
        if (cw >= 0.5) {
          items.push({ i: k, x: cx, w: cw, d: d + 1, anc: false });
          if (d + 1 > maxd) maxd = d + 1;
          lay(k, cx, cw, d + 1);
        }
        cx += cw;
      }
    })(FL.zoom, 0, W, anc.length - 1);
    flameBox.style.height = (maxd + 1) * FH + 2 + 'px';
    const frag = document.createDocumentFragment();
    for (const it of items) {
      const i = it.i, s = i ? state(t, i) : 'root';
      const text = i ? firstLine(t.key[i]) + (s === 'new' ? '  [new]' : s === 'gone' ? '  [gone]' : '') : t.key[0];
      const e = el('div', { class: 'fr ' + s + (it.anc ? ' anc' : ''), 'data-node': i, 'data-depth': it.d,
        'data-parent': i ? t.par[i] : -1, 'data-base': t.b[i], 'data-new': t.n[i], 'data-state': s,
        'data-label': t.key[i] }, text);
      e.style.left = it.x + 'px';
      e.style.width = Math.max(0.5, it.w - 1) + 'px';
      e.style.top = it.d * FH + 'px';
      e.style.background = i ? color(t, i) : '#d8dde3';
      frag.append(e);
    }
    flameBox.append(frag);
    markSearch();
  }

  /* Frames whose label holds the query: marked; their bytes in both runs
     summed (a match under a match counted once). */
  function markSearch() {
    const q = FL.query, t = FL.tree;
    let nf = 0;
    for (const e of flameBox.querySelectorAll('.fr')) {
      const i = +e.getAttribute('data-node');
      const hit = q !== '' && i !== 0 && t.key[i].toLowerCase().includes(q);
      e.classList.toggle('hit', hit);
      if (hit) nf++;
    }
    if (q === '' || !t) { found.textContent = ''; return; }
    let x = 0, y = 0;
    (function walk(i) {
      if (i !== 0 && t.key[i].toLowerCase().includes(q)) { x += t.b[i]; y += t.n[i]; return; }
      for (const k of t.kids[i]) walk(k);
    })(FL.zoom);
    found.textContent = nf + ' frame' + (nf === 1 ? '' : 's') + ' match: ' + fmt(x) + ' \u2192 ' + fmt(y) + ' B';
    found.setAttribute('data-frames', String(nf));
    found.setAttribute('data-base', String(x));
    found.setAttribute('data-new', String(y));
  }

  function flameSection() {
    const sec = el('section', { id: 'flame' }, el('h2', { text: 'Differential flame graph of the peak' }));
    const order = el('select', { id: 'flame-order', onchange: () => {
      FL.order = order.value; FL.zoom = 0; FL.tree = buildTree(); renderFlame();
    } }, el('option', { value: 'site', text: 'allocating line first (Massif\'s tree)' }),
      el('option', { value: 'callers', text: 'callers first (main at the root)' }));
    if (!anyStacks) order.disabled = true;
    const search = el('input', { type: 'search', id: 'flame-search', placeholder: 'search frames', oninput: () => {
      FL.query = search.value.toLowerCase(); markSearch();
    } });
    const reset = el('button', { id: 'zoom-reset', onclick: () => { FL.zoom = 0; renderFlame(); } }, 'reset zoom');
    const legend = el('div', { class: 'legend' });
    for (const [s, name] of [['grown', 'grown'], ['shrunk', 'shrunk'], ['new', 'new (only in NEW)'],
      ['gone', 'gone (only in BASE)'], ['same', 'unchanged']]) {
      const sw = el('span', { class: 'sw' });
      sw.style.background = s === 'grown' ? 'hsl(0,70%,62%)' : s === 'shrunk' ? 'hsl(214,65%,62%)'
        : color({ b: [s === 'new' ? 0 : 1], n: [s === 'gone' ? 0 : 1] }, 0);
      legend.append(el('span', null, sw, name));
    }
    const peaks = traces ? 'Live bytes at each run\'s peak (the first moment of its highest heap: record ' +
      fmt(R[0].series.peak.rec) + ' of BASE, ' + fmt(R[1].series.peak.rec) + ' of NEW).'
      : 'JSON reports have no moment of the peak: each site\'s own peak (peak_bytes), whose sum may exceed the run\'s peak.';
    caption.textContent = peaks;
    sec.append(el('div', { class: 'bar' }, order, reset, search, found), legend, caption, flameBox,
      el('p', { class: 'note', text: 'Width: the larger of the two runs\' bytes, summed up the tree, so that a ' +
        'frame that shrank or is gone still shows. Colour: red grew, blue shrank, the deeper the larger ' +
        'the change in proportion; the deepest are new or gone. Click a frame to zoom in, a greyed parent ' +
        'to zoom out; hover for both runs\' bytes and the change.' +
        (anyStacks ? '' : ' The inputs have no call stacks: one frame per allocating line.') }));
    flameBox.addEventListener('click', ev => {
      const e = ev.target.closest('.fr');
      if (!e) return;
      FL.zoom = +e.getAttribute('data-node');
      renderFlame();
    });
    flameBox.addEventListener('mousemove', ev => {
      const e = ev.target.closest('.fr');
      if (!e) { hideTip(); return; }
      const t = FL.tree, i = +e.getAttribute('data-node');
      showTip(ev, t.key[i].split('\n').join('\n  inlined in ') + '\nBASE: ' + bytes(t.b[i]) + '\nNEW:  ' +
        bytes(t.n[i]) + '\nchange: ' + changeText(t.b[i], t.n[i]) + (i ? '  [' + state(t, i) + ']' : ''));
    });
    flameBox.addEventListener('mouseleave', hideTip);
    return sec;
  }

  /* ---- the table ---------------------------------------------------------- */
  /* a row: [func, file, line, state, have, base's peak total calls leaked, new's] */
  const FIG = [['peak', 'peak bytes'], ['total', 'total bytes'], ['calls', 'calls'], ['leaked', 'leaked bytes']];
  const rows = D.rows.map((r, i) => {
    const o = { i, fn: r[0], file: r[1], line: r[2], st: r[3], site: r[0] + ' ' + r[1] + ':' + r[2] };
    FIG.forEach(([k], f) => {
      o['b_' + k] = r[5 + f]; o['n_' + k] = r[9 + f];
      o[k] = (r[4] >> f & 1) ? r[9 + f] - r[5 + f] : null;
    });
    return o;
  });
  const TB = { key: null, asc: false, filter: '' };
  const thead = el('thead'), tbody = el('tbody'), tnote = el('p', { class: 'note', id: 'sites-note' });

  function drawTable() {
    const q = TB.filter.toLowerCase();
    let list = rows.filter(r => !q || r.site.toLowerCase().includes(q));
    if (TB.key) {
      const k = TB.key, dir = TB.asc ? 1 : -1;
      list = list.slice().sort((a, b) => (k === 'site' ? a.site.localeCompare(b.site)
        : (a[k] === null ? -Infinity : a[k]) - (b[k] === null ? -Infinity : b[k])) * dir || a.i - b.i);
    }
    const tr = el('tr');
    for (const [k, name] of [...FIG, ['site', 'site (change from BASE to NEW)']]) {
      tr.append(el('th', { class: (k === 'site' ? 'txt' : '') + (k === TB.key ? ' sorted' + (TB.asc ? ' asc' : '') : ''),
        'data-key': k, onclick: () => {
          if (TB.key === k) TB.asc = !TB.asc; else { TB.key = k; TB.asc = k === 'site'; }
          drawTable();
        } }, name));
    }
    thead.replaceChildren(tr);
    const frag = document.createDocumentFragment();
    for (const r of list) {
      const row = el('tr', { 'data-row': r.i, 'data-state': r.st === 1 ? 'new' : r.st === 2 ? 'gone' : 'both' });
      for (const [k] of FIG) {
        const d = r[k];
        row.append(el('td', { class: d === null || d === 0 ? '' : d > 0 ? 'grown' : 'shrunk', 'data-fig': k,
          title: d === null ? 'one of the runs lacks this figure' : fmt(r['b_' + k]) + ' \u2192 ' + fmt(r['n_' + k]) },
          d === null ? '-' : signed(d)));
      }
      row.append(el('td', { class: 'txt', 'data-fig': 'site' }, r.site,
        r.st ? el('span', { class: 'tag', text: r.st === 1 ? '  (new)' : '  (gone)' }) : null));
      frag.append(row);
    }
    tbody.replaceChildren(frag);
    tnote.textContent = fmt(list.length) + ' site' + (list.length === 1 ? '' : 's') + ' changed' +
      (q ? ' (filtered)' : '') + (D.same ? '; ' + fmt(D.same) + ' site' + (D.same === 1 ? '' : 's') + ' unchanged' : '') +
      '. Click a column to sort by it (the change, signed); the table starts in the order of the text\'s.';
    tnote.setAttribute('data-same', String(D.same));
  }

  function tableSection() {
    const filter = el('input', { type: 'search', id: 'sites-filter', placeholder: 'file or function',
      oninput: () => { TB.filter = filter.value; drawTable(); } });
    drawTable();
    return el('section', { id: 'sites' }, el('h2', { text: 'Change per site' }),
      el('div', { class: 'bar' }, el('label', { text: 'filter: ' }, filter),
        el('span', { class: 'note', text: 'As mtrace-diff prints it: the change from BASE to NEW of each ' +
          'figure (hover a cell for both); - where one of the runs lacks the figure.' })),
      el('div', { class: 'tablebox' }, el('table', { id: 'sites-table' }, thead, tbody)), tnote);
  }

  /* ---- the page ------------------------------------------------------ */
  main.append(header(), timeSection(), flameSection(), tableSection(),
    el('footer', { text: 'Written by ' + D.tool + ' from the two inputs alone; nothing is loaded from elsewhere.' }));
  FL.tree = buildTree();
  renderFlame();
  let resizeTimer = 0;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(renderFlame, 150);
  });
  document.body.setAttribute('data-ready', String(Math.round(performance.now())));
})();
