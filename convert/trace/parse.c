/* SPDX-License-Identifier: MIT */
/* parse.c - the parser: each record of the trace checked (grammar:
 * doc/trace-format.md) and turned into heap model events; the input read
 * twice (a file: tool_input copied a pipe or a compressed trace to one).
 * Pass 1 checks everything and keeps the sites' labels and the call
 * stacks; pass 2 skips what pass 1 has checked.  This is the hot loop.
 * Owns the parser's fields of struct pass and the sites' definitions.
 * Calls: the tool's heap model (events, through c->model: trace.h),
 * stack.c (stack records), tool.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace.h"

/* Up to 8 decimal digits at p, eight bytes at a time ("SWAR"): returns the
 * number of leading digits (0..8) and their value.  Needs 8 readable bytes
 * at p: every buffer the parser reads has PAD spare bytes after its end. */
static inline __attribute__((always_inline)) unsigned digits8(const char *p, uint64_t *v)
{
    uint64_t w;
    memcpy(&w, p, 8);
    uint64_t t = w - UINT64_C(0x3030303030303030);
    /* high bit of each byte that is not a digit (the first one is exact;
     * borrows and carries only disturb the bytes after it) */
    uint64_t nd = (t | (t + UINT64_C(0x7676767676767676))) & UINT64_C(0x8080808080808080);
    unsigned n = nd ? (unsigned)__builtin_ctzll(nd) / 8 : 8;
    if (n == 0)
        return 0;
    t <<= 8 * (8 - n);          /* keep the n digits, as leading zeros */
    t = (t * 10 + (t >> 8)) & UINT64_C(0x00FF00FF00FF00FF);
    t = (t * 100 + (t >> 16)) & UINT64_C(0x0000FFFF0000FFFF);
    t = (t * 10000 + (t >> 32)) & UINT64_C(0xFFFFFFFF);
    *v = t;
    return n;
}

/* The first byte after the digits at p (pass 2 skips the fields it does
 * not need; pass 1 has checked them). */
static inline __attribute__((always_inline)) const char *skip_digits(const char *p)
{
    for (;;) {
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t t = w - UINT64_C(0x3030303030303030);
        uint64_t nd = (t | (t + UINT64_C(0x7676767676767676))) & UINT64_C(0x8080808080808080);
        if (nd)
            return p + __builtin_ctzll(nd) / 8;
        p += 8;
    }
}

/* Decimal number at *pp, at most 19 digits (so no overflow is possible;
 * no real count of bytes or records needs more).  The line ends with '\n',
 * so the scan stops inside the buffer.  This is the converter's hot loop. */
static inline __attribute__((always_inline)) int parse_u64(const char **pp, uint64_t *v)
{
    static const uint64_t pow10[9] = { 1, 10, 100, 1000, 10000, 100000,
                                       1000000, 10000000, 100000000 };
    const char *p = *pp;
    uint64_t x, y;
    unsigned n = digits8(p, &x), m;
    if (n == 0)
        return 0;
    p += n;
    if (n == 8) {
        while ((m = digits8(p, &y)) > 0) {
            if (p + m - *pp > 19)
                return 0;
            x = x * pow10[m] + y;
            p += m;
            if (m < 8)
                break;
        }
    }
    *pp = p;
    *v = x;
    return 1;
}

/* A field followed by one space (or, if 'last', by the end of the line or
 * the space before the optional MAXRSS). */
static inline __attribute__((always_inline)) void need_field(struct conv *c, const char **pp, uint64_t *v, const char *what, int last)
{
    if (!parse_u64(pp, v))
        tool_fail(&c->e, "%s: expected a decimal number of at most 19 digits", what);
    if (**pp != ' ' && !(last && **pp == '\n'))
        tool_fail(&c->e, "%s: expected %s after the number", what, last ? "end of line" : "one space");
}

/* Append a trace token to 'out', decoding %XX, then re-escaping as %XX what
 * must not appear in a Massif label: control characters (a line break would
 * break the file), '#' (ms_print cuts lines at '#') and '%' itself.  'out'
 * needs 3 * (end - p) + 1 bytes; the decoded text is made in place there. */
