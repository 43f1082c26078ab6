/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for mtrace2massif: the first byte picks the options;
 * if the second byte is odd, the rest drives a generator of *valid* traces
 * (so that mutations reach snapshots, culling, in-place shrinks and trees
 * instead of stopping at the first inconsistent record), else the rest is
 * the trace text itself.  Besides the sanitizers' checks, every Massif file
 * written is checked for the properties Massif's readers rely on: no '#'
 * except the snapshot separators, every tree node at most its snapshot's
 * total, the root equal to mem_heap_B, exactly the right number of child
 * lines, at most one peak.  The same input also names the files of an
 * MPI run (ranks from NAME-r, %r/%n patterns) and fills the per-rank table
 * with this conversion's figures.  Build and run: fuzz/mtrace2massif.sh
 * (it links convert/mtrace2massif/m2m_*.c, convert/trace/'s files,
 * convert/html/m2m_html_page.c and convert/common/tool.c: all but the
 * main). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "../convert/mtrace2massif/m2m.h"

static void check_output(const char *s, size_t n)
{
    const char *end = s + n, *p = s;
    uint64_t heap = 0, extra = 0, peaks = 0;
    long pending = -1;          /* tree lines still expected */
    int line = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            abort();            /* every line ends with a newline */
        line++;
        if (line > 3 && memchr(p, '#', (size_t)(nl - p)) && strncmp(p, "#-----------\n", 13))
            abort();
        if (!strncmp(p, "mem_heap_B=", 11))
            heap = strtoull(p + 11, NULL, 10);
        else if (!strncmp(p, "mem_heap_extra_B=", 17))
            extra = strtoull(p + 17, NULL, 10);
        else if (!strncmp(p, "heap_tree=peak", 14))
            peaks++, pending = 1;
        else if (!strncmp(p, "heap_tree=detailed", 18))
            pending = 1;
        else if (pending > 0) {
            const char *q = p;
            while (*q == ' ')
                q++;
            if (*q != 'n')
                abort();
            char *e;
            unsigned long k = strtoul(q + 1, &e, 10);
            uint64_t b = strtoull(e + 2, NULL, 10);
            if (b > heap + extra)
                abort();
            if (q == p && b != heap)  /* root */
                abort();
            pending += (long)k - 1;
        } else if (pending == 0) {
            pending = -1;
        }
        p = nl + 1;
    }
    if (peaks > 1 || pending > 0)
        abort();
}

/* A valid trace from bytes: each group of 3 bytes is one operation on a
 * pool of 16 blocks from 6 sites (site 5 marked "#pool"), sizes small to
 * a few MiB, and now and then a "#cmd" or an unknown "#" record.  Each
 * site has a call stack (stack s of site s, callers shared between
 * sites), which a block uses or not (SID 0). */
static char *generate(const uint8_t *d, size_t n, size_t *len)
{
    size_t cap = 1024 + n * 48 + PAD, o = 0;
    char *t = malloc(cap);
    uint64_t total = 0, rec = 0, live[7] = { 0 }, sz[16] = { 0 };
    int st[16] = { 0 }, sid[16] = { 0 }, defined = 0;
    o += (size_t)sprintf(t, "#depth 4\n#map 0x1000 0x2000 0x0 m\n");
    static const uint64_t scale[4] = { 1, 16, 1000, 100000 };
    for (size_t i = 0; i + 3 <= n; i += 3) {
        unsigned k = d[i] & 15, s = 1 + d[i + 1] % 6, op = d[i] >> 4;
        uint64_t size = (uint64_t)d[i + 2] * scale[d[i + 1] >> 6];
        while (defined < (int)s) {
            defined++;
            o += (size_t)sprintf(t + o, "@ %d fn%d%s dir/f%%23%d.c %d\n", defined, defined,
                                 defined == 3 ? "%20x" : "", defined, defined * 7);
            if (defined == 5)                   /* a pool's blocks: no slop */
                o += (size_t)sprintf(t + o, "#pool 5\n");
            o += (size_t)sprintf(t + o, "#stack %d %d 0x%x 0x1101\n", defined, defined,
                                 0x1001 + 16 * (defined % 3));
        }
        if (op == 15 && d[i + 2] < 16)          /* metadata records */
            o += (size_t)sprintf(t + o, d[i + 2] & 1 ? "#cmd ./p a%%20b%%0A c\n" : "#note 1 0x401000\n");
        if (st[k] && op < 4) {                  /* realloc, in place or not */
            total -= sz[k]; live[st[k]] -= sz[k];
            o += (size_t)sprintf(t + o, "< %d %llu %llu %llu 100 %d\n", st[k],
                 (unsigned long long)rec++, (unsigned long long)total, (unsigned long long)live[st[k]], sid[k]);
            sz[k] = op < 2 ? sz[k] / 2 : size;
            st[k] = (int)s; total += sz[k]; live[s] += sz[k];
            sid[k] = (d[i + 1] & 32) ? (int)s : 0;
            o += (size_t)sprintf(t + o, "> %u %llu %llu %llu 100 %d\n", s,
                 (unsigned long long)rec++, (unsigned long long)total, (unsigned long long)live[s], sid[k]);
        } else if (st[k]) {                     /* free */
            total -= sz[k]; live[st[k]] -= sz[k];
            o += (size_t)sprintf(t + o, "- %d %llu %llu %llu 100 %d\n", st[k],
                 (unsigned long long)rec++, (unsigned long long)total, (unsigned long long)live[st[k]], sid[k]);
            st[k] = 0;
        } else {                                /* malloc */
            sz[k] = size; st[k] = (int)s; total += size; live[s] += size;
            sid[k] = (d[i + 1] & 32) ? (int)s : 0;
            o += (size_t)sprintf(t + o, "+ %u %llu %llu %llu %llu %d\n", s,
                 (unsigned long long)rec, (unsigned long long)total,
                 (unsigned long long)live[s], 100 + (unsigned long long)rec, sid[k]);
            rec++;
        }
    }
    if (n % 3 == 0)
        o += (size_t)sprintf(t + o, "set title 'x'\nplot 'x' u 3:4\n");
    memset(t + o, 0, PAD);
    *len = o;
    return t;
}

