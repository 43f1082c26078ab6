/* SPDX-License-Identifier: MIT */
// tests/html/seconds.js - the page's seconds axis (the trace's #time), run
// by tests/html/cdp.js.  ARGS: the page's name in the lines, then "time"
// (the trace has #time: the axis offers seconds, and starts with them;
// the peak's time in LO..HI ms) or "none" (no seconds offered).
'use strict';
module.exports = async function (api, args) {
  const [name, kind, lo, hi] = args, out = [];
  const ok = (cond, what, why) => out.push((cond ? 'ok   ' : 'FAIL ') + name + ': ' + what + (cond ? '' : ': ' + why));
  const ev = e => api.evaluate(e);
  const opts = await ev("[...document.querySelectorAll('#time-unit option')].map(o => o.value).join(',')");
  const ticks = "[...document.querySelectorAll('#time svg text.tick')].map(e => e.textContent).join('|')";
  if (kind === 'none') {
    ok(opts === 'B,i', 'no #time: the time axis offers bytes and records only', opts);
    ok(await ev("document.querySelector('#fact-peak-time') === null"), 'no #time: no peak time', 'there is one');
    return out;
  }
  ok(opts === 'B,i,s', 'the time axis offers bytes, records and seconds', opts);
  ok(await ev("document.querySelector('#time-unit').value") === 's', 'seconds first (--time-unit=ms)', opts);
  const t = await ev(ticks);
  ok(/\|0\.2 s\|0\.4 s\|/.test(t) && t.includes('seconds since the tracer started'), 'the axis in seconds', t);
  const ns = +(await ev("document.querySelector('#fact-peak-time').getAttribute('data-value')"));
  ok(ns >= lo * 1e6 && ns <= hi * 1e6, 'the peak reached ' + lo + '-' + hi + ' ms after the start', ns);
  await ev("(() => { const s = document.querySelector('#time-unit'); s.value = 'i'; s.dispatchEvent(new Event('change')); })()");
  const r = await ev(ticks);
  ok(r.includes('time: records') && !/ s\|/.test(r), 'records again on demand', r);
  return out;
};
