/* SPDX-License-Identifier: MIT */
/* runtime/blocks.c - the block table: every traced block by its address.

   Owns: struct mtrace_table's directory of 64 KiB ranges and their
   buckets, live entries and tombstones (a freed block's entry, kept so
   that a second free names both places).
   May call: runtime/state.c.

   Blocks that the C library hands out together lie together in memory,
   and their entries lie together too: a directory keyed by the 64 KiB
   range of the address (open addressing, at most half full) gives the
   range's bucket, an open-addressing table of that range's entries
   (linear probing, at most 3/4 full, grown by 1.5 or 4/3 as allocators'
   size classes do).  An operation reads one directory entry and one or
   two lines of the bucket, which the program's recent operations in
   that range already brought in; a single table keyed by the address
   scattered neighbours over all of its memory, and with millions of
   live blocks every operation missed the cache.  Ranges, not 4 KiB
   pages: the directory is 16 times smaller (a few KiB for a heap of a
   few MB), so it stays in the L1 cache where operations jump between
   pages at random, and the bucket is the only line that misses.
   Buckets are cut from mapped chunks; a bucket that grows goes back to
   a list of its size, for the next range that needs one. */

/* The address of a used entry (its `addr` holds it hidden: MTRACE_HIDE). */
static MTRACE_HOT uintptr_t mtrace_b_addr(const struct mtrace_block *b)
{
    return MTRACE_HIDE(b->addr);
}

static MTRACE_HOT unsigned mtrace_b_site(const struct mtrace_block *b)
{
    return (unsigned)(b->word & MTRACE_MAXSITES);
}

static MTRACE_HOT size_t mtrace_b_size(const struct mtrace_block *b)      /* live ones */
{
    return (size_t)(b->word >> (MTRACE_SITE_BITS + 1)) & (((size_t)1 << MTRACE_SIZE_BITS) - 1);
}

static MTRACE_HOT int mtrace_b_family(const struct mtrace_block *b)       /* live ones */
{
    return (int)(b->word >> MTRACE_FAMILY_SHIFT);
}

static MTRACE_HOT unsigned mtrace_b_freed_by(const struct mtrace_block *b) /* tombstones */
{
    return (unsigned)(b->word >> (MTRACE_SITE_BITS + 1)) & MTRACE_MAXSITES;
}

static MTRACE_HOT unsigned mtrace_b_epoch(const struct mtrace_block *b)    /* tombstones */
{
    return (unsigned)(b->word >> MTRACE_EPOCH_SHIFT);
}

static MTRACE_HOT int mtrace_freed(const struct mtrace_block *b)
{
    return (b->word & MTRACE_FREED) != 0;
}

static MTRACE_HOT int mtrace_live(const struct mtrace_block *b)
{
    return b->addr && !mtrace_freed(b);
}

/* What mtrace_find gives for an address whose range has no bucket: an
   empty entry, only ever read. */
static struct mtrace_block mtrace_no_block;

/* The directory key: range number, entries in the bucket (live and
   tombstones: at most 65536 distinct addresses in a range, a pool of
   1-byte blocks), whether homes are hashed (mtrace_home), size class.
   User-space addresses are below 2^57, so the range number fits in 41
   bits. */
#define MTRACE_KEY_RANGE 23
#define MTRACE_KEY_USED 6
#define MTRACE_KEY_HASHED 32u
#define MTRACE_KEY_CLASS 31u

/* Bucket sizes: 2, 3, 4, 6, 8, 12, 16, ... 98304 entries (65536 at 3/4),
   each a half or a third larger than the last, computed (no table on the
   hot path). */
static MTRACE_HOT size_t mtrace_cap(unsigned class)
{
    return (size_t)(2 + (class & 1)) << (class >> 1);
}

static MTRACE_HOT uint64_t mtrace_range_no(uintptr_t addr)
{
    return (uint64_t)addr >> MTRACE_RANGE_BITS;
}

static MTRACE_HOT size_t mtrace_p_used(const struct mtrace_range *p)
{
    return (size_t)(p->key >> MTRACE_KEY_USED) & ((1u << (MTRACE_KEY_RANGE - MTRACE_KEY_USED)) - 1);
}