static size_t put_token(char *out, const char *p, const char *end)
{
    size_t n = tool_decode(out + 2 * (size_t)(end - p), p, end);
    return tool_escape(out, out + 2 * (size_t)(end - p), n, "#%");
}

/* FUNC FILE LINE of a site record, at p (after "ID "): the three tokens,
 * checked; `what` names the record in errors, `form` is its form. */
static void site_tokens(struct conv *c, const char *p, const char *tok[3], const char *tend[3],
                        const char *what, const char *form)
{
    for (int k = 0; k < 3; k++) {
        tok[k] = p;
        while (*p != ' ' && *p != '\n')
            p++;
        tend[k] = p;
        if (tend[k] == tok[k] || (k < 2 && *p != ' '))
            tool_fail(&c->e, "%s: expected '%s'", what, form);
        if (k < 2)
            p++;
    }
    if (*p != '\n')
        tool_fail(&c->e, "%s: expected end of line after LINE", what);
    for (const char *q = tok[2]; q < tend[2]; q++)
        if (*q < '0' || *q > '9')
            tool_fail(&c->e, "%s: LINE is not a decimal number", what);
}

/* Site s's label, "FUNC (FILE:LINE)" as Massif prints a place (the file
 * without its directory), and its function's own name (for --alloc-fn and
 * for main), from the record's tokens; the old ones are freed. */
static void site_name(struct conv *c, struct site *s, const char *tok[3], const char *tend[3])
{
    const char *base = tend[1];
    while (base > tok[1] && base[-1] != '/')
        base--;
    if (base == tend[1])
        base = tok[1];
    size_t len = (size_t)(tend[0] - tok[0]) * 3 + (size_t)(tend[1] - base) * 3
               + (size_t)(tend[2] - tok[2]) + 8;
    char *lab = malloc(len), *func = malloc((size_t)(tend[0] - tok[0]) + 1);
    if (!lab || !func)
        tool_fail(&c->e, "out of memory");
    size_t n = put_token(lab, tok[0], tend[0]), flen = n;
    lab[n++] = ' ';
    lab[n++] = '(';
    n += put_token(lab + n, base, tend[1]);
    lab[n++] = ':';
    memcpy(lab + n, tok[2], (size_t)(tend[2] - tok[2]));
    n += (size_t)(tend[2] - tok[2]);
    lab[n++] = ')';
    lab[n] = 0;
    tool_decode(func, tok[0], tend[0]);
    free(s->label);
    free(s->func);
    s->label = lab;
    s->flen = flen;
    s->func = func;
}

/* "@ ID FUNC FILE LINE" */
static void site_record(struct conv *c, const char *p)
{
    uint64_t id;
    const char *tok[3], *tend[3];
    p += 2;
    if (!parse_u64(&p, &id) || *p != ' ')
        tool_fail(&c->e, "site record: expected '@ ID FUNC FILE LINE'");
    if (id != c->p.ndef + 1)
        tool_fail(&c->e, "site %" PRIu64 " defined out of order (expected %zu)", id, c->p.ndef + 1);
    site_tokens(c, p + 1, tok, tend, "site record", "@ ID FUNC FILE LINE");
    if (c->p.n == 2) {
        /* the labels were made in pass 1 */
        if (id > c->nsites)
            tool_fail(&c->e, "trace changed while being read");
        c->p.ndef++;
        return;
    }
    if (c->nsites == c->cap_sites) {
        size_t ncap = c->cap_sites ? c->cap_sites * 2 : 64;
        c->sites = tool_realloc(&c->e, c->sites, ncap * sizeof *c->sites);
        c->cap_sites = ncap;
    }
    memset(&c->sites[c->nsites], 0, sizeof c->sites[0]);
    site_name(c, &c->sites[c->nsites], tok, tend);
    c->nsites++;
    c->p.ndef++;
}

