/* SPDX-License-Identifier: MIT */
/* common.js - what the two pages' scripts share (page.js, mtrace2massif's
   page; diff.js, mtrace-diff's): making elements with their text set as
   text, numbers as people read them, the tooltip, the axes' steps.
   Hand-written for mtrace, under the project's licence; embedded by
   convert/html/embed.awk and written in the same <script> element just
   before each page's own script, whose names it declares.  It calls
   nothing but the DOM, and never parses text as HTML. */
'use strict';
function el(tag, props, ...kids) {
  const e = document.createElement(tag);
  for (const k in props || {}) {
    if (k === 'class') e.className = props[k];
    else if (k === 'text') e.textContent = props[k];
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), props[k]);
    else e.setAttribute(k, props[k]);
  }
  for (const k of kids) if (k !== null && k !== undefined) e.append(k);
  return e;
}
const SVGNS = 'http://www.w3.org/2000/svg';
function sv(tag, attrs, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
}
function fmt(n) { return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ','); }
function human(n) {
  const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let k = 0;
  while (k < 5 && Math.abs(n) >= 1024) { n /= 1024; k++; }
  return (k ? n.toFixed(Math.abs(n) < 10 ? 2 : 1) : String(Math.round(n))) + ' ' + u[k];
}
function bytes(n) { return fmt(n) + ' B' + (Math.abs(n) >= 1024 ? ' (' + human(n) + ')' : ''); }
/* seconds as people read them: 0.25 s, 1.5 s, 12 s, 2 min 5 s */
function seconds(x) {
  if (x >= 120) return Math.floor(x / 60) + ' min ' + Math.round(x % 60) + ' s';
  return Number(x.toPrecision(x >= 10 ? 3 : 2)) + ' s';
}
/* a change as the text table writes it: +N, -N, 0 */
function signed(d) { return d > 0 ? '+' + d : d < 0 ? '-' + (-d) : '0'; }
const tip = el('div', { class: 'tip' });
function showTip(ev, text) {
  tip.textContent = text;
  tip.style.display = 'block';
  const x = Math.min(ev.clientX + 14, window.innerWidth - tip.offsetWidth - 6);
  const y = ev.clientY + 16 + tip.offsetHeight > window.innerHeight
    ? ev.clientY - tip.offsetHeight - 8 : ev.clientY + 16;
  tip.style.left = Math.max(0, x) + 'px';
  tip.style.top = Math.max(0, y) + 'px';
}
function hideTip() { tip.style.display = 'none'; }
function niceStep(max, n) {
  const raw = max / n, p = Math.pow(10, Math.floor(Math.log10(raw || 1)));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}
function niceStepBytes(max, n) {
  let u = 1;
  while (max / u >= 1024 * n) u *= 1024;
  return niceStep(max / u, n) * u;
}
