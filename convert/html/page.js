/* SPDX-License-Identifier: MIT */
/* page.js - the script of mtrace2massif's HTML page (--html).  Hand-written
   for mtrace, under the project's licence; embedded by convert/html/embed.awk.
   It reads the figures from the <script type="application/json"> element
   (written by convert/m2m_html.c: doc/mtrace2massif.md, "The HTML page")
   and draws: the header, memory over time, the flame graph (at the peak,
   at a moment picked on the time graph, or of what is live at exit), the
   sites table and the sizes histogram.  Text from the trace is only ever
   set with textContent or as a Text node: never parsed as HTML. */
'use strict';
/* One trace's views: the whole page ('whole'), or drawn into 'host', a
   rank's part of an MPI run's page (run.js). */
function mtracePage(D, host, whole) {

  /* ---- helpers -------------------------------------------------------- */
  function pct(a, b) { return b > 0 ? (100 * a / b).toFixed(2) + '%' : '-'; }
  function hue(s) {
    let h = 2166136261;
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
    return h >>> 0;
  }
  function warm(s) {
    const h = hue(s);
    return 'hsl(' + (10 + h % 45) + ',' + (65 + (h >> 8) % 25) + '%,' + (58 + (h >> 16) % 14) + '%)';
  }
  const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948',
                   '#b07aa1', '#ff9da7', '#9c755f', '#86bcb6'];

  /* ---- the allocation tree and the contexts ------------------------- */
  const NN = D.nodes.length / 3, NC = D.ctx.length / 9;
  const parent = new Int32Array(NN), nsite = new Int32Array(NN), nframe = new Int32Array(NN);
  const kids = [];
  for (let i = 0; i < NN; i++) {
    parent[i] = D.nodes[3 * i]; nsite[i] = D.nodes[3 * i + 1]; nframe[i] = D.nodes[3 * i + 2];
    kids.push([]);
  }
  for (let i = 1; i < NN; i++) kids[parent[i]].push(i);
  function C(i, f) { return D.ctx[9 * i + f]; }   /* node site calls blocks bytes temp peak live nlive */
  function siteName(s) { const x = D.sites[s - 1]; return x[0] + ' (' + x[1] + ':' + x[2] + ')'; }
  function frameLines(f) { return D.frames[f].split('\n').map(l => l.replace(/^0x[0-9A-Fa-f]+: /, '')); }
  const labels = [];
  for (let i = 0; i < NN; i++)
    labels.push(i === 0 ? 'all traced heap' : nsite[i] ? siteName(nsite[i]) : frameLines(nframe[i])[0]);
  function fullLabel(i) {
    if (i === 0 || nsite[i]) return labels[i];
    return frameLines(nframe[i]).join('\n  inlined in ');
  }
  function order(i) { return nsite[i] ? nsite[i] : 1e9 + nframe[i]; }

  /* The flame graph's tree: Massif's (the sites first, then their callers,
     as in the Massif file), or the same contexts callers first (the
     outermost caller at the root, the allocating line last).  par: parents;
     src: the node of Massif's tree each stands for; ctx: each context's. */
  function massifView() {
    const ctx = new Int32Array(NC), src = new Int32Array(NN);
    for (let i = 0; i < NC; i++) ctx[i] = C(i, 0);
    for (let i = 0; i < NN; i++) src[i] = i;
    return { n: NN, par: parent, kids, src, ctx };
  }
  function callersView() {
    const par = [0], src = [0], kd = [[]], ctx = new Int32Array(NC), made = new Map();
    for (let i = 0; i < NC; i++) {
      let at = 0;
      for (let n = C(i, 0); n !== 0; n = parent[n]) {   /* outermost caller first */
        const key = at + ':' + (nsite[n] ? 's' + nsite[n] : 'f' + nframe[n]);
        let v = made.get(key);
        if (v === undefined) {
          v = par.length;
          made.set(key, v); par.push(at); src.push(n); kd.push([]); kd[at].push(v);
        }
        at = v;
      }
      ctx[i] = at;
    }
    return { n: par.length, par: Int32Array.from(par), kids: kd, src: Int32Array.from(src), ctx };
  }
  const VIEWS = { massif: massifView(), callers: null };
  let TV = VIEWS.massif;

  /* A snapshot's live contexts summed up the tree. */
  function treeOf(si) {
    const s = D.snaps[si], e = s[1];
    const by = new Float64Array(TV.n), bl = new Float64Array(TV.n);
    for (let i = 0; i < e.length; i += 3) {
      let n = TV.ctx[e[i]];
      for (;;) { by[n] += e[i + 1]; bl[n] += e[i + 2]; if (n === 0) break; n = TV.par[n]; }
    }
    return { bytes: by, blocks: bl, bucket: s[0] };
  }

  /* ---- time ------------------------------------------------------------ */
  const B = D.b, NB = B.hi.length, NT = D.top.length;
  /* B: Massif's bytes, i: records, s: the trace's clock (#time) */
  let unit = D.time_unit === 'ms' && D.has_time ? 's' : D.time_unit === 'i' ? 'i' : 'B';
  function bx(k) { return unit === 's' ? B.hns[k] / 1e9 : unit === 'i' ? B.hrec[k] + 1 : B.htb[k]; }
  function endX() { return unit === 's' ? D.end.ns / 1e9 : unit === 'i' ? D.end.rec : D.end.tb; }
  function unitName() {
    return unit === 's' ? 'seconds since the tracer started' : unit === 'i' ? 'records' : 'bytes allocated + freed (Massif\'s B)';
  }
  function tickText(x) { return unit === 's' ? seconds(x) : unit === 'i' ? fmt(x) : human(x); }
  function momentText(k) {
    if (k >= NB) return 'at exit (record ' + fmt(Math.max(0, D.records - 1)) + ')';
    return 'at record ' + fmt(B.hrec[k]) + ' (time ' + fmt(B.htb[k]) + ' B' +
      (D.has_time ? ', ' + seconds(B.hns[k] / 1e9) : '') + ')';
  }

  /* ---- the page's frame -------------------------------------------- */
  const main = whole ? el('main') : host;
  const program = D.cmd ? D.cmd.split(' ')[0] : D.trace;
  if (whole) {
    document.body.append(main, tip);
    document.title = 'mtrace: ' + program;
  }

  function header() {
    const dl = el('dl', { class: 'facts' });
    function fact(id, name, text, value) {
      const dd = el('dd', { id: id }, text);
      if (value !== undefined) dd.setAttribute('data-value', String(value));
      dl.append(el('dt', { text: name }), dd);
      return dd;
    }
    fact('fact-cmd', 'command line', D.cmd === null ? '(not in the trace)' : D.cmd);
    fact('fact-trace', 'trace', D.trace);
    if (D.peak) {
      fact('fact-peak', 'peak', bytes(D.peak.bytes) + ' at record ' + fmt(D.peak.record), D.peak.bytes)
        .setAttribute('data-record', String(D.peak.record));
    } else {
      fact('fact-peak', 'peak', 'nothing allocated', 0);
    }
    if (D.peak && D.has_time)
      fact('fact-peak-time', 'peak when', seconds(D.peak.ns / 1e9) + ' after the tracer started', D.peak.ns);
    fact('fact-peak-total', 'peak with Massif\'s extra heap', bytes(D.peak_total), D.peak_total);
    if (D.rss) fact('fact-rss', 'max RSS (the trace\'s last sample)', bytes(D.rss.max), D.rss.max);
    fact('fact-records', 'records', fmt(D.records), D.records);
    const live = bytes(D.end.bytes) + ' in ' + fmt(D.end.blocks) + ' block' + (D.end.blocks === 1 ? '' : 's');
    fact('fact-leaks', D.truncated ? 'live when the trace stops' : 'live at exit (leaks)', live, D.end.bytes)
      .setAttribute('data-blocks', String(D.end.blocks));
    fact('fact-stacks', 'call stacks', D.depth ? 'up to ' + D.depth + ' frames (MTRACE_DEPTH)'
      : 'none in the trace: each allocating line (function \u2190 file:line) is a frame');
    const h = el('header', null, el('h1', { text: 'mtrace heap profile: ' + program }), dl);
    if (D.dropped)
      h.append(el('p', { class: 'warn', id: 'dropped', text: 'The oldest part of this trace is gone: ' + D.dropped + '.' }));
    if (D.truncated)
      h.append(el('p', { class: 'warn', id: 'truncated',
        text: 'This trace is truncated (the program did not end normally): what follows is its complete records.' }));
    return h;
  }

  /* ---- memory over time ------------------------------------------------ */
  const TG = { W: 1000, H: 330, L: 78, R: 12, T: 14, Bm: 34 };
  let sel = null;      /* [x0, x1] selected on the time graph, in time units */
  const timeSec = el('section', { id: 'time' });
  const timeBox = el('div', { class: 'graph' });
  const legend = el('div', { class: 'legend' });

  function topAt(k, j) { return D.topv[k * NT + j]; }

  function drawTime() {
    const { W, H, L, R, T, Bm } = TG;
    const xmax = Math.max(unit === 's' ? 1e-3 : 1, endX()), ymax = Math.max(1, D.peak ? D.peak.bytes : 0) * 1.08;
    const X = x => L + (W - L - R) * x / xmax, Y = y => H - Bm - (H - Bm - T) * y / ymax;
    const svg = sv('svg', { viewBox: '0 0 ' + W + ' ' + H, role: 'img', 'aria-label': 'memory over time' });
    const ystep = niceStepBytes(ymax, 5), xstep = niceStep(xmax, 6);
    for (let y = 0; y <= ymax; y += ystep) {
      svg.append(sv('line', { x1: L, x2: W - R, y1: Y(y), y2: Y(y), stroke: '#eef1f4' }));
      svg.append(sv('text', { x: L - 6, y: Y(y) + 4, 'text-anchor': 'end', class: 'tick' }, human(y)));
    }
    for (let x = 0; x <= xmax; x += xstep)
      svg.append(sv('text', { x: X(x), y: H - Bm + 15, 'text-anchor': 'middle', class: 'tick' }, tickText(x)));
    svg.append(sv('text', { x: (L + W - R) / 2, y: H - 4, 'text-anchor': 'middle', class: 'tick' },
      'time: ' + unitName()));
    /* the stacked sites, then the rest, as Massif's graph */
    const cum = new Float64Array(NB);
    for (let j = 0; j <= NT; j++) {
      let top = X(0) + ',' + Y(0), bot = ' ' + X(0) + ',' + Y(0);
      for (let k = 0; k < NB; k++) {
        const prev = cum[k];
        cum[k] = j < NT ? prev + topAt(k, j) : B.hi[k];
        top += ' ' + X(bx(k)).toFixed(1) + ',' + Y(cum[k]).toFixed(1);
        bot = ' ' + X(bx(k)).toFixed(1) + ',' + Y(prev).toFixed(1) + bot;
      }
      if (NB) svg.append(sv('polygon', { points: top + bot, fill: j < NT ? PALETTE[j] : '#c9ced4',
        'fill-opacity': 0.85, 'data-band': j < NT ? 'site' : 'other' }));
    }
    let line = X(0) + ',' + Y(0);
    for (let k = 0; k < NB; k++) line += ' ' + X(bx(k)).toFixed(1) + ',' + Y(B.hi[k]).toFixed(1);
    line += ' ' + X(endX()).toFixed(1) + ',' + Y(D.end.bytes).toFixed(1);
    svg.append(sv('polyline', { points: line, fill: 'none', stroke: '#222', 'stroke-width': 1.3 }));
    svg.append(sv('line', { x1: L, x2: L, y1: T, y2: H - Bm, class: 'axis' }),
               sv('line', { x1: L, x2: W - R, y1: H - Bm, y2: H - Bm, class: 'axis' }));
    if (sel) {
      const a = X(Math.min(sel[0], sel[1])), b = X(Math.max(sel[0], sel[1]));
      svg.append(sv('rect', { x: a, y: T, width: Math.max(1.5, b - a), height: H - Bm - T, class: 'sel', id: 'selection' }));
    }
    if (D.peak) {
      const px = X(bx(D.peak.bucket)), py = Y(D.peak.bytes);
      svg.append(sv('circle', { cx: px, cy: py, r: 4.5, fill: '#d62728', id: 'peak-marker' }));
      const right = px > W * 0.6;
      svg.append(sv('text', { x: right ? px - 8 : px + 8, y: Math.max(T + 10, py - 6), 'text-anchor': right ? 'end' : 'start',
        class: 'tick', id: 'peak-label', style: 'fill:#d62728;font-weight:600' },
        'peak ' + fmt(D.peak.bytes) + ' B at record ' + fmt(D.peak.record)));
    }
    const hover = sv('line', { x1: 0, x2: 0, y1: T, y2: H - Bm, class: 'hover', visibility: 'hidden' });
    svg.append(hover);
    timeBox.replaceChildren(svg);
    timeEvents(svg, hover, X, xmax);
  }

  /* The bucket whose moment is nearest to time x (only those with a
     snapshot if 'snapped'). */
  function nearest(x, snapped) {
    let best = -1, bd = Infinity;
    for (let k = 0; k < NB; k++) {
      if (snapped && !B.snap[k]) continue;
      const d = Math.abs(bx(k) - x);
      if (d < bd) { bd = d; best = k; }
    }
    return best;
  }

  function timeEvents(svg, hover, X, xmax) {
    function tx(ev) {
      const r = svg.getBoundingClientRect(), vx = (ev.clientX - r.left) * TG.W / r.width;
      return Math.min(xmax, Math.max(0, (vx - TG.L) * xmax / (TG.W - TG.L - TG.R)));
    }
    let down = null;
    svg.addEventListener('mousemove', ev => {
      if (!NB) return;
      const k = nearest(tx(ev), false);
      hover.setAttribute('x1', X(bx(k))); hover.setAttribute('x2', X(bx(k)));
      hover.setAttribute('visibility', 'visible');
      let t = momentText(k) + '\nheap: ' + bytes(B.hi[k]) + ' (the most in this stretch; least ' + fmt(B.lo[k]) + ' B)';
      for (let j = 0; j < NT; j++)
        if (topAt(k, j)) t += '\n  ' + fmt(topAt(k, j)) + ' B  ' + siteName(D.top[j]);
      showTip(ev, t);
    });
    svg.addEventListener('mouseleave', () => { hover.setAttribute('visibility', 'hidden'); hideTip(); });
    svg.addEventListener('mousedown', ev => { down = tx(ev); ev.preventDefault(); });
    svg.addEventListener('mouseup', ev => {
      if (down === null || !NB) return;
      const up = tx(ev), r = svg.getBoundingClientRect();
      const px = Math.abs(up - down) / xmax * (TG.W - TG.L - TG.R) * r.width / TG.W;
      if (px < 4) pickMoment(up); else pickRange(down, up);
      down = null;
    });
  }

  function pickMoment(x) {
    const k = nearest(x, true), any = nearest(x, false);
    if (k < 0) return;
    sel = [bx(k), bx(k)];
    showFlame('moment', B.snap[k] - 1, 'Live ' + momentText(k) + ', the moment picked on the time graph' +
      (k !== any ? ' (the nearest one sampled)' : ''));
    drawTime();
  }

  function pickRange(a, b) {
    const lo = Math.min(a, b), hi = Math.max(a, b);
    let best = -1, any = -1;
    for (let k = 0; k < NB; k++) {
      if (bx(k) < lo || bx(k) > hi) continue;
      if (any < 0 || B.hi[k] > B.hi[any]) any = k;
      if (B.snap[k] && (best < 0 || B.hi[k] > B.hi[best])) best = k;
    }
    if (best < 0) { pickMoment((lo + hi) / 2); return; }
    sel = [lo, hi];
    const exact = B.hi[best] === B.hi[any];
    showFlame('moment', B.snap[best] - 1, 'The largest live set ' + (exact ? '' : 'sampled ') +
      'in the range picked: ' + momentText(best));
    drawTime();
  }

  function timeSection() {
    const unitSel = el('select', { id: 'time-unit', onchange: () => { unit = unitSel.value; sel = null; drawTime(); } },
      el('option', { value: 'B', text: 'bytes allocated + freed (Massif\'s B)' }),
      el('option', { value: 'i', text: 'records' }));
    if (D.has_time) unitSel.append(el('option', { value: 's', text: 'seconds (the trace\'s clock)' }));
    unitSel.value = unit;
    timeSec.append(el('h2', { text: 'Memory over time' }),
      el('div', { class: 'bar' }, el('label', { text: 'time: ' }, unitSel),
        el('span', { class: 'note', text: 'Traced heap (requested bytes). Hover for values; click for the flame graph at that moment, drag for the largest moment in a range.' })),
      timeBox, legend);
    for (let j = 0; j < NT; j++)
      legend.append(el('span', null, el('span', { class: 'sw', style: 'background:' + PALETTE[j] }), siteName(D.top[j])));
    legend.append(el('span', null, el('span', { class: 'sw', style: 'background:#c9ced4' }), 'other sites'));
    return timeSec;
  }

  /* ---- flame graph -------------------------------------------------- */
  const FH = 18;
  const F = { mode: 'peak', snap: D.peak_snap, tree: null, zoom: 0, orient: 'icicle', query: '', caption: '' };
  const flameSec = el('section', { id: 'flame' });
  const flameBox = el('div', { class: 'flame', id: 'flame-graph' });
  const caption = el('p', { class: 'caption', id: 'flame-caption' });
  const found = el('span', { class: 'note', id: 'search-result' });
  const modeBtns = {}, orientBtns = {};

  function showFlame(mode, snap, text) {
    F.mode = mode; F.snap = snap; F.zoom = 0; F.caption = text;
    F.tree = snap >= 0 && snap < D.snaps.length ? treeOf(snap) : null;
    for (const m in modeBtns) modeBtns[m].classList.toggle('on', m === mode);
    renderFlame();
  }

  function flameModes() {
    const peakText = D.peak ? 'At the peak: record ' + fmt(D.peak.record) : 'Nothing was allocated';
    const leakText = (D.truncated ? 'Live when the trace stops' : 'Live at exit') +
      ': what was never freed. The trace does not say which blocks were suppressed or still reachable (the program\'s own report does).';
    modeBtns.peak = el('button', { id: 'mode-peak', onclick: () => showFlame('peak', D.peak ? D.peak_snap : -1, peakText) }, 'Peak');
    modeBtns.moment = el('button', { id: 'mode-moment', onclick: () => {
      if (sel) renderFlame(); else pickMoment(D.peak ? bx(D.peak.bucket) : 0);
    } }, 'Moment');
    modeBtns.leaks = el('button', { id: 'mode-leaks', onclick: () => showFlame('leaks', D.end_snap, leakText) }, 'Leaks (live at exit)');
    for (const o of ['icicle', 'flame'])
      orientBtns[o] = el('button', { id: 'orient-' + o, class: o === F.orient ? 'on' : '', onclick: () => {
        F.orient = o;
        for (const p in orientBtns) orientBtns[p].classList.toggle('on', p === o);
        renderFlame();
      } }, o === 'icicle' ? 'icicle (root on top)' : 'flame (root below)');
    const search = el('input', { type: 'search', id: 'flame-search', placeholder: 'search frames', oninput: () => {
      F.query = search.value.toLowerCase(); markSearch();
    } });
    const reset = el('button', { id: 'zoom-reset', onclick: () => { F.zoom = 0; renderFlame(); } }, 'reset zoom');
    const view = el('select', { id: 'flame-order', onchange: () => {
      if (view.value === 'callers' && !VIEWS.callers) VIEWS.callers = callersView();
      TV = VIEWS[view.value];
      showFlame(F.mode, F.snap, F.caption);
    } }, el('option', { value: 'massif', text: 'allocating line first (Massif\'s tree)' }),
      el('option', { value: 'callers', text: 'callers first (main at the root)' }));
    if (!D.depth) view.disabled = true;
    flameSec.append(el('h2', { text: 'Flame graph' }),
      el('div', { class: 'bar' }, modeBtns.peak, modeBtns.moment, modeBtns.leaks,
        el('span', { class: 'note', text: '|' }), orientBtns.icicle, orientBtns.flame, view, reset, search, found),
      caption, flameBox,
      el('p', { class: 'note', text: 'Width is bytes. Click a frame to zoom in, a greyed parent to zoom out; hover for bytes, blocks and percent. ' +
        (D.depth ? 'Frames are the call stacks, cut as Massif cuts them (--alloc-fn, below main, --depth).'
          : 'The trace has no call stacks (MTRACE_DEPTH): one frame per allocating line.') }));
    return { peakText, leakText };
  }

  function layoutFlame(t) {
    const items = [], W = Math.max(200, flameBox.clientWidth || 1000);
    const anc = [];
    for (let n = F.zoom; ; n = TV.par[n]) { anc.unshift(n); if (n === 0) break; }
    anc.forEach((n, d) => items.push({ n, x: 0, w: W, d, anc: n !== F.zoom }));
    let maxd = anc.length - 1;
    (function lay(n, x, w, d) {
      const total = t.bytes[n];
      if (total <= 0) return;
      const ch = TV.kids[n].filter(k => t.bytes[k] > 0 || t.blocks[k] > 0)
        .sort((a, b) => t.bytes[b] - t.bytes[a] || order(TV.src[a]) - order(TV.src[b]));
      let cx = x;
      for (const k of ch) {
        const cw = w * t.bytes[k] / total;
        if (cw >= 0.5) {
          items.push({ n: k, x: cx, w: cw, d: d + 1, anc: false });
          if (d + 1 > maxd) maxd = d + 1;
          lay(k, cx, cw, d + 1);
        }
        cx += cw;
      }
    })(F.zoom, 0, W, anc.length - 1);
    return { items, maxd };
  }

  function renderFlame() {
    const t = F.tree;
    caption.textContent = F.caption;
    flameBox.replaceChildren();
    if (!t || t.bytes[0] <= 0) {
      flameBox.style.height = '40px';
      flameBox.append(el('p', { class: 'note', text: 'Nothing live here.' }));
      caption.textContent = F.caption + (t ? ' \u2014 0 bytes.' : '');
      markSearch();
      return;
    }
    caption.textContent = F.caption + ' \u2014 ' + bytes(t.bytes[0]) + ' in ' + fmt(t.blocks[0]) + ' blocks.';
    const { items, maxd } = layoutFlame(t);
    flameBox.style.height = (maxd + 1) * FH + 2 + 'px';
    const frag = document.createDocumentFragment();
    for (const it of items) {
      const n = it.n;
      const e = el('div', { class: 'fr' + (it.anc ? ' anc' : ''), 'data-node': n, 'data-depth': it.d,
        'data-parent': n ? TV.par[n] : -1, 'data-bytes': t.bytes[n], 'data-blocks': t.blocks[n] }, labels[TV.src[n]]);
      e.style.left = it.x + 'px';
      e.style.width = Math.max(0.5, it.w - 1) + 'px';
      e.style.top = (F.orient === 'icicle' ? it.d : maxd - it.d) * FH + 'px';
      e.style.background = n === 0 ? '#d8dde3' : warm(labels[TV.src[n]].split(' (')[0]);
      frag.append(e);
    }
    flameBox.append(frag);
    markSearch();
  }

  /* Frames whose label holds the query: marked, and their bytes summed
     (a match under a match counted once). */
  function markSearch() {
    const q = F.query, t = F.tree;
    let nframes = 0;
    for (const e of flameBox.querySelectorAll('.fr')) {
      const hit = q !== '' && fullLabel(TV.src[+e.getAttribute('data-node')]).toLowerCase().includes(q);
      e.classList.toggle('hit', hit);
      if (hit) nframes++;
    }
    if (q === '' || !t) { found.textContent = ''; return; }
    let sum = 0;
    (function walk(n) {
      if (n !== 0 && fullLabel(TV.src[n]).toLowerCase().includes(q)) { sum += t.bytes[n]; return; }
      for (const k of TV.kids[n]) if (t.bytes[k] > 0) walk(k);
    })(F.zoom);
    found.textContent = nframes + ' frame' + (nframes === 1 ? '' : 's') + ' match: ' + fmt(sum) + ' B, ' +
      pct(sum, t.bytes[F.zoom]) + ' of this view';
    found.setAttribute('data-frames', String(nframes));
    found.setAttribute('data-bytes', String(sum));
  }

  function flameEvents() {
    flameBox.addEventListener('click', ev => {
      const e = ev.target.closest('.fr');
      if (!e) return;
      F.zoom = +e.getAttribute('data-node');
      renderFlame();
    });
    flameBox.addEventListener('mousemove', ev => {
      const e = ev.target.closest('.fr');
      if (!e) { hideTip(); return; }
      const n = +e.getAttribute('data-node'), t = F.tree;
      showTip(ev, fullLabel(TV.src[n]) + '\n' + bytes(t.bytes[n]) + ' in ' + fmt(t.blocks[n]) + ' block' +
        (t.blocks[n] === 1 ? '' : 's') + '\n' + pct(t.bytes[n], t.bytes[0]) + ' of all' +
        (F.zoom ? ', ' + pct(t.bytes[n], t.bytes[F.zoom]) + ' of the zoomed frame' : ''));
    });
    flameBox.addEventListener('mouseleave', hideTip);
  }

  /* ---- sites table ------------------------------------------------------- */
  const COLS = [
    ['fn', 'function', 1], ['where', 'file:line / call stack', 1], ['peak', 'peak bytes', 0],
    ['bytes', 'bytes allocated', 0], ['blocks', 'blocks', 0], ['calls', 'calls', 0],
    ['temp', 'temporary', 0], ['live', 'leaked bytes', 0], ['nlive', 'leaked blocks', 0]];
  const T = { perStack: false, key: 'peak', asc: false, filter: '', picked: 0 };
  const ROWS_MAX = 1000;
  const tbody = el('tbody'), thead = el('thead'), tableNote = el('p', { class: 'note' });

  function siteRows() {
    const rows = D.sites.map((s, i) => ({ site: i + 1, fn: s[0], where: s[1] + ':' + s[2], file: s[1],
      peak: s[3], bytes: 0, blocks: 0, calls: 0, temp: 0, live: 0, nlive: 0 }));
    for (let i = 0; i < NC; i++) {
      const r = rows[C(i, 1) - 1];
      r.calls += C(i, 2); r.blocks += C(i, 3); r.bytes += C(i, 4); r.temp += C(i, 5);
      r.live += C(i, 7); r.nlive += C(i, 8);
    }
    return rows.filter(r => r.calls > 0);
  }

  function stackRows() {
    const rows = [];
    for (let i = 0; i < NC; i++) {
      if (!C(i, 2)) continue;
      const chain = [];
      for (let n = C(i, 0); n !== 0; n = parent[n]) chain.unshift(labels[n]);
      const s = D.sites[C(i, 1) - 1];
      rows.push({ site: C(i, 1), fn: s[0], file: s[1], where: chain.join(' \u2190 '), peak: C(i, 6),
        bytes: C(i, 4), blocks: C(i, 3), calls: C(i, 2), temp: C(i, 5), live: C(i, 7), nlive: C(i, 8) });
    }
    return rows;
  }

  function drawTable() {
    let rows = T.perStack ? stackRows() : siteRows();
    const q = T.filter.toLowerCase();
    if (q) rows = rows.filter(r => r.fn.toLowerCase().includes(q) || r.file.toLowerCase().includes(q) ||
      (T.perStack && r.where.toLowerCase().includes(q)));
    const k = T.key, dir = T.asc ? 1 : -1;
    rows.sort((a, b) => (typeof a[k] === 'string' ? a[k].localeCompare(b[k]) : a[k] - b[k]) * dir || a.site - b.site);
    const tr = el('tr');
    for (const [key, name, txt] of COLS) {
      const th = el('th', { class: (txt ? 'txt' : '') + (key === T.key ? ' sorted' + (T.asc ? ' asc' : '') : ''),
        'data-key': key, onclick: () => {
          if (T.key === key) T.asc = !T.asc; else { T.key = key; T.asc = !!txt; }
          drawTable();
        } }, name);
      tr.append(th);
    }
    thead.replaceChildren(tr);
    const frag = document.createDocumentFragment();
    for (const r of rows.slice(0, ROWS_MAX)) {
      const row = el('tr', { 'data-site': r.site, class: r.site === T.picked ? 'picked' : '',
        onclick: () => { T.picked = T.picked === r.site ? 0 : r.site; drawTable(); drawHist(); } });
      for (const [key, , txt] of COLS)
        row.append(el('td', { class: txt ? 'txt' : '' }, txt ? r[key] : fmt(r[key])));
      frag.append(row);
    }
    tbody.replaceChildren(frag);
    tableNote.textContent = rows.length > ROWS_MAX ? 'The first ' + ROWS_MAX + ' of ' + fmt(rows.length) + ' rows.' :
      fmt(rows.length) + ' row' + (rows.length === 1 ? '' : 's') + '. Click a row for its sizes below.';
  }

  function tableSection() {
    const filter = el('input', { type: 'search', id: 'sites-filter', placeholder: 'file or function',
      oninput: () => { T.filter = filter.value; drawTable(); } });
    const per = el('select', { id: 'sites-per', onchange: () => { T.perStack = per.value === 'stack'; drawTable(); } },
      el('option', { value: 'site', text: 'per site' }), el('option', { value: 'stack', text: 'per call stack' }));
    return el('section', { id: 'sites' }, el('h2', { text: 'Sites' }),
      el('div', { class: 'bar' }, el('label', { text: 'filter: ' }, filter), per,
        el('span', { class: 'note', text: 'Temporary: freed before any other allocation (heaptrack\'s definition, ' +
          'matched by site and size). Leaked: live at exit.' })),
      el('div', { class: 'tablebox' }, el('table', { id: 'sites-table' }, thead, tbody)), tableNote);
  }

  /* ---- sizes histogram ---------------------------------------------- */
  const histBox = el('div', { class: 'hist', id: 'hist' }), histCap = el('p', { class: 'caption' });
  function classText(c) {
    if (c === 0) return '0';
    const lo = Math.pow(2, c - 1), hi = Math.pow(2, c) - 1;
    const h = v => v >= 1024 ? human(v).replace(/\.0+ /, ' ') : String(v);
    return lo === hi ? h(lo) : h(lo) + ' \u2013 ' + (hi >= 1024 ? '< ' + h(hi + 1) : h(hi));
  }
  function drawHist() {
    const n = new Float64Array(64);
    for (let i = 0; i < D.hist.length; i += 3)
      if (!T.picked || D.hist[i] === T.picked) n[D.hist[i + 1]] += D.hist[i + 2];
    histCap.textContent = 'Sizes asked for (allocations and reallocs, power-of-two classes, bytes): ' +
      (T.picked ? siteName(T.picked) : 'all sites; pick a row of the table for one site');
    let lo = 64, hi = -1, max = 0;
    for (let c = 0; c < 64; c++) if (n[c]) { lo = Math.min(lo, c); hi = c; max = Math.max(max, n[c]); }
    const frag = document.createDocumentFragment();
    for (let c = lo; c <= hi; c++) {
      const bar = el('div', { class: 'hb' });
      bar.style.width = (100 * n[c] / max) + '%';
      frag.append(el('div', { class: 'hl', text: classText(c) }), el('div', null, bar),
        el('div', { class: 'hl', 'data-class': c, text: fmt(n[c]) }));
    }
    histBox.replaceChildren(frag);
  }

  /* ---- the page ------------------------------------------------------ */
  main.append(header(), timeSection());
  const texts = flameModes();
  main.append(flameSec, tableSection(),
    el('section', { id: 'sizes' }, el('h2', { text: 'Allocation sizes' }), histCap, histBox),
    whole ? el('footer', { text: 'Written by ' + D.tool + ' from the trace alone; nothing is loaded from elsewhere.' }) : null);
  drawTime();
  flameEvents();
  showFlame('peak', D.peak ? D.peak_snap : -1, texts.peakText);
  drawTable();
  drawHist();
  let resizeTimer = 0;
  window.addEventListener('resize', () => { clearTimeout(resizeTimer); resizeTimer = setTimeout(renderFlame, 150); });
  if (whole) document.body.setAttribute('data-ready', String(Math.round(performance.now())));
}
{
  const data = document.getElementById('mtrace-data');   /* one trace's page */
  if (data) mtracePage(JSON.parse(data.textContent), null, true);
}