/* "#site ID FUNC FILE LINE": the tracer named site ID at exit (a call that
 * no macro announced, first written "? 0xADDR 0"); the name holds for the
 * whole output, which pass 1 made before pass 2 uses a label. */
static void rename_record(struct conv *c, const char *p)
{
    uint64_t id;
    const char *tok[3], *tend[3];
    if (!parse_u64(&p, &id) || *p != ' ')
        tool_fail(&c->e, "#site record: expected '#site ID FUNC FILE LINE'");
    if (id == 0 || id > c->p.ndef)
        tool_fail(&c->e, "#site record: site %" PRIu64 " is not defined", id);
    site_tokens(c, p + 1, tok, tend, "#site record", "#site ID FUNC FILE LINE");
    if (c->p.n == 1)
        site_name(c, &c->sites[id - 1], tok, tend);
}

/* The fields after SITE: "[MAXRSS [SID]]" then the end of the line.  Only
 * the gnuplot script uses MAXRSS; pass 2 skips what it need not read. */
static const char *op_tail(struct conv *c, const char *p, uint64_t *sid)
{
    uint64_t rss;
    *sid = 0;
    if (*p == '\n')             /* Basilisk without getrusage: no MAXRSS */
        return p;
    if (*p != ' ')
        tool_fail(&c->e, "trace changed while being read");
    p++;
    if (c->gp.pt || c->p.n == 1) {
        need_field(c, &p, &rss, "MAXRSS", 1);
        if (!c->p.have_rss)
            c->p.rss0 = rss;
        c->p.have_rss = 1;
        if (rss > c->p.rss)
            c->p.rss = rss;
    } else {
        p = skip_digits(p);
    }
    const char *what = "MAXRSS";
    if (*p == ' ') {
        p++;
        what = "SID";
        need_field(c, &p, sid, what, 1);
    }
    if (*p != '\n')
        tool_fail(&c->e, "%s: expected end of line after the number", what);
    return p;
}

/* The block's stack must be one of its site's, already defined. */
static void check_sid(struct conv *c, uint64_t id, uint64_t sid)
{
    if (sid > c->p.nstacks)
        tool_fail(&c->e, "stack %" PRIu64 " used before its #stack record", sid);
    if (c->p.n == 1 && sid && c->s.st[sid - 1].site != id)
        tool_fail(&c->e, "stack %" PRIu64 " is a stack of site %" PRIu64 ", not of site %" PRIu64,
                  sid, c->s.st[sid - 1].site, id);
}

/* What (id, sid) holds before this record: a pending '<' of the same
 * block's context has not been applied yet. */
static void held(struct conv *c, uint64_t id, uint64_t sid, uint64_t *live, uint64_t *blocks,
                 uint64_t *slive)
{
    int pend = c->p.pend && c->p.pend_site == id;
    c->model->live(c, id, sid, live, blocks);
    *slive = c->sites[id - 1].live - (pend ? c->p.pend_size : 0);
    if (pend && c->p.pend_sid == sid) {
        *live -= c->p.pend_size;
        *blocks -= 1;
    }
}

/* The size of the operation from TOTAL, checked against the replay:
 * TOTAL's direction, the context's live blocks and bytes, SITE. */
static uint64_t op_size(struct conv *c, int op, uint64_t id, uint64_t sid, uint64_t total,
                        uint64_t site)
{
    uint64_t size, live, blocks, slive, expect;
    held(c, id, sid, &live, &blocks, &slive);
    if (op == '+' || op == '>') {
        if (total < c->p.prev_total)
            tool_fail(&c->e, "'%c' record: TOTAL went down (%" PRIu64 " -> %" PRIu64 ")",
                 op, c->p.prev_total, total);
        size = total - c->p.prev_total;
        expect = slive + size;
    } else {
        if (total > c->p.prev_total)
            tool_fail(&c->e, "'%c' record: TOTAL went up (%" PRIu64 " -> %" PRIu64 ")",
                 op, c->p.prev_total, total);
        size = c->p.prev_total - total;
        if (blocks == 0)
            tool_fail(&c->e, "'%c' record: site %" PRIu64 "%s has no live block", op, id,
                      sid ? " with this stack" : "");
        if (live < size)
            tool_fail(&c->e, "'%c' record: frees %" PRIu64 " bytes but site %" PRIu64
                 "%s holds only %" PRIu64, op, size, id, sid ? " with this stack" : "", live);
        expect = slive - size;
    }
    if (c->p.n == 1 && site != expect)
        tool_fail(&c->e, "SITE is %" PRIu64 " but the replay gives %" PRIu64 " for site %" PRIu64,
             site, expect, id);
    return size;
}

