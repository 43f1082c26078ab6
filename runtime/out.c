/* SPDX-License-Identifier: MIT */
/* runtime/out.c - the tracer's text: every byte it writes goes through here.

   Owns: writing to a descriptor (async-signal-safe), decimal numbers, a
   bounded writer, file names built from the user's patterns (%p, %q{VAR},
   %%) and their faults, reading the start of a file, and the escaping of
   each reader: the trace's %XX names, gnuplot's quoted strings, a shell
   word, JSON strings and the JSON report's buffered writer.  One place
   for each escaping.
   May call: runtime/state.c. */

/* 0, or the errno of the write that failed (ENOSPC for one that wrote
   nothing). */
static int mtrace_write_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        long w = mtrace_write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? errno : ENOSPC;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

static void mtrace_say(const char *s)
{
    mtrace_write_all(2, s, strlen(s));
}

/* A name or value the user gave, in a warning: a control character, which
   would break the line, shows as '?'. */
static void mtrace_say_shown(const char *s)
{
    char buf[256];
    size_t n;
    while (*s) {
        for (n = 0; s[n] && n < sizeof buf; n++)
            buf[n] = (unsigned char)s[n] < ' ' || s[n] == 0x7f ? '?' : s[n];
        mtrace_write_all(2, buf, n);
        s += n;
    }
}

/* Decimal digits, two at a time from the right: the trace is mostly
   numbers, and this is where level 1 spends its time.  The length comes
   from comparisons; the digits from 32-bit divisions when they fit. */
static char *mtrace_put_u(char *o, size_t v)
{
    static const char pairs[] =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
        "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
        "8081828384858687888990919293949596979899";
    static const uint64_t tens[] = { 1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL,
        1000000ULL, 10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
        100000000000ULL, 1000000000000ULL, 10000000000000ULL, 100000000000000ULL,
        1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
        1000000000000000000ULL, 10000000000000000000ULL };
    unsigned n = 1, r;
    uint32_t w;
    char *end;
    if (v) {        /* log10 from log2: 1233/4096 ~ log10(2), then one compare */
        unsigned t = (unsigned)(64 - __builtin_clzll((unsigned long long)v)) * 1233 >> 12;
        n = t + ((uint64_t)v >= tens[t]);
    }
    end = o + n;
    o = end;
    while ((uint64_t)v > 0xffffffffULL) {
        r = (unsigned)(v % 100);
        v /= 100;
        o -= 2;
        o[0] = pairs[2 * r];
        o[1] = pairs[2 * r + 1];
    }
    for (w = (uint32_t)v; w >= 100; w /= 100) {
        r = w % 100;
        o -= 2;
        o[0] = pairs[2 * r];
        o[1] = pairs[2 * r + 1];
    }
    if (w >= 10) {
        o[-2] = pairs[2 * w];
        o[-1] = pairs[2 * w + 1];
    } else
        o[-1] = (char)('0' + w);
    return end;
}

/* A bounded writer: every name the runtime builds goes through it, and
   what does not fit is noticed (`cut`), never written past the end. */
struct mtrace_out { char *o, *end; int cut; };

static void mtrace_out(struct mtrace_out *w, const char *s, size_t n)
{
    if ((size_t)(w->end - w->o) < n) {
        n = (size_t)(w->end - w->o);
        w->cut = 1;
    }
    memcpy(w->o, s, n);
    w->o += n;
}

static void mtrace_out_u(struct mtrace_out *w, size_t v)
{
    char digits[24];
    mtrace_out(w, digits, (size_t)(mtrace_put_u(digits, v) - digits));
}

/* What is wrong with a file name pattern of the user's (MTRACE,
   MTRACE_REPORT), as Valgrind's --log-file and Massif's --massif-out-file
   judge one: a '%' must begin %p, %q{VAR} with VAR set, or %%.  0 if
   nothing is; else why, written into why (cap bytes), for a warning: such
   a name is refused, never kept literally. */
