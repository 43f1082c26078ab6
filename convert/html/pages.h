/* SPDX-License-Identifier: MIT */
/* pages.h - the HTML pages' style and script as C strings, made by
 * embed.awk (`make`) from this folder's hand-written files:
 * m2m_html_page.c from page.css, common.js, page.js (mtrace2massif's
 * page; mtrace-diff's uses its style and common script too) and run.js
 * (an MPI run's page: its ranks, each drawn by page.js),
 * diff_html_page.c from diff.css and diff.js (mtrace-diff's page).
 * Owns: the pages' text.  May use: nothing (README.md).
 * Used by: mtrace2massif/, mtrace-diff/. */
#ifndef PAGES_H
#define PAGES_H

extern const char m2m_page_css[], m2m_common_js[], m2m_page_js[], m2m_run_js[];
extern const char m2m_diff_css[], m2m_diff_js[];

#endif