/* The record's event: a '<' waits for its '>' (a realloc), or is a free. */
static void op_apply(struct conv *c, int op, uint64_t id, uint64_t sid, uint64_t size, uint64_t rec)
{
    switch (op) {
    case '+':
        c->model->flush(c);
        c->model->alloc(c, id, sid, size, rec);
        break;
    case '-':
        c->model->flush(c);
        c->model->free(c, id, sid, size, rec);
        break;
    case '<':
        c->model->flush(c);
        c->p.pend = 1;
        c->p.pend_site = id;
        c->p.pend_sid = sid;
        c->p.pend_size = size;
        c->p.pend_rec = rec;
        break;
    case '>':
        if (c->p.pend) {
            c->p.pend = 0;
            c->model->realloc(c, c->p.pend_site, c->p.pend_sid, c->p.pend_size, id, sid, size,
                       c->p.pend_rec);
        } else {
            c->model->alloc(c, id, sid, size, rec);     /* realloc(NULL, n) */
        }
        break;
    }
}

/* "#checkpoint SEG RECNO TOTAL BLOCKS PEAK PEAK_RECNO PEAK_NS NS": a
 * segment's opening (MTRACE_TRACE_MAX): the trace goes on from these
 * figures, given by the #live records after it, before any operation. */
static void checkpoint_record(struct conv *c, const char *p)
{
    struct trace_checkpoint cp;
    if (!trace_checkpoint_parse(p, &cp))
        tool_fail(&c->e, "#checkpoint record: expected '#checkpoint SEG RECNO TOTAL BLOCKS PEAK "
                  "PEAK_RECNO PEAK_NS NS'");
    if (c->p.cp || c->p.nrec || c->p.ev)
        tool_fail(&c->e, "#checkpoint record after the trace's first operation or checkpoint");
    if (cp.blocks > CHECKPOINT_BLOCKS_MAX || cp.total > MAX_BYTES)
        tool_fail(&c->e, "#checkpoint record: more than %d live blocks or %" PRIu64 " bytes",
                  CHECKPOINT_BLOCKS_MAX, MAX_BYTES);
    c->p.cp = 1;
    c->p.nrec = cp.recno;
    c->p.prev_total = cp.total;
    if (!c->p.have_time || cp.ns >= c->p.time_ns)      /* its blocks come at its #time */
        c->p.time_ns = cp.ns, c->p.have_time = 1;
    c->cp = cp;
}

/* `blocks` live blocks of `bytes` in all, of context (id, sid), given to
 * the model as allocations at the checkpoint (their sizes unknown: as
 * even as the bytes allow). */
static void checkpoint_blocks(struct conv *c, uint64_t id, uint64_t sid, uint64_t bytes, uint64_t blocks)
{
    if (!blocks && bytes)
        tool_fail(&c->e, "#live record: %" PRIu64 " bytes in no block", bytes);
    if (bytes > c->cp.total - c->p.cp_bytes || blocks > c->cp.blocks - c->p.cp_blocks)
        tool_fail(&c->e, "#live record: more than the checkpoint's TOTAL or BLOCKS");
    for (uint64_t b = 0; b < blocks; b++)     /* before the record after it (--time-unit=i) */
        c->model->alloc(c, id, sid, bytes / blocks + (b < bytes % blocks), c->cp.recno ? c->cp.recno - 1 : 0);
    c->p.cp_bytes += bytes;
    c->p.cp_blocks += blocks;
}