static MTRACE_HOT unsigned mtrace_p_class(const struct mtrace_range *p)
{
    return (unsigned)(p->key & MTRACE_KEY_CLASS);
}

/* The directory entry of addr's range, or the empty slot where it would go. */
static MTRACE_HOT struct mtrace_range *mtrace_range_find(struct mtrace_table *t, uintptr_t addr)
{
    uint64_t range = mtrace_range_no(addr);
    size_t mask = t->n - 1, i = (size_t)((range * 0x9E3779B97F4A7C15ULL) >> 24) & mask;
    while (t->dir[i].slots && t->dir[i].key >> MTRACE_KEY_RANGE != range)
        i = (i + 1) & mask;
    return &t->dir[i];
}

/* Where addr's entry starts looking in a bucket of `cap` slots with
   directory key `key`: in the order of the addresses, so that neighbours
   share a line, and blocks of one size, at least 4/3 slots apart, do not
   collide.  A range whose blocks crowd into part of it gets a larger
   bucket (mtrace_claim), or, once that bucket would be mostly empty (a
   pool of tiny blocks in a corner of the range), homes by a hash of the
   offset: probes stay short without a bucket 16 times too large. */
static MTRACE_HOT size_t mtrace_home(uint64_t key, uintptr_t addr, size_t cap)
{
    uint32_t off = (uint32_t)addr & ((1u << MTRACE_RANGE_BITS) - 1);
    uint32_t at = key & MTRACE_KEY_HASHED ? off * 0x9E3779B1u : off << (32 - MTRACE_RANGE_BITS);
    return (size_t)(((uint64_t)at * cap) >> 32);       /* a select, not a branch */
}

/* The entry for addr in its range's bucket, or the empty slot where it would go. */
static MTRACE_HOT struct mtrace_block *mtrace_in_bucket(const struct mtrace_range *p, uintptr_t addr)
{
    size_t cap = mtrace_cap(mtrace_p_class(p)), i = mtrace_home(p->key, addr, cap);
    struct mtrace_block *s = p->slots;
    uintptr_t hidden = MTRACE_HIDE(addr);
    while (s[i].addr && s[i].addr != hidden)
        if (++i == cap)
            i = 0;
    return &s[i];
}

/* The entry for addr: live, a tombstone, or empty (addr 0; never write it). */
static MTRACE_HOT struct mtrace_block *mtrace_find(struct mtrace_table *t, uintptr_t addr)
{
    struct mtrace_range *p = mtrace_range_find(t, addr);
    return p->slots ? mtrace_in_bucket(p, addr) : &mtrace_no_block;
}

/* A spare bucket's first entry links the next: the tracer's own memory,
   which no leak checker minds, so the link is not hidden. */
static void mtrace_bucket_free(struct mtrace_table *t, struct mtrace_block *b, unsigned class)
{
    b->addr = (uintptr_t)t->spare[class];
    t->spare[class] = b;
}

/* An empty bucket of a class: one given back, or cut from mapped space.
   Chunks are 1/16 of what is mapped so far (a page at first: a small
   program maps little, a large one makes few mappings); what is left
   of one when the next is needed becomes spare buckets. */
static struct mtrace_block *mtrace_bucket_new(struct mtrace_table *t, unsigned class)
{
    size_t bytes = mtrace_cap(class) * sizeof(struct mtrace_block);
    struct mtrace_block *b = t->spare[class];
    if (b) {
        t->spare[class] = (struct mtrace_block *)b->addr;
        memset(b, 0, bytes);
        return b;
    }
    if ((size_t)(t->cut_end - t->cut) < bytes) {
        size_t chunk = t->mapped / 16 > bytes ? t->mapped / 16 : bytes;
        char *c = (char *)mtrace_pages(chunk = (chunk + 4095) & ~(size_t)4095);
        unsigned k = MTRACE_CLASSES;
        if (!c)
            return 0;
        while (k--)
            while ((size_t)(t->cut_end - t->cut) >= mtrace_cap(k) * sizeof *b) {
                mtrace_bucket_free(t, (struct mtrace_block *)t->cut, k);
                t->cut += mtrace_cap(k) * sizeof *b;
            }
        t->cut = c;
        t->cut_end = c + chunk;
        t->mapped += chunk;
    }
    b = (struct mtrace_block *)t->cut;      /* fresh from mmap: zero */
    t->cut += bytes;
    return b;
}