static const char *mtrace_name_fault(const char *name, char *why, size_t cap)
{
    const char *close;
    char var[256];
    for (; *name; name++) {
        if (name[0] != '%')
            continue;
        if (name[1] == 'p' || name[1] == '%') {
            name++;
            continue;
        }
        if (name[1] == 0)
            snprintf(why, cap, "a '%%' at its end (%%%% is a '%%')");
        else if (name[1] != 'q' && (unsigned char)name[1] > ' ' && (unsigned char)name[1] < 0x7f)
            snprintf(why, cap, "%%%c is not %%p, %%q{VAR} or %%%% (%%%% is a '%%')", name[1]);
        else if (name[1] != 'q')
            snprintf(why, cap, "a '%%' then byte 0x%02x is not %%p, %%q{VAR} or %%%%", (unsigned char)name[1]);
        else if (name[2] != '{')
            snprintf(why, cap, "%%q without {VAR}");
        else if (!(close = strchr(name + 3, '}')))
            snprintf(why, cap, "%%q{ without its '}'");
        else if (close == name + 3)
            snprintf(why, cap, "%%q{} names no variable");
        else if (close - name - 3 >= (long)sizeof var)
            snprintf(why, cap, "%%q{...} names a variable longer than %u bytes", (unsigned)sizeof var - 1);
        else {
            memcpy(var, name + 3, (size_t)(close - name - 3));
            var[close - name - 3] = 0;
            if (mtrace_getenv(var)) {
                name = close;
                continue;
            }
            snprintf(why, cap, "%%q{%.100s}: that variable is not set", var);
        }
        return why;
    }
    return 0;
}

/* A file name from a user's pattern, into dst (cap bytes): %p the pid,
   %q{VAR} the value of $VAR and %% a '%' (as Massif's --massif-out-file),
   made absolute (the gnuplot lines must work from any directory) from
   dir, or when dir is 0 from the current directory, plus
   "-r" for MPI rank r > 0, plus ".PID" for a forked child whose name has
   no %p.  0 if it does not fit, or if the pattern is faulty
   (mtrace_name_fault says why): never a cut name, never a literal '%'
   sequence. */
static int mtrace_build_name(char *dst, size_t cap, const char *name, const char *dir)
{
    const char *v, *close;
    struct mtrace_out w;
    char var[256];
    int has_pid = 0;
    w.o = dst;
    w.end = dst + cap - 1;
    w.cut = 0;
    if (mtrace_name_fault(name, var, sizeof var)) {
        *dst = 0;
        return 0;
    }
    if (name[0] != '/') {
        if (dir ? strlen(dir) >= cap - 1 : !mtrace_getcwd(dst, cap - 1))
            w.cut = 1;
        else {
            if (dir)
                strcpy(dst, dir);
            if ((w.o += strlen(dst)) > dst + 1)
                mtrace_out(&w, "/", 1);
        }
    }
    for (; *name && !w.cut; name++) {
        if (name[0] == '%' && name[1] == 'p') {
            mtrace_out_u(&w, (size_t)mt.pid);
            has_pid = 1;
            name++;
        } else if (name[0] == '%' && name[1] == '%') {
            mtrace_out(&w, "%", 1);
            name++;
        } else if (name[0] == '%') {            /* %q{VAR}, VAR set: checked above */
            close = strchr(name, '}');
            memcpy(var, name + 3, (size_t)(close - name - 3));
            var[close - name - 3] = 0;
            if ((v = mtrace_getenv(var)))
                mtrace_out(&w, v, strlen(v));
            name = close;
        } else
            mtrace_out(&w, name, 1);
    }
    if (mt.rank > 0) {
        mtrace_out(&w, "-", 1);
        mtrace_out_u(&w, (size_t)mt.rank);
    }
    if (mt.child && !has_pid) {
        mtrace_out(&w, ".", 1);
        mtrace_out_u(&w, (size_t)mt.pid);
    }
    *w.o = 0;
    if (w.cut)
        *dst = 0;
    return !w.cut;
}

/* The start of a file, at most cap - 1 bytes, NUL-terminated: its length,
   or -1 (errno says why).  Async-signal-safe. */