/* "#live-stack SID BYTES BLOCKS" (with stacks, before the #live records)
 * and "#live ID BYTES BLOCKS PEAK": what a stack, a site holds at the
 * checkpoint; a site's blocks beyond its stacks' have no known stack. */
static void live_record(struct conv *c, const char *p, int stack)
{
    uint64_t v[4], id, live, blocks;
    if (!trace_numbers_parse(p, v, stack ? 3 : 4))
        tool_fail(&c->e, stack ? "#live-stack record: expected '#live-stack SID BYTES BLOCKS'"
                               : "#live record: expected '#live ID BYTES BLOCKS PEAK'");
    if (c->p.cp != 1)
        tool_fail(&c->e, "#live record outside a checkpoint");
    if (stack) {
        if (v[0] == 0 || v[0] > c->p.nstacks)
            tool_fail(&c->e, "#live-stack record: stack %" PRIu64 " is not defined", v[0]);
        checkpoint_blocks(c, c->s.st[v[0] - 1].site, v[0], v[1], v[2]);
        return;
    }
    if ((id = v[0]) == 0 || id > c->p.ndef)
        tool_fail(&c->e, "#live record: site %" PRIu64 " is not defined", id);
    live = c->sites[id - 1].live;
    blocks = c->sites[id - 1].blocks;
    if (live > v[1] || blocks > v[2] || v[1] > v[3])
        tool_fail(&c->e, "#live record: site %" PRIu64 " holds less than its stacks, or more than its peak", id);
    checkpoint_blocks(c, id, 0, v[1] - live, v[2] - blocks);
    if (v[3] > c->sites[id - 1].peak)
        c->sites[id - 1].peak = v[3];
}

/* The checkpoint's figures all given: the first operation after it. */
static void checkpoint_done(struct conv *c)
{
    c->p.cp = 2;
    if (c->p.cp_bytes != c->cp.total || c->p.cp_blocks != c->cp.blocks)
        tool_fail(&c->e, "#checkpoint: its #live records hold %" PRIu64 " bytes in %" PRIu64
                  " blocks, not TOTAL %" PRIu64 " in %" PRIu64, c->p.cp_bytes, c->p.cp_blocks,
                  c->cp.total, c->cp.blocks);
}

/* "OP ID RECNO TOTAL SITE [MAXRSS [SID]]" */
static const char *op_record(struct conv *c, const char *p)
{
    int op = *p;
    uint64_t id, recno = 0, total, site = 0, sid;
    p += 2;
    need_field(c, &p, &id, "ID", 0);
    p++;
    if (c->p.n == 1) {
        need_field(c, &p, &recno, "RECNO", 0);
    } else {                    /* validated by pass 1: only skip it */
        p = skip_digits(p);
        if (*p != ' ')
            tool_fail(&c->e, "trace changed while being read");
    }
    p++;
    need_field(c, &p, &total, "TOTAL", 0);
    p++;
    if (c->p.n == 1)
        need_field(c, &p, &site, "SITE", 1);
    else
        p = skip_digits(p);
    p = op_tail(c, p, &sid);
    if (id == 0 || id > c->p.ndef)
        tool_fail(&c->e, "site %" PRIu64 " used before its '@' record", id);
    if (c->p.cp == 1)
        checkpoint_done(c);
    if (c->o.time_ms && !c->p.have_time)
        tool_fail(&c->e, "--time-unit=ms: no #time record before this one (the trace has no "
                  "timestamps: Basilisk's, or an older tracer's); use --time-unit=B or i");
    check_sid(c, id, sid);
    if (c->p.n == 1 && recno != c->p.nrec)
        tool_fail(&c->e, "record number %" PRIu64 ", expected %" PRIu64, recno, c->p.nrec);
    if (total > MAX_BYTES)
        tool_fail(&c->e, "TOTAL %" PRIu64 " is beyond any real heap", total);
    uint64_t size = op_size(c, op, id, sid, total, site);
    uint64_t rec = c->p.nrec++;
    c->p.prev_total = total;
    op_apply(c, op, id, sid, size, rec);
    return p + 1;
}