/* Doubles the directory (256 slots at first). */
static int mtrace_grow_dir(struct mtrace_table *t)
{
    struct mtrace_range *old = t->dir;
    size_t i, n = t->n, cap = n ? n * 2 : 256;
    if (!(t->dir = (struct mtrace_range *)mtrace_pages(cap * sizeof *t->dir))) {
        t->dir = old;
        return 0;
    }
    t->n = cap;
    if (!n)                     /* a new table: its first epoch */
        t->epoch_left = mt.freed_max / MTRACE_EPOCHS;
    for (i = 0; i < n; i++)
        if (old[i].slots)
            *mtrace_range_find(t, (uintptr_t)(old[i].key >> MTRACE_KEY_RANGE << MTRACE_RANGE_BITS)) = old[i];
    mtrace_unpages(old, n * sizeof *old);
    return 1;
}

/* Is tombstone b older than the last `keep` epochs of table t? */
static int mtrace_too_old(const struct mtrace_table *t, const struct mtrace_block *b, unsigned keep)
{
    return mtrace_freed(b) && ((t->epoch - mtrace_b_epoch(b)) & MTRACE_EPOCH_MASK) >= keep;
}

/* Moves range p's entries into a new bucket of class `to`, homes hashed or
   not, leaving out the tombstones older than the last `keep` epochs (all
   are kept with MTRACE_EPOCH_MASK + 1).  0 if no bucket can be had. */
static int mtrace_rehash(struct mtrace_table *t, struct mtrace_range *p, unsigned to, unsigned hashed,
                         unsigned keep)
{
    unsigned class = mtrace_p_class(p);
    size_t i, cap = mtrace_cap(class), was = mtrace_p_used(p), used = 0, covered = 0;
    uintptr_t lo = 0, hi = 0;   /* the last live block seen, in slot order */
    struct mtrace_block *old = p->slots, *b;
    if (!(b = mtrace_bucket_new(t, to)))
        return 0;
    p->slots = b;
    p->key = p->key >> MTRACE_KEY_RANGE << MTRACE_KEY_RANGE | hashed | to;
    for (i = 0; i < cap; i++) {
        if (!old[i].addr)
            continue;
        if (!mtrace_freed(&old[i])) {
            lo = mtrace_b_addr(&old[i]);
            hi = lo + mtrace_b_size(&old[i]);
        } else if (mtrace_b_addr(&old[i]) > lo && mtrace_b_addr(&old[i]) < hi) {
            covered++;          /* see mtrace_covered */
            continue;
        } else if (mtrace_too_old(t, &old[i], keep))
            continue;
        *mtrace_in_bucket(p, mtrace_b_addr(&old[i])) = old[i];
        used++;
    }
    p->key |= (uint64_t)used << MTRACE_KEY_USED;
    t->nfreed -= was - used;
    t->forgotten += was - used - covered;
    mtrace_bucket_free(t, old, class);
    return 1;
}

/* The tombstones of range p that lie inside a live block of its bucket:
   the C library handed their address out again, inside a larger block,
   and a free of it now is a free inside that block (mtrace_holder), not
   a double free.  A rebuilt bucket leaves them out, and may then keep
   its size.  Found in the order the bucket holds its entries, which is
   the addresses' where homes are not hashed: the block just before a
   tombstone is the one that may hold it (a tombstone is only ever left
   out when it lies inside a live block, whatever the order). */
static size_t mtrace_covered(const struct mtrace_range *p)
{
    size_t i, cap = mtrace_cap(mtrace_p_class(p)), n = 0;
    uintptr_t lo = 0, hi = 0;
    const struct mtrace_block *s = p->slots;
    for (i = 0; i < cap; i++)
        if (s[i].addr && !mtrace_freed(&s[i])) {
            lo = mtrace_b_addr(&s[i]);
            hi = lo + mtrace_b_size(&s[i]);
        } else if (s[i].addr && mtrace_b_addr(&s[i]) > lo && mtrace_b_addr(&s[i]) < hi)
            n++;
    return n;
}