static long mtrace_read_file(const char *path, char *buf, size_t cap)
{
    long n = 0, got;
    int fd = mtrace_open(path, O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    while ((size_t)n < cap - 1 && (got = mtrace_read(fd, buf + n, cap - 1 - (size_t)n)) > 0)
        n += got;
    mtrace_close(fd);
    buf[n] = 0;
    return n;
}

/* FUNC and FILE must stay one token: blanks, control characters and '%'
   become %XX. */
static char *mtrace_put_name(char *o, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    const char *end = s + strnlen(s, MTRACE_NAMEMAX);
    for (; s < end; s++) {
        unsigned char c = (unsigned char)*s;
        if (c <= ' ' || c == '%' || c == 0x7f) {
            *o++ = '%';
            *o++ = hex[c >> 4];
            *o++ = hex[c & 15];
        } else
            *o++ = (char)c;
    }
    return o;
}

/* A gnuplot string that gnuplot cannot interpret: single quotes, in which
   only a doubled quote means anything (in double quotes gnuplot runs
   `backquoted` text as a shell command).  A control character, which
   would end the line, shows as '?'. */
static char *mtrace_put_quoted(char *o, const char *s)
{
    const char *end = s + strnlen(s, MTRACE_NAMEMAX);
    *o++ = '\'';
    for (; s < end; s++) {
        if (*s == '\'')
            *o++ = '\'';
        *o++ = (unsigned char)*s < ' ' || *s == 0x7f ? '?' : *s;
    }
    *o++ = '\'';
    return o;
}

/* prefix s suffix as one shell word, into dst (4 * their length + 3
   bytes): as it is when it holds only characters no shell interprets,
   else in single quotes, each ' written '\'' (copy and paste safe). */
static void mtrace_shell_word(char *dst, const char *prefix, const char *s, const char *suffix)
{
    static const char safe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./+,:=@%-";
    const char *parts[3];
    const char *c;
    int i, plain = 1;
    parts[0] = prefix;
    parts[1] = s;
    parts[2] = suffix;
    for (i = 0; i < 3; i++)
        for (c = parts[i]; *c; c++)
            plain = plain && strchr(safe, *c);
    if (!plain)
        *dst++ = '\'';
    for (i = 0; i < 3; i++)
        for (c = parts[i]; *c; c++) {
            if (*c == '\'' && !plain) {
                memcpy(dst, "'\\''", 4);
                dst += 4;
            } else
                *dst++ = *c;
        }
    if (!plain)
        *dst++ = '\'';
    *dst = 0;
}

/* A buffered writer to a file descriptor, for the JSON report: `err`
   keeps the errno of the first write that failed (later ones are not
   tried). */
struct mtrace_fout { int fd, err; size_t n; char buf[8192]; };

static void mtrace_fput(struct mtrace_fout *f, const char *s, size_t n)
{
    while (n > 0) {
        size_t room = sizeof f->buf - f->n, k = n < room ? n : room;
        memcpy(f->buf + f->n, s, k);
        f->n += k;
        s += k;
        n -= k;
        if (f->n == sizeof f->buf) {
            if (!f->err)
                f->err = mtrace_write_all(f->fd, f->buf, f->n);
            f->n = 0;
        }
    }
}

static void mtrace_fputs(struct mtrace_fout *f, const char *s)
{
    mtrace_fput(f, s, strlen(s));
}

/* A JSON string: quotes, backslashes, control characters and bytes above
   0x7f escaped (\u00XX), so the file is valid JSON whatever the names. */
static void mtrace_fput_json(struct mtrace_fout *f, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    const char *end = s + strnlen(s, MTRACE_NAMEMAX);
    mtrace_fput(f, "\"", 1);
    for (; s < end; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            char e[2];
            e[0] = '\\';
            e[1] = (char)c;
            mtrace_fput(f, e, 2);
        } else if (c < 0x20 || c >= 0x7f) {
            char e[6];
            memcpy(e, "\\u00", 4);
            e[4] = hex[c >> 4];
            e[5] = hex[c & 15];
            mtrace_fput(f, e, 6);
        } else
            mtrace_fput(f, s, 1);
    }
    mtrace_fput(f, "\"", 1);
}

/* "  \"key\": number" with the separator before it. */
static void mtrace_fput_num(struct mtrace_fout *f, const char *key, size_t v, int last)
{
    char line[128];
    snprintf(line, sizeof line, "  \"%s\": %lu%s\n", key, (unsigned long)v, last ? "" : ",");
    mtrace_fputs(f, line);
}

