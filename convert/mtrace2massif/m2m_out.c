/* SPDX-License-Identifier: MIT */
/* m2m_out.c - the Massif file (Valgrind 3.19, coregrind/m_xtree.c,
 * VG_(XT_massif_print)): the header, then each snapshot with, when it is
 * detailed, its tree as the snapshot policy made it.
 * Owns nothing: it reads what the passes built.
 * Calls: tool.c. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <string.h>

#include "m2m.h"

/* A node's label lines, from 'indent' spaces on: a frame with functions
 * inlined at its address has one line per function, each one space
 * deeper, all with one child but the last (Massif's ms_output_group).
 * Returns the indentation of the node's children. */
static unsigned put_label(const struct conv *c, FILE *f, const struct tnode *e, unsigned indent)
{
    const struct node *nd = &c->s.nodes[e->node];
    if (nd->site) {
        fprintf(f, "%*sn%" PRIu32 ": %" PRIu64 " 0x%" PRIX32 ": %s\n", (int)indent, "", e->nkids,
                e->bytes, nd->site, c->sites[nd->site - 1].label);
        return indent + 1;
    }
    const char *lab = c->s.frames[nd->frame].label, *nl;
    while ((nl = strchr(lab, '\n'))) {
        fprintf(f, "%*sn1: %" PRIu64 " %.*s\n", (int)indent++, "", e->bytes, (int)(nl - lab), lab);
        lab = nl + 1;
    }
    fprintf(f, "%*sn%" PRIu32 ": %" PRIu64 " %s\n", (int)indent, "", e->nkids, e->bytes, lab);
    return indent + 1;
}

/* Entry i of tree t and its subtree, at 'indent' spaces; returns the
 * index of the entry after the subtree. */
static size_t put_subtree(const struct conv *c, FILE *f, const struct tree *t, size_t i,
                          unsigned indent)
{
    const struct tnode *e = &t->e[i++];
    if (!e->node) {             /* the insignificant children, together */
        fprintf(f, "%*sn0: %" PRIu64 " in %" PRIu64 " place%s below massif's threshold (%.2f%%)\n",
                (int)indent, "", e->bytes, e->n_insig, e->n_insig == 1 ? "," : "s, all",
                c->o.threshold);
        return i;
    }
    unsigned in = put_label(c, f, e, indent);
    for (uint32_t k = 0; k < e->nkids; k++)
        i = put_subtree(c, f, t, i, in);
    return i;
}

/* A detailed snapshot's tree: the root (the allocation functions), then
 * the levels below it. */
static void write_tree(const struct conv *c, FILE *f, const struct tree *t)
{
    size_t i = 1;
    fprintf(f, "n%" PRIu32 ": %" PRIu64 " " MASSIF_ROOT "\n", t->e[0].nkids, t->e[0].bytes);
    for (uint32_t k = 0; k < t->e[0].nkids; k++)
        i = put_subtree(c, f, t, i, 1);
}

/* The Massif file: the three header lines, then the snapshots.  cmd is
 * the program's command line, or the trace's path when it has none. */
void write_massif(struct conv *c, FILE *f, const char *cmd)
{
    fprintf(f, MASSIF_DESC " %s\n" MASSIF_CMD " ", c->o.desc[0] ? c->o.desc : "(none)");
    tool_put_escaped(f, cmd, "#");
    fprintf(f, "\n" MASSIF_TIME_UNIT " %s\n", c->o.time_ms ? "ms" : c->o.time_bytes ? "B" : "i");
    for (unsigned i = 0; i < c->sn.next_i; i++) {
        const struct snap *s = &c->sn.snaps[i];
        fprintf(f, MASSIF_SEP "\n" MASSIF_SNAPSHOT "=%u\n" MASSIF_SEP "\n"
                MASSIF_TIME "=%" PRId64 "\n" MASSIF_HEAP "=%" PRIu64 "\n"
                MASSIF_EXTRA "=%" PRIu64 "\n" MASSIF_STACKS "=0\n" MASSIF_TREE "=%s\n",
                i, s->time, s->heap, s->extra, !s->tree ? MASSIF_EMPTY
                : s->kind == PEAK ? MASSIF_PEAK : MASSIF_DETAILED);
        if (s->tree)
            write_tree(c, f, s->tree);
    }
}