/* Makes room in a full or `crowded` bucket for one more entry: the same
   size without the tombstones that live blocks now cover, when that is
   room enough and they are many (mtrace_covered, MTRACE_COVERED_MIN);
   else the next size up, tombstones and all (what the program does in
   the rest of the range never makes the tracer forget a freed block
   there: only MTRACE_FREED_MAX does, oldest first, mtrace_forget_oldest); or,
   crowded with MTRACE_SPARSE_AT slots or more and MTRACE_SPARSE of them
   an entry, a size for its entries with hashed homes (mtrace_home).  At
   most 4096 glibc blocks start in a range (16-byte alignment), so a heap
   range's bucket stays well below the largest. */
#define MTRACE_SPARSE 16
#define MTRACE_SPARSE_AT 4096   /* a range filling up from one end is not a corner */
/* A bucket is rebuilt at its size only when the covered tombstones are a
   sixteenth of it or more: one rebuilt for a handful of them was full
   again a handful of blocks later (bench's json-records rebuilt its
   buckets 2,661 times so, reading 12 M slots: 18% of its time at level
   2; growing them instead costs it 0.4 MB of table). */
#define MTRACE_COVERED_MIN 16
static int mtrace_grow_bucket(struct mtrace_table *t, struct mtrace_range *p, int crowded)
{
    unsigned class = mtrace_p_class(p), to = 0, hashed = (unsigned)p->key & MTRACE_KEY_HASHED;
    size_t cap = mtrace_cap(class), covered = hashed ? 0 : mtrace_covered(p), was = mtrace_p_used(p) - covered;
    while (to < MTRACE_CLASSES - 1 && (was + 1) * 4 > mtrace_cap(to) * 3)
        to++;
    if (crowded && !hashed && cap >= MTRACE_SPARSE_AT && (was + 1) * MTRACE_SPARSE <= cap) {
        hashed = MTRACE_KEY_HASHED;
        to = to + 2 < class ? to + 2 : class;   /* under half full: probes short */
    } else if (to <= class && covered * MTRACE_COVERED_MIN >= cap && !crowded)
        to = class;             /* room made by leaving the covered out */
    else if (to <= class) {
        if (class == MTRACE_CLASSES - 1)
            return 1;           /* crowded, but as large as a bucket gets */
        to = class + 1;
    }
    return mtrace_rehash(t, p, to, hashed, MTRACE_EPOCH_MASK + 1);
}

/* Range p without its tombstones older than the last MTRACE_EPOCHS - 1
   epochs, if it has any. */
static void mtrace_forget_in(struct mtrace_table *t, struct mtrace_range *p)
{
    size_t i, cap = p->slots ? mtrace_cap(mtrace_p_class(p)) : 0;
    for (i = 0; i < cap && !mtrace_too_old(t, &p->slots[i], MTRACE_EPOCHS - 1); i++)
        ;
    if (i < cap)
        mtrace_rehash(t, p, mtrace_p_class(p), (unsigned)p->key & MTRACE_KEY_HASHED, MTRACE_EPOCHS - 1);
}

/* The set of epoch e, if it lists all the ranges e left tombstones in. */
static struct mtrace_epoch_set *mtrace_set_of(struct mtrace_table *t, uint64_t e)
{
    struct mtrace_epoch_set *s = t->sets ? &t->sets[e % MTRACE_SETS] : 0;
    return s && s->epoch == e + 1 ? s : 0;
}

/* More than MTRACE_FREED_MAX tombstones: forgets those of the oldest
   epochs, all but the last MTRACE_EPOCHS - 1, so that at most 15/16 of
   the budget stay (the frees of an epoch number budget/16).  Reads the
   ranges the epochs to forget are listed with, or, where one of them is
   not listed (before the sets began, or too many ranges), the whole
   table.  The whole table each time was a scan of every live block per
   budget/16 frees: 37 % of the time of a program that builds and frees a
   tree of 5 M nodes (bench/bigtree.c). */
