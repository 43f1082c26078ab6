/* SPDX-License-Identifier: MIT */
/* bench/common.h - what every benchmark workload shares: a seeded random
   generator, a checksum accumulator, argument parsing and the result line.

   Every workload is deterministic: its output depends only on its
   arguments, never on addresses, timing or the thread schedule, so the
   same checksum must come out of the uninstrumented build and of every
   MTRACE level.  A difference means the tracer changed the program. */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* xorshift64*: fast, good enough for sizes and slots, and its sequence is
   fixed by the seed on every platform. */
typedef struct { uint64_t s; } rng_t;

static inline void rng_seed(rng_t *r, uint64_t seed)
{
    /* a zero state would stay zero */
    r->s = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    if (r->s == 0)
        r->s = 1;
}

static inline uint64_t rng_next(rng_t *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 0x2545F4914F6CDD1Dull;
}

/* Uniform in [0, n): the high bits of a 64x32 product, no division. */
static inline uint32_t rng_below(rng_t *r, uint32_t n)
{
    return (uint32_t)(((rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

/* Order-dependent mixing of 64-bit values into a running checksum. */
static inline uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h * 0xFF51AFD7ED558CCDull;
}

/* FNV-1a over a byte string, for checksums of text. */
static inline uint64_t hash_bytes(const void *p, size_t n)
{
    const unsigned char *c = (const unsigned char *)p;
    uint64_t h = 0xCBF29CE484222325ull;
    while (n--)
        h = (h ^ *c++) * 0x100000001B3ull;
    return h;
}

/* Argument i as a positive count, or the default when absent. */
static inline long arg_long(int argc, char **argv, int i, long dflt)
{
    long v;
    if (argc <= i)
        return dflt;
    v = strtol(argv[i], NULL, 10);
    if (v <= 0) {
        fprintf(stderr, "bad count '%s'\n", argv[i]);
        exit(2);
    }
    return v;
}

/* The runner reads these two lines: the checksum must be equal across
   builds, ops is the number of allocator calls (for per-operation costs). */
static inline void report(uint64_t checksum, uint64_t ops)
{
    printf("checksum %016llx\nops %llu\n", (unsigned long long)checksum,
           (unsigned long long)ops);
}

static inline void *xcheck(void *p)
{
    if (!p) {
        fputs("out of memory\n", stderr);
        exit(3);
    }
    return p;
}
#endif
