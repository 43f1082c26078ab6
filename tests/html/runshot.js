/* SPDX-License-Identifier: MIT */
// tests/html/runshot.js - the screenshot of an MPI run's page for doc/
// (`make screenshot-mpi`), run by tests/html/cdp.js: ARGS are the output
// file.  The header, every rank on one axis, the ranks table, the small
// graphs.
'use strict';
module.exports = async function (api, args) {
  await api.evaluate("window.scrollTo(0, 0)");
  await api.shot('header, #run-time, #run-table, #run-ranks', args[0]);
  return ['wrote ' + args[0]];
};