static void mtrace_forget_oldest(struct mtrace_table *t)
{
    uint64_t e, last = t->epoch_no - (MTRACE_EPOCHS - 1);  /* the newest to forget */
    size_t r;
    int listed;
    if (t->epoch_no < MTRACE_EPOCHS - 1 || last < t->clean_below)
        return;                 /* none that old */
    listed = last - t->clean_below < MTRACE_SETS;
    for (e = t->clean_below; listed && e <= last; e++)
        listed = mtrace_set_of(t, e) != 0;
    if (!listed)
        for (r = 0; r < t->n; r++)
            mtrace_forget_in(t, &t->dir[r]);
    else
        for (e = t->clean_below; e <= last; e++) {
            const uint64_t *range = mtrace_set_of(t, e)->range;
            for (r = 0; r < MTRACE_SET_SLOTS; r++)
                if (range[r])
                    mtrace_forget_in(t, mtrace_range_find(t, (uintptr_t)((range[r] - 1) << MTRACE_RANGE_BITS)));
        }
    t->clean_below = last + 1;
}

/* Range r (+ 1) has a tombstone of the current epoch: in its set. */
static void mtrace_list_range(struct mtrace_table *t, uint64_t r)
{
    struct mtrace_epoch_set *s = mtrace_set_of(t, t->epoch_no);
    size_t i = (size_t)(r * 0x9E3779B97F4A7C15ULL >> 40) & (MTRACE_SET_SLOTS - 1);
    t->last_listed = r;
    if (!s)
        return;
    while (s->range[i] && s->range[i] != r)
        i = (i + 1) & (MTRACE_SET_SLOTS - 1);
    if (s->range[i])
        return;
    if (++s->n > MTRACE_SET_SLOTS / 2)
        s->epoch = 0;           /* too many: this epoch is not listed */
    else
        s->range[i] = r;
}

/* A new epoch begins: its set, empty (the oldest one's place). */
static void mtrace_set_begin(struct mtrace_table *t)
{
    struct mtrace_epoch_set *s = &t->sets[t->epoch_no % MTRACE_SETS];
    memset(s->range, 0, sizeof s->range);
    s->n = 0;
    s->epoch = t->epoch_no + 1;
}

/* A tombstone was just made at addr: counts it in its epoch, and keeps to
   the budget.  The sets are mapped once half of it is used: a program
   that reuses its addresses, as most do, never needs them; the epoch
   under way when they begin is not listed. */
static MTRACE_HOT void mtrace_tombstone_made(struct mtrace_table *t, uintptr_t addr)
{
    uint64_t r = mtrace_range_no(addr) + 1;
    if (t->sets && r != t->last_listed)
        mtrace_list_range(t, r);
    if (--t->epoch_left == 0) {
        t->epoch = (t->epoch + 1) & MTRACE_EPOCH_MASK;
        t->epoch_no++;
        t->epoch_left = mt.freed_max / MTRACE_EPOCHS;
        t->last_listed = 0;
        if (t->sets)
            mtrace_set_begin(t);
    }
    if (++t->nfreed > mt.freed_max)
        mtrace_forget_oldest(t);
    else if (!t->sets && t->nfreed >= mt.freed_max / 2)
        t->sets = (struct mtrace_epoch_set *)mtrace_pages(MTRACE_SETS * sizeof *t->sets);
}

/* Slots from `from` forward to `to` in a bucket of `cap`, wrapping. */
static MTRACE_HOT size_t mtrace_dist(size_t from, size_t to, size_t cap)
{
    return to >= from ? to - from : to + cap - from;
}

/* A range's first block: its directory entry and a bucket of 2. */
static struct mtrace_range *mtrace_new_range(struct mtrace_table *t, uintptr_t addr)
{
    struct mtrace_range *p;
    struct mtrace_block *b;
    if ((t->nranges + 1) * 2 > t->n && !mtrace_grow_dir(t))
        return 0;
    if (!(b = mtrace_bucket_new(t, 0)))
        return 0;
    p = mtrace_range_find(t, addr);
    p->key = mtrace_range_no(addr) << MTRACE_KEY_RANGE;
    p->slots = b;
    t->nranges++;
    return p;
}