/* The MPI side: a name from the input's first bytes as NAME of a run,
 * NAME-r and standard input beside it; their ranks, the output names the
 * patterns give (the name itself as the pattern), and the table with this
 * conversion's figures in it. */
static void check_ranks(const uint8_t *d, size_t n, const struct conv *c, int rc, FILE *devnull)
{
    char name[48], name2[64];
    size_t len = n < 40 ? n : 40;
    memcpy(name, d, len);
    name[len] = 0;
    len = strlen(name);
    unsigned r = 1 + (n ? d[0] : 0) % 9;
    snprintf(name2, sizeof name2, "%s-%u", name, r);
    struct job j[3] = { { .trace = name, .pos = 0 }, { .trace = name2, .pos = 1 },
                        { .trace = "-", .pos = 2 } };
    assign_ranks(j, 3);
    if (j[2].rank != 2)
        abort();
    if (len > 0 && name[len - 1] != '/') {
        long own = tool_rank_suffix(name);
        if (j[1].rank != (long)r || j[0].rank != (own >= 0 ? own : 0))
            abort();
    }
    for (int k = 0; k < 3; k++) {
        char *o = expand(name, &j[k]), *def = default_out(j[k].trace);
        if (!o || !def || (!pattern_varies(name) && strcmp(o, name) && strstr(name, "%%") == NULL))
            abort();
        free(o);
        free(def);
    }
    j[0].rc = rc;
    j[0].truncated = c->truncated;
    j[0].v[0] = c->p.max_heap;
    j[0].v[1] = c->p.max_total;
    j[0].v[2] = c->p.heap;
    j[0].v[3] = c->p.nrec;
    /* what the table relies on: live <= peak <= peak + extra */
    if (rc == 0 && (c->p.heap > c->p.max_heap || c->p.max_heap > c->p.max_total))
        abort();
    j[1] = j[0];
    j[1].trace = name2;
    j[1].rank = (long)r;
    print_summary(devnull, j, 3);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *devnull;
    if (!devnull)
        devnull = fopen("/dev/null", "w");
    if (size < 1)
        return 0;
    unsigned sel = data[0];
    struct conv *c = calloc(1, sizeof *c);
    c->o.time_bytes = !(sel & 1);
    c->o.max_snapshots = (sel & 2) ? 10 : 100;
    c->o.detailed_freq = (sel & 4) ? 1 : 10;
    c->o.threshold = (sel & 8) ? 0 : (sel & 16) ? 100 : 1.0;
    c->o.heap_admin = (sel & 32) ? 0 : 8;
    c->o.peak_inaccuracy = (sel & 64) ? 0 : 1.0;
    c->o.depth = 30;
    c->o.quiet = 1;
    c->e.file = "fuzz";
    /* the parser reads up to PAD bytes past the end */
    char *buf;
    size_t len;
    if (size >= 2 && (data[1] & 1)) {
        buf = generate(data + 2, size - 2, &len);
    } else {
        len = size - 1;
        buf = malloc(len + PAD);
        memcpy(buf, data + 1, len);
        memset(buf + len, 0, PAD);
    }
    struct input in = { .fd = -1, .mem = buf, .memlen = len };
    char *out = NULL;
    size_t outlen = 0;
    FILE *mf = open_memstream(&out, &outlen);
    int rc = convert(c, &in, mf, (sel & 128) ? devnull : NULL, "fuzz", "fuzz.out");
    fclose(mf);
    if (rc == 0)
        check_output(out, outlen);
    check_ranks(data + 1, size - 1, c, rc, devnull);
    free(out);
    free(buf);
    free(c);
    return 0;
}
