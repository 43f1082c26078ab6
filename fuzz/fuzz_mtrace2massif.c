/* libFuzzer harness for mtrace2massif: the first byte picks the options,
 * the rest is the trace.  Besides the sanitizers' checks, every Massif file
 * written is checked for the properties Massif's readers rely on: no '#'
 * except the snapshot separators, every tree node at most its snapshot's
 * total, the root equal to mem_heap_B, exactly the right number of child
 * lines, at most one peak.  Build and run: fuzz/mtrace2massif.sh. */
#define MTRACE2MASSIF_NO_MAIN
#include "../mtrace2massif.c"

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
    c->o.quiet = 1;
    c->name = "fuzz";
    /* the parser reads up to PAD bytes past the end */
    char *buf = malloc(size - 1 + PAD);
    memcpy(buf, data + 1, size - 1);
    memset(buf + size - 1, 0, PAD);
    struct input in = { .fd = -1, .mem = buf, .memlen = size - 1 };
    char *out = NULL;
    size_t outlen = 0;
    FILE *mf = open_memstream(&out, &outlen);
    int rc = convert(c, &in, mf, (sel & 128) ? devnull : NULL, "fuzz", "fuzz.out");
    fclose(mf);
    if (rc == 0)
        check_output(out, outlen);
    free(out);
    free(buf);
    free(c);
    return 0;
}
