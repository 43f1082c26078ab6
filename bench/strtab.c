/* SPDX-License-Identifier: MIT */
/* bench/strtab.c - a hash table of strings, strdup-heavy.

   usage: strtab WORDS [ROUNDS]

   The shape of a symbol table or a word counter: words are generated,
   looked up in a chained hash table and, when new, copied with strdup into
   a freshly allocated entry; the bucket array is grown with calloc and the
   old one freed.  Then every other entry is removed (two frees each), the
   rest are looked up again and the table is destroyed.  Half the calls
   are strdup, so this is where the traced string functions are timed. */
#include <string.h>
#include "common.h"

struct entry {
    struct entry *next;
    char *word;
    uint64_t hash;
    unsigned count;
};

struct table {
    struct entry **b;
    size_t nb, n;
};

/* A pronounceable word of 3 to 14 letters; a small alphabet per position
   so that words repeat and the count path is exercised too. */
static size_t make_word(rng_t *r, char *w, uint32_t vocabulary)
{
    static const char cons[] = "bcdfghklmnprstvz", vow[] = "aeiou";
    uint32_t id = rng_below(r, vocabulary), len = 3 + id % 12, i;
    for (i = 0; i < len; i++) {
        w[i] = (i & 1) ? vow[id % 5] : cons[id % 16];
        id = id / 3 + i * 7;
    }
    w[len] = 0;
    return len;
}

static void grow(struct table *t, uint64_t *ops)
{
    size_t nb = t->nb ? 2 * t->nb : 64, i;
    struct entry **b = xcheck(calloc(nb, sizeof *b));
    ++*ops;
    for (i = 0; i < t->nb; i++) {
        struct entry *e = t->b[i], *next;
        for (; e; e = next) {
            next = e->next;
            e->next = b[e->hash & (nb - 1)];
            b[e->hash & (nb - 1)] = e;
        }
    }
    free(t->b);
    if (t->b)
        ++*ops;
    t->b = b;
    t->nb = nb;
}

static struct entry **find(struct table *t, const char *w, uint64_t hash)
{
    struct entry **at = &t->b[hash & (t->nb - 1)];
    while (*at && ((*at)->hash != hash || strcmp((*at)->word, w)))
        at = &(*at)->next;
    return at;
}

static void add(struct table *t, const char *w, size_t len, uint64_t *ops)
{
    uint64_t hash = hash_bytes(w, len);
    struct entry **at, *e;
    if (t->n >= t->nb)
        grow(t, ops);
    at = find(t, w, hash);
    if (*at) {
        (*at)->count++;
        return;
    }
    e = xcheck(malloc(sizeof *e));
    e->word = xcheck(strdup(w));
    *ops += 2;
    e->hash = hash;
    e->count = 1;
    e->next = NULL;
    *at = e;
    t->n++;
}

/* Remove every entry whose position in its chain is even. */
static uint64_t thin(struct table *t, uint64_t h, uint64_t *ops)
{
    size_t i;
    for (i = 0; i < t->nb; i++) {
        struct entry **at = &t->b[i];
        int k = 0;
        while (*at) {
            struct entry *e = *at;
            if (k++ % 2 == 0) {
                h = mix(h, e->hash + e->count);
                *at = e->next;
                free(e->word);
                free(e);
                *ops += 2;
                t->n--;
            } else {
                at = &e->next;
            }
        }
    }
    return h;
}

static uint64_t destroy(struct table *t, uint64_t h, uint64_t *ops)
{
    size_t i;
    for (i = 0; i < t->nb; i++) {
        struct entry *e = t->b[i], *next;
        for (; e; e = next) {
            next = e->next;
            h = mix(h, e->hash ^ (uint64_t)e->count << 32);
            free(e->word);
            free(e);
            *ops += 2;
        }
    }
    free(t->b);
    ++*ops;
    memset(t, 0, sizeof *t);
    return h;
}

int main(int argc, char **argv)
{
    long words = arg_long(argc, argv, 1, 1000000);
    long rounds = arg_long(argc, argv, 2, 2);
    struct table t = { NULL, 0, 0 };
    uint64_t h = 0, ops = 0;
    char w[16];
    long round, i;
    rng_t r;

    for (round = 0; round < rounds; round++) {
        rng_seed(&r, 4 + (uint64_t)round);
        for (i = 0; i < words; i++) {
            size_t len = make_word(&r, w, (uint32_t)words);
            add(&t, w, len, &ops);
        }
        h = mix(h, t.n);
        h = thin(&t, h, &ops);
        rng_seed(&r, 4 + (uint64_t)round);
        for (i = 0; i < words / 2; i++) {
            size_t len = make_word(&r, w, (uint32_t)words);
            struct entry **at = find(&t, w, hash_bytes(w, len));
            h = mix(h, *at ? (*at)->count : 0);
        }
        h = destroy(&t, h, &ops);
    }
    report(h, ops);
    return 0;
}
