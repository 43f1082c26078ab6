/* SPDX-License-Identifier: MIT */
// tests/html/shots.js - the screenshots of doc/ (`make screenshots`), run by
// tests/html/cdp.js: ARGS are the output directory and the file prefix.
// Each view of the page: the top of the page (README), memory over time,
// the flame graph at the peak, a moment picked on the time graph, the
// leaks, the sites table, the sizes of one site.
'use strict';
module.exports = async function (api, args) {
  const [dir, prefix] = args, out = [];
  const shot = async (sel, name) => { await api.shot(sel, dir + '/' + prefix + name + '.png'); out.push('wrote ' + dir + '/' + prefix + name + '.png'); };
  const ev = e => api.evaluate(e);
  await ev("window.scrollTo(0, 0)");
  await shot('header, #time', 'overview');
  await shot('#time', 'time');
  await shot('#flame', 'flame');
  // a moment after five of main's ten frees
  const gb = await ev("(() => { document.querySelector('#time').scrollIntoView({ block: 'start' }); const r = document.querySelector('#time svg').getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()");
  await api.click(gb[0] + gb[2] * 0.84, gb[1] + gb[3] / 2);
  await shot('#time, #flame', 'temporal');
  await ev("document.querySelector('#mode-leaks').click()");
  await shot('#flame', 'leaks');
  await ev("document.querySelector('#mode-peak').click()");
  await ev("document.querySelector('#sites-table tbody tr').click()");
  await shot('#sites', 'sites');
  await shot('#sizes', 'sizes');
  return out;
};
