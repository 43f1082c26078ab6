# mtrace - compile-time heap tracer.  `make` builds the tools, `make test` runs
# every suite, `make demo` traces the Massif manual's example program.
CC      ?= cc
CFLAGS  ?= -O2 -g
WARN     = -Wall -Wextra
VERSION  = 1.0
PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR      ?= $(PREFIX)/bin
INCLUDEDIR  ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(PREFIX)/share/pkgconfig
MANDIR      ?= $(PREFIX)/share/man
MAN1 = doc/ms_print.1 doc/mtrace2massif.1 doc/mtrace-cc.1
MAN7 = doc/mtrace.7

LIBDIR      ?= $(PREFIX)/lib
TOOLS = ms_print mtrace2massif
LIBS  = libmtrace.so libmtrace.a

TEST_CFLAGS ?= -g -O1
export CC TEST_CFLAGS

all: $(TOOLS) $(LIBS)

# The runtime: mtrace.c includes runtime/*, one concern a file.  Compiled
# once, the shared library exports only mtrace_*, pmtrace and the
# allocator's names, and is never unloaded (-z nodelete: a traced plugin
# closed with dlclose must not take the runtime with it).
RUNTIME = mtrace.c mtrace.h $(wildcard runtime/*.c runtime/*.h)
mtrace.pic.o: $(RUNTIME)
	$(CC) $(CFLAGS) $(WARN) -fPIC -fvisibility=hidden -DMTRACE_RUNTIME -c -o $@ mtrace.c
libmtrace.so: mtrace.pic.o
	$(CC) $(CFLAGS) -shared -Wl,-soname,libmtrace.so -Wl,-z,nodelete -o $@ mtrace.pic.o $(LDFLAGS)
libmtrace.a: mtrace.pic.o
	rm -f $@ && ar rcs $@ mtrace.pic.o

# The converters, in convert/: mtrace2massif's stages (m2m.h says which)
# and ms_print's parts (ms_print_lib.h), each with its thin main, and tool.c,
# which both share.  The programs are built here at the top, where the
# README and users' scripts run them.
M2M_SRC = convert/m2m_files.c convert/m2m_convert.c convert/m2m_parse.c convert/m2m_heap.c \
	convert/m2m_snap.c convert/m2m_stack.c convert/m2m_sym.c convert/m2m_out.c \
	convert/m2m_gnuplot.c convert/m2m_ranks.c
MSP_SRC = convert/ms_print_run.c convert/ms_print_graph.c convert/ms_print_body.c \
	convert/ms_print_read.c convert/ms_print_out.c convert/ms_print_pnum.c
mtrace2massif: convert/mtrace2massif.c $(M2M_SRC) convert/m2m.h convert/tool.c convert/tool.h
	$(CC) $(CFLAGS) $(WARN) -o $@ convert/mtrace2massif.c $(M2M_SRC) convert/tool.c $(LDFLAGS)
ms_print: convert/ms_print.c $(MSP_SRC) convert/ms_print_lib.h convert/ms_print_pnum.h convert/tool.c convert/tool.h
	$(CC) $(CFLAGS) $(WARN) -o $@ convert/ms_print.c $(MSP_SRC) convert/tool.c $(LDFLAGS)

# The whole suite (tests/*.sh), with the grand total on the last line.
test: all
	tests/run.sh

# The same suite with every program, traced ones included, under ASan+UBSan.
SANITIZE = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
# LeakSanitizer stays off: the traced programs leak on purpose (that is
# what mtrace reports, after LSan's own exit handler would have run).
# The sanitized build is cleaned away even when a test fails (left behind,
# it would be what the next plain `make test` links).
test-sanitize:
	$(MAKE) clean
	ASAN_OPTIONS=detect_leaks=0 $(MAKE) test CFLAGS="$(SANITIZE)" TEST_CFLAGS="$(SANITIZE)"; \
	status=$$?; $(MAKE) clean; exit $$status

# Trace the Massif manual's example, then show it as Massif would.
demo: examples/example all
	cd examples && MTRACE=example.trace ./example; echo "exit status: $$?"
	@echo "--- last lines of examples/example.trace:"
	@tail -n 6 examples/example.trace
	./mtrace2massif --time-unit=B examples/example.trace
	./ms_print examples/massif.out.example.trace | head -40

examples/example: examples/example.c $(RUNTIME)
	$(CC) -g $(WARN) -DMTRACE=1 -include ./mtrace.h -o $@ examples/example.c

# Single suites: `make test SUITES="tracer ms_print"`, or these.
test-ecosystem: all
	bash tests/ecosystem.sh
# The two model checks run in `make test` with bounded seeds (about 20 s
# each); these run longer: random programs against the tracer's model
# (tests/model), random traces and Massif files against the converters'
# (tests/convmodel).  A failure prints its seed and a shrunk reproducer.
MODEL_SEEDS ?= 100
test-model-long: all
	bash tests/model/run.sh --long $(MODEL_SEEDS)
CONVMODEL_SEEDS ?= 2000
test-convmodel-long: mtrace2massif ms_print
	bash tests/convmodel/run.sh --long $(CONVMODEL_SEEDS)

# libFuzzer + ASan/UBSan (clang) on both tools, FUZZ_SECONDS each.
FUZZ_SECONDS ?= 600
fuzz: fuzz-ms_print fuzz-mtrace2massif
fuzz-ms_print:
	fuzz/ms_print.sh $(FUZZ_SECONDS)
fuzz-mtrace2massif:
	fuzz/mtrace2massif.sh $(FUZZ_SECONDS)

# Benchmarks of the tools alone (bench/run.sh runs them too): ours against
# /usr/bin/ms_print on a >= 50 MB Massif file; mtrace2massif's records/s.
BENCH_RECORDS ?= 100000000
# The suites' mutation check (tests/mutate/run.sh): each change listed in
# tests/mutate/mutants.txt made to a copy of the tree, built, and run
# against the suites that should catch it; fails below 95% caught or when
# a change no longer applies to the source.  About 13 minutes on 2 idle
# cores.  `make mutate MUTANTS="peak-recno budget-mega"` runs some.
mutate:
	tests/mutate/run.sh $(MUTANTS)
.PHONY: mutate

bench-ms_print:
	bench/ms_print.sh $(BENCH_RUNS)
bench-mtrace2massif: mtrace2massif
	bench/mtrace2massif.sh $(BENCH_RECORDS)

# --- bench ---
# `make bench [BENCH_RUNS=5]`: the workloads of issue 6 (bench/run.sh) timed
# uninstrumented, at MTRACE=3, 2 and 1, and under heaptrack and Massif when
# installed, then the tool benchmarks (skipped with a note when their inputs
# cannot be made); about 4 minutes on an idle machine.  `make bench-quick`:
# one round at small sizes, about a minute.
bench:
	bench/run.sh
bench-quick:
	bench/run.sh --quick
# the call stacks of issue 13 alone (MTRACE_DEPTH unset, 8, 30; bench/README.md)
bench-stacks:
	BENCH_ONLY=stacks BENCH_TOOLS=0 bench/run.sh
bench-build:
	LUA_SRC="$(LUA_SRC)" bench/build.sh
# the floors apart from the tracer: exact order with threads, level 1's writing, a side table's miss
bench-floor: libmtrace.so
	bench/floor.sh
.PHONY: bench bench-quick bench-stacks bench-floor
# --- end bench ---

# The runtime as one file, as SQLite ships its amalgamation: mtrace.c with
# each #include "runtime/..." replaced by that file, so that an installed
# or vendored one-line use needs the header and this file only.
build/mtrace.c: $(RUNTIME) runtime/amalgamate.awk
	@mkdir -p build
	awk -f runtime/amalgamate.awk mtrace.c > $@.tmp && mv $@.tmp $@

# The header and its runtime source side by side (the one-line use includes
# "mtrace.c" from the header's directory; the amalgamation, build/mtrace.c),
# libmtrace.so and .a, the tools, mtrace-cc (told where the header and
# library are), the man pages and mtrace.pc.  `make uninstall` removes
# exactly those files.
install: all build/mtrace.c
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7
	install -m 644 mtrace.h build/mtrace.c $(DESTDIR)$(INCLUDEDIR)/
	install -m 755 libmtrace.so $(DESTDIR)$(LIBDIR)/
	install -m 644 libmtrace.a $(DESTDIR)$(LIBDIR)/
	for t in $(TOOLS); do install -m 755 $$t $(DESTDIR)$(BINDIR)/ || exit 1; done
	sed -e "s|^installed_dir='@INCLUDEDIR@'|installed_dir='$(INCLUDEDIR)'|" \
		-e "s|^installed_libdir='@LIBDIR@'|installed_libdir='$(LIBDIR)'|" mtrace-cc > $(DESTDIR)$(BINDIR)/mtrace-cc
	chmod 755 $(DESTDIR)$(BINDIR)/mtrace-cc
	install -m 644 $(MAN1) $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(MAN7) $(DESTDIR)$(MANDIR)/man7/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' \
		-e 's|@INCLUDEDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))|g' \
		-e 's|@LIBDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))|g' \
		mtrace.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/mtrace.pc
	chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/mtrace.pc

uninstall:
	rm -f $(DESTDIR)$(INCLUDEDIR)/mtrace.h $(DESTDIR)$(INCLUDEDIR)/mtrace.c
	rm -f $(DESTDIR)$(LIBDIR)/libmtrace.so $(DESTDIR)$(LIBDIR)/libmtrace.a
	for t in $(TOOLS) mtrace-cc; do rm -f $(DESTDIR)$(BINDIR)/$$t; done
	rm -f $(patsubst doc/%,$(DESTDIR)$(MANDIR)/man1/%,$(MAN1))
	rm -f $(patsubst doc/%,$(DESTDIR)$(MANDIR)/man7/%,$(MAN7))
	rm -f $(DESTDIR)$(PKGCONFIGDIR)/mtrace.pc

clean:
	rm -f $(TOOLS) $(LIBS) mtrace.pic.o examples/example examples/example.trace examples/massif.out.example.trace
	rm -rf build

.PHONY: all test test-sanitize test-ecosystem test-model-long test-convmodel-long demo fuzz fuzz-ms_print fuzz-mtrace2massif \
	bench-ms_print bench-mtrace2massif install uninstall clean