/* The entry for addr, or the empty slot where it goes, which the caller
   fills (room made, counted in its range); 0 if the tables cannot grow.
   A new entry more than MTRACE_CROWDED slots past its home (a range
   whose blocks crowd into part of it, a pool of tiny ones) grows its
   bucket: homes spread with the size, and probes stay short. */
#define MTRACE_CROWDED 8
static MTRACE_HOT struct mtrace_block *mtrace_claim(struct mtrace_table *t, uintptr_t addr)
{
    struct mtrace_range *p;
    struct mtrace_block *b;
    size_t cap;
    if (mtrace_range_no(addr) >> (64 - MTRACE_KEY_RANGE) || (!t->dir && !mtrace_grow_dir(t)))
        return 0;
    p = mtrace_range_find(t, addr);
    if (!p->slots && !(p = mtrace_new_range(t, addr)))
        return 0;
    b = mtrace_in_bucket(p, addr);
    if (b->addr)
        return b;
    cap = mtrace_cap(mtrace_p_class(p));
    if ((mtrace_p_used(p) + 1) * 4 > cap * 3
        || mtrace_dist(mtrace_home(p->key, addr, cap), (size_t)(b - p->slots), cap) > MTRACE_CROWDED) {
        if (!mtrace_grow_bucket(t, p, (mtrace_p_used(p) + 1) * 4 <= cap * 3))
            return 0;
        b = mtrace_in_bucket(p, addr);
    }
    p->key += (uint64_t)1 << MTRACE_KEY_USED;
    return b;
}

#ifdef MTRACE_INTERPOSE         /* only the interposers forget a block */
/* Removes an entry, shifting back the ones that probed past it.  Its
   range keeps its bucket, for the blocks the C library puts there next. */
static void mtrace_erase(struct mtrace_table *t, struct mtrace_block *b)
{
    struct mtrace_range *p = mtrace_range_find(t, mtrace_b_addr(b));
    struct mtrace_block *s = p->slots;
    size_t cap = mtrace_cap(mtrace_p_class(p)), i = (size_t)(b - s), j = i;
    if (mtrace_freed(b))
        t->nfreed--;
    else
        t->nlive--;
    p->key -= (uint64_t)1 << MTRACE_KEY_USED;
    for (;;) {
        size_t home;
        if (++j == cap)
            j = 0;
        if (!s[j].addr)
            break;
        home = mtrace_home(p->key, mtrace_b_addr(&s[j]), cap);
        if (mtrace_dist(home, j, cap) >= mtrace_dist(i, j, cap)) {
            s[i] = s[j];
            i = j;
        }
    }
    s[i].addr = 0;
    s[i].word = 0;
}
#endif

/* The live block of table t that holds address p (not at its start), or
   0.  Blocks under 64 KiB that hold p start in p's range or the one
   before; larger ones up to the largest the table ever held, found range
   by range (or, when there are fewer ranges than that, by reading the
   directory).  Only for an address the table does not know. */
static struct mtrace_block *mtrace_holder(struct mtrace_table *t, uintptr_t p)
{
    uint64_t r = mtrace_range_no(p), reach = (t->largest >> MTRACE_RANGE_BITS) + 1, k;
    size_t i, j;
    for (k = 0; t->dir && k <= reach && k <= r; k++) {
        struct mtrace_range *q;
        if (reach > t->nranges) {               /* read the directory instead */
            for (i = 0; i < t->n; i++)
                for (j = 0; t->dir[i].slots && r - (t->dir[i].key >> MTRACE_KEY_RANGE) <= reach
                     && j < mtrace_cap(mtrace_p_class(&t->dir[i])); j++) {
                    struct mtrace_block *b = &t->dir[i].slots[j];
                    if (mtrace_live(b) && mtrace_b_addr(b) < p && p - mtrace_b_addr(b) < mtrace_b_size(b))
                        return b;
                }
            return 0;
        }
        q = mtrace_range_find(t, (uintptr_t)((r - k) << MTRACE_RANGE_BITS));
        for (j = 0; q->slots && j < mtrace_cap(mtrace_p_class(q)); j++) {
            struct mtrace_block *b = &q->slots[j];
            if (mtrace_live(b) && mtrace_b_addr(b) < p && p - mtrace_b_addr(b) < mtrace_b_size(b))
                return b;
        }
    }
    return 0;
}