static void fail_tail(struct conv *c)
{
    c->e.line = c->p.tail_first_line;
    tool_fail(&c->e, "not a trace record (only the last two lines may be other text)");
}

/* "#pool ID": the blocks of site ID come from a pool (MTRACE_MALLOCLIKE),
 * so they get no slop.  It follows the site's '@' record, before any use. */
static void pool_record(struct conv *c, const char *p)
{
    uint64_t id;
    if (!parse_u64(&p, &id) || *p != '\n')
        tool_fail(&c->e, "#pool record: expected '#pool ID'");
    if (id == 0 || id > c->p.ndef)
        tool_fail(&c->e, "#pool record: site %" PRIu64 " has no '@' record before it", id);
    if (c->p.n == 2)
        return;
    if (c->sites[id - 1].seen)
        tool_fail(&c->e, "#pool record: site %" PRIu64 " already has blocks", id);
    c->sites[id - 1].pool = 1;
}

/* "#cmd ARGS...": the program's command line, each argument escaped like
 * FUNC and FILE; kept decoded, the arguments joined by one space as in
 * Massif's cmd: line.  The first one counts. */
static void cmd_record(struct conv *c, const char *p, const char *bufend)
{
    const char *end = memchr(p, '\n', (size_t)(bufend - p));
    if (c->p.n == 2 || c->cmd || end == p)
        return;
    c->cmd = tool_realloc(&c->e, NULL, (size_t)(end - p) + 1);
    tool_decode(c->cmd, p, end);
}

/* "#time NS" (the trace's clock, never going back) and "#clock WALL" (its
 * 0 by the wall clock): kept for mtrace-top's growth per second,
 * mtrace2massif's --time-unit=ms and its pages' seconds. */
static void clock_record(struct conv *c, const char *p, int is_time)
{
    uint64_t v;
    if (!parse_u64(&p, &v) || *p != '\n')
        tool_fail(&c->e, "%s record: expected '%s'", is_time ? "#time" : "#clock",
                  is_time ? "#time NS" : "#clock WALL");
    if (!is_time) {
        c->p.clock_ns = v, c->p.have_clock = 1;
        return;
    }
    if (c->p.have_time && v < c->p.time_ns)
        tool_fail(&c->e, "#time went back (%" PRIu64 " -> %" PRIu64 ")", c->p.time_ns, v);
    c->p.time_ns = v, c->p.have_time = 1;
}

/* A metadata record "#NAME ...": #cmd, #pool, #site, #time, #clock, the
 * call stacks (stack.c) and a checkpoint (MTRACE_TRACE_MAX); others are
 * skipped, so that older converters read newer traces. */
static void meta_record(struct conv *c, const char *p, const char *end)
{
    if (!strncmp(p, "#cmd ", 5))
        cmd_record(c, p + 5, end);
    else if (!strncmp(p, "#pool ", 6))
        pool_record(c, p + 6);
    else if (!strncmp(p, "#depth ", 7))
        depth_record(c, p + 7);
    else if (!strncmp(p, "#map ", 5))
        map_record(c, p + 5);
    else if (!strncmp(p, "#stack ", 7))
        stack_record(c, p + 7);
    else if (!strncmp(p, "#site ", 6))
        rename_record(c, p + 6);
    else if (!strncmp(p, "#time ", 6))
        clock_record(c, p + 6, 1);
    else if (!strncmp(p, "#clock ", 7))
        clock_record(c, p + 7, 0);
    else if (!strncmp(p, "#checkpoint ", 12))
        checkpoint_record(c, p + 12);
    else if (!strncmp(p, "#live-stack ", 12))
        live_record(c, p + 12, 1);
    else if (!strncmp(p, "#live ", 6))
        live_record(c, p + 6, 0);
}

