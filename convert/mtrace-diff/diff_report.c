/* SPDX-License-Identifier: MIT */
/* diff_report.c - an MTRACE_REPORT file (doc/report-json.md) into a run:
 * the global peak_bytes and leaked_bytes, and per site its name, peak,
 * calls (version 2's "calls", else "allocations": the same count), total
 * bytes (version 2's "total_bytes", else absent) and leaked bytes (its
 * live bytes unless suppressed, less those still reachable: what the leak
 * report calls leaked).  Members it does not know are skipped, so later
 * versions read as far as they agree.
 * Calls: diff_json.c, diff_run.c (run_add), tool.c. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

/* What a site's object gave, before it becomes a struct dsite. */
struct jsite {
    char *func, *file;
    uint64_t line, allocations, calls, total, peak, live, reachable;
    int suppressed;
    unsigned seen;              /* bit per member below */
};

enum { S_FUNC = 1, S_FILE = 2, S_LINE = 4, S_ALLOCS = 8, S_CALLS = 16, S_TOTAL = 32,
       S_PEAK = 64, S_LIVE = 128, S_REACH = 256, S_SUPP = 512 };

/* One member of a site's object, its name already read. */
static void site_member(struct jr *j, struct jsite *s, const char *key)
{
    static const struct { const char *key; unsigned bit; size_t off; } nums[] = {
        { "line", S_LINE, offsetof(struct jsite, line) },
        { "allocations", S_ALLOCS, offsetof(struct jsite, allocations) },
        { "calls", S_CALLS, offsetof(struct jsite, calls) },
        { "total_bytes", S_TOTAL, offsetof(struct jsite, total) },
        { "peak_bytes", S_PEAK, offsetof(struct jsite, peak) },
        { "live_bytes", S_LIVE, offsetof(struct jsite, live) },
        { "reachable_bytes", S_REACH, offsetof(struct jsite, reachable) },
    };
    for (size_t i = 0; i < sizeof nums / sizeof *nums; i++)
        if (!strcmp(key, nums[i].key)) {
            *(uint64_t *)((char *)s + nums[i].off) = jr_uint(j, key);
            s->seen |= nums[i].bit;
            return;
        }
    if (!strcmp(key, "function") || !strcmp(key, "file")) {
        char **p = key[1] == 'u' ? &s->func : &s->file;
        free(*p);
        *p = jr_string(j, "a string");
        s->seen |= key[1] == 'u' ? S_FUNC : S_FILE;
    } else if (!strcmp(key, "suppressed")) {
        s->suppressed = jr_bool(j, key);
        s->seen |= S_SUPP;
    } else {
        jr_skip(j);
    }
}

/* The members of an object, each given to 'member' (its name read); the
 * object's opening line is returned. */
static uint64_t members(struct jr *j, void (*member)(struct jr *, void *, const char *),
                        void *arg)
{
    jr_expect(j, '{', "'{'");
    uint64_t first = j->e->line;
    if (jr_peek(j) == '}') {
        jr_expect(j, '}', "'}'");
        return first;
    }
    for (;;) {
        char *key = jr_string(j, "a member's name in quotes");
        jr_expect(j, ':', "':'");
        member(j, arg, key);
        free(key);
        if (jr_peek(j) == '}')
            break;
        jr_expect(j, ',', "',' or '}'");
    }
    jr_expect(j, '}', "'}'");
    return first;
}

static void site_cb(struct jr *j, void *arg, const char *key)
{
    site_member(j, arg, key);
}

/* A site's object, checked, into a new site of r. */
static void one_site(struct jr *j, struct run *r)
{
    struct jsite s = { 0 };
    uint64_t line = members(j, site_cb, &s);
    static const struct { unsigned bit; const char *name; } need[] = {
        { S_FUNC, "function" }, { S_FILE, "file" }, { S_LINE, "line" },
        { S_PEAK, "peak_bytes" }, { S_LIVE, "live_bytes" } };
    for (size_t i = 0; i < sizeof need / sizeof *need; i++)
        if (!(s.seen & need[i].bit)) {
            j->e->line = line;
            tool_fail(j->e, "a site without \"%s\"", need[i].name);
        }
    if (!(s.seen & (S_CALLS | S_ALLOCS))) {
        j->e->line = line;
        tool_fail(j->e, "a site without \"calls\" or \"allocations\"");
    }
    if (s.reachable > s.live) {
        j->e->line = line;
        tool_fail(j->e, "a site whose reachable_bytes exceed its live_bytes");
    }
    struct dsite *d = run_add(j->e, r);
    d->func = s.func;
    d->file = s.file;
    d->line = s.line;
    d->v[F_PEAK] = s.peak;
    d->v[F_CALLS] = s.seen & S_CALLS ? s.calls : s.allocations;
    d->v[F_TOTAL] = s.total;
    d->v[F_LEAKED] = s.suppressed ? 0 : s.live - s.reachable;
    d->have = 1u << F_PEAK | 1u << F_CALLS | 1u << F_LEAKED
            | (s.seen & S_TOTAL ? 1u << F_TOTAL : 0);
}

static void sites(struct jr *j, struct run *r)
{
    jr_expect(j, '[', "'[' (the sites)");
    if (jr_peek(j) == ']') {
        jr_expect(j, ']', "']'");
        return;
    }
    for (;;) {
        one_site(j, r);
        if (jr_peek(j) == ']')
            break;
        jr_expect(j, ',', "',' or ']'");
    }
    jr_expect(j, ']', "']'");
}

/* The report's top-level members that mtrace-diff reads. */
struct top { struct run *r; unsigned seen; };
enum { T_VERSION = 1, T_PEAK = 2, T_LEAKED = 4, T_SITES = 8 };

static void top_cb(struct jr *j, void *arg, const char *key)
{
    struct top *t = arg;
    if (!strcmp(key, "mtrace_report")) {
        t->r->version = jr_uint(j, "mtrace_report (the version)");
        if (t->r->version == 0)
            tool_fail(j->e, "mtrace_report: version 0 does not exist");
        t->seen |= T_VERSION;
    } else if (!strcmp(key, "peak_bytes")) {
        t->r->peak = jr_uint(j, key);
        t->seen |= T_PEAK;
    } else if (!strcmp(key, "leaked_bytes")) {
        t->r->leaked = jr_uint(j, key);
        t->seen |= T_LEAKED;
    } else if (!strcmp(key, "sites")) {
        if (t->seen & T_SITES)
            tool_fail(j->e, "\"sites\" a second time");
        sites(j, t->r);
        t->seen |= T_SITES;
    } else {
        jr_skip(j);
    }
}

void read_report(struct tool_err *e, int fd, struct run *r)
{
    static struct jr j;         /* 64 KiB: not on the stack */
    struct top t = { r, 0 };
    jr_init(&j, e, fd);
    if (jr_peek(&j) != '{')
        tool_fail(e, "not an mtrace report (not a JSON object)");
    uint64_t line = members(&j, top_cb, &t);
    jr_end(&j);
    e->line = line;
    if (!(t.seen & T_VERSION))
        tool_fail(e, "not an mtrace report (no \"mtrace_report\" member)");
    if (!(t.seen & T_PEAK))
        tool_fail(e, "the report has no \"peak_bytes\"");
    if (!(t.seen & T_LEAKED))
        tool_fail(e, "the report has no \"leaked_bytes\"");
    if (!(t.seen & T_SITES))
        tool_fail(e, "the report has no \"sites\"");
    r->kind = RUN_JSON;
}