/* The entries one after the other, in no order: live blocks and
   tombstones; 0 at the end.  *range and *slot start at 0. */
static struct mtrace_block *mtrace_next_block(struct mtrace_table *t, size_t *range, size_t *slot)
{
    for (; *range < t->n; (*range)++, *slot = 0) {
        struct mtrace_range *p = &t->dir[*range];
        if (p->slots)
            while (*slot < mtrace_cap(mtrace_p_class(p)))
                if (p->slots[(*slot)++].addr)
                    return &p->slots[*slot - 1];
    }
    return 0;
}

/* Forgets every block; the memory stays. */
static void mtrace_clear(struct mtrace_table *t)
{
    size_t i;
    for (i = 0; i < t->n; i++)
        if (t->dir[i].slots)
            mtrace_bucket_free(t, t->dir[i].slots, mtrace_p_class(&t->dir[i]));
    if (t->dir)
        memset(t->dir, 0, t->n * sizeof *t->dir);
    t->nranges = t->nlive = t->nfreed = 0;
    t->clean_below = t->epoch_no;
}

/* A forked child's table (runtime/life.c): it starts empty, for the
   blocks that will be its own, and the parent's, as it was at fork,
   becomes what it inherited: the blocks its parent had live (freeing one
   is silent, mtrace_bury: it is not the child's) and those it had freed
   (freeing one again is a double free, as it would have been in the
   parent).  Moved, not copied or rewritten: the parent's table stays
   where fork left it, shared with the parent until written, so a fork
   costs nothing per block (a child that execs at once writes none of it).
   Generations stack up to MTRACE_GENERATIONS, newest first; older ones
   are forgotten, as if the grandparent had never freed them.  The child's
   own table grows its directory at its first block (mtrace_claim). */
#define MTRACE_GENERATIONS 8
static void mtrace_inherit(struct mtrace_table *t)
{
    struct mtrace_table *was = (struct mtrace_table *)mtrace_pages(sizeof *was), *g;
    unsigned n;
    if (!was) {                 /* no room: forget the parent's blocks */
        mtrace_clear(t);
        return;
    }
    *was = *t;
    memset(t, 0, sizeof *t);
    t->inherited = was;
    /* n counts the generations kept, was (the parent's) the first; the
       link past the last kept is cut, and the walk stops there (it would
       step onto what it cut) */
    for (g = was, n = 0; g->inherited; g = g->inherited)
        if (++n == MTRACE_GENERATIONS) {
            g->inherited = 0;
            break;
        }
}

/* The entry for addr: table t's own (live, a tombstone, or empty), or,
   where t has none, that of the newest generation t inherited that knows
   addr; *heir is then that generation's table (t's own: t).  Never 0. */
static struct mtrace_block *mtrace_lookup(struct mtrace_table *t, uintptr_t addr, struct mtrace_table **heir)
{
    struct mtrace_block *b = t->dir ? mtrace_find(t, addr) : &mtrace_no_block, *g;
    struct mtrace_table *from;
    *heir = t;
    for (from = t->inherited; !b->addr && from; from = from->inherited)
        if (from->dir && (g = mtrace_find(from, addr))->addr) {
            b = g;
            *heir = from;
        }
    return b;
}

/* The live block of t, or of a generation it inherited, that holds
   address p (not at its start), or 0: see mtrace_holder. */
static struct mtrace_block *mtrace_holder_any(struct mtrace_table *t, uintptr_t p)
{
    struct mtrace_block *b = 0;
    for (; t && !b; t = t->inherited)
        b = mtrace_holder(t, p);
    return b;
}

/* An inherited live block b, freed by its child for the first time: a
   tombstone from now on, freed at `by`, with nothing to count or record
   (the block was never the child's). */
static void mtrace_bury(struct mtrace_block *b, unsigned by)
{
    b->word = (uint64_t)by << (MTRACE_SITE_BITS + 1) | MTRACE_FREED | mtrace_b_site(b);
}