/* Process the complete lines in [p, end); end[-1] is '\n'. */
static void parse_lines(struct conv *c, const char *p, const char *end)
{
    while (p < end) {
        c->e.line++;
        int ch = p[0];
        if (ch != '\n' && p[1] == ' ' &&
            (ch == '+' || ch == '-' || ch == '<' || ch == '>' || ch == '@')) {
            if (c->p.tail_n)
                fail_tail(c);
            if (ch != '@') {
                p = op_record(c, p);
                continue;
            }
            site_record(c, p);
        } else if (ch == '#') {   /* metadata: no tail line */
            if (c->p.tail_n)
                fail_tail(c);
            meta_record(c, p, end);
        } else {
            /* not a record: must be one of the two tail lines */
            if (c->p.tail_n == 0) {
                c->p.tail_first_line = c->e.line;
                c->model->flush(c);
            }
            if (++c->p.tail_n > 2)
                fail_tail(c);
        }
        p = memchr(p, '\n', (size_t)(end - p));
        p++;
    }
}

void parse_more(struct conv *c, const char *p, const char *end)
{
    parse_lines(c, p, end);
}

/* ------------------------------------------------------------------ */
/* Input: a file read twice (tool_input made a pipe's text one)        */

/* Is the last line s[0..n), which has no newline, a record cut short
 * (else it is a tail line without its newline)?  A record's first byte
 * alone is one too: no tail line is a lone "+" (tests/convmodel, seed 4). */
static int cut_record(const char *s, size_t n)
{
    return s[0] == '#' || (s[0] && strchr("+-<>@", s[0]) && (n == 1 || s[1] == ' '));
}

void run_pass(struct conv *c, struct input *in)
{
    c->e.line = 0;
    if (in->fd < 0) {
        const char *end = in->mem + in->memlen, *last = end;
        while (last > in->mem && last[-1] != '\n')
            last--;
        parse_lines(c, in->mem, last);
        c->p.truncated_line = last != end;
        if (last != end && !cut_record(last, (size_t)(end - last)))
            c->p.truncated_line = 0, c->p.tail_n++;    /* a tail line without newline */
        return;
    }
    size_t have = 0;
    for (;;) {
        if (have == in->cap) {
            size_t old = in->cap;
            /* a full buffer is one line without its newline: past
             * TOOL_MAX_LINE + 1 bytes (the bound and a newline), it is longer
             * than the bound (memory stays bounded on a garbage file) */
            if (old > TOOL_MAX_LINE) {
                c->e.line++;
                tool_fail(&c->e, "line longer than %d bytes", TOOL_MAX_LINE);
            }
            in->cap = !old ? (size_t)1 << 20 : old * 2 > TOOL_MAX_LINE ? TOOL_MAX_LINE + 1 : old * 2;
            in->buf = tool_realloc(&c->e, in->buf, in->cap + PAD);
            memset(in->buf + old, 0, in->cap - old + PAD);
        }
        ssize_t r = read(in->fd, in->buf + have, in->cap - have);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            tool_fail(&c->e, "read error: %s", strerror(errno));
        }
        if (r == 0)
            break;
        have += (size_t)r;
        char *last = memrchr(in->buf, '\n', have);
        if (!last)
            continue;
        last++;
        parse_lines(c, in->buf, last);
        have -= (size_t)(last - in->buf);
        memmove(in->buf, last, have);
    }
    c->p.truncated_line = have > 0;
    if (have > 0 && !cut_record(in->buf, have))
        c->p.truncated_line = 0, c->p.tail_n++;
}

/* Read the input again from its start. */
void rewind_input(struct conv *c, struct input *in)
{
    if (in->fd < 0)
        return;
    if (lseek(in->fd, 0, SEEK_SET) != 0)
        tool_fail(&c->e, "cannot rewind: %s", strerror(errno));
}

void free_parsed(struct conv *c)
{
    for (size_t i = 0; i < c->nsites; i++) {
        free(c->sites[i].label);
        free(c->sites[i].func);
    }
    free(c->sites);
    free(c->cmd);
    free_stacks(&c->s);
}
