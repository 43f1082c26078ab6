# mtrace - compile-time heap tracer.  `make` builds the tools, `make test` runs
# every suite, `make demo` traces the Massif manual's example program.
CC      ?= cc
CFLAGS  ?= -O2 -g
WARN     = -Wall -Wextra
PREFIX  ?= /usr/local
DESTDIR ?=

TOOLS = $(patsubst %.c,%,$(wildcard ms_print.c mtrace2massif.c))

TEST_CFLAGS ?= -g -O1
export CC TEST_CFLAGS

all: $(TOOLS)

%: %.c $(wildcard massif.h)
	$(CC) $(CFLAGS) $(WARN) -o $@ $< $(LDFLAGS)

# The whole suite (tests/*.sh), with the grand total on the last line.
test: all
	tests/run.sh

# The same suite with every program, traced ones included, under ASan+UBSan.
SANITIZE = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
test-sanitize:
	$(MAKE) clean
	$(MAKE) test CFLAGS="$(SANITIZE)" TEST_CFLAGS="$(SANITIZE)"
	$(MAKE) clean

# Trace the Massif manual's example: summary on stderr, then the trace's tail.
demo: examples/example
	cd examples && MTRACE=example.trace ./example; echo "exit status: $$?"
	@echo "--- last lines of examples/example.trace:"
	@tail -n 6 examples/example.trace

examples/example: examples/example.c mtrace.h mtrace.c
	$(CC) -g $(WARN) -DMTRACE=1 -include ./mtrace.h -o $@ examples/example.c

# --- ms_print ---
# `make fuzz-ms_print [FUZZ_SECONDS=600]`: libFuzzer + ASan/UBSan (clang);
# `make bench-ms_print [BENCH_RUNS=n]`: ours vs /usr/bin/ms_print on a
# >= 50 MB real Massif file (time ratio, peak RSS); 3 runs unless BENCH_RUNS
# is set (here or by the bench section).
FUZZ_SECONDS ?= 600
fuzz-ms_print:
	fuzz/ms_print.sh $(FUZZ_SECONDS)
fuzz: fuzz-ms_print
bench-ms_print:
	bench/ms_print.sh $(BENCH_RUNS)
bench: bench-ms_print
# the man page goes with the program
MANDIR ?= $(PREFIX)/share/man
install: install-ms_print-man
install-ms_print-man:
	install -d $(DESTDIR)$(MANDIR)/man1
	install -m 644 doc/ms_print.1 $(DESTDIR)$(MANDIR)/man1/
uninstall: uninstall-ms_print-man
uninstall-ms_print-man:
	rm -f $(DESTDIR)$(MANDIR)/man1/ms_print.1
.PHONY: fuzz fuzz-ms_print bench bench-ms_print install-ms_print-man uninstall-ms_print-man
# --- end ms_print ---

# --- mtrace2massif ---
# `make fuzz-mtrace2massif [FUZZ_SECONDS=600]`: libFuzzer + ASan/UBSan (clang);
# `make bench-mtrace2massif [BENCH_RECORDS=100000000]`: records/s, peak RSS.
FUZZ_SECONDS ?= 600
BENCH_RECORDS ?= 100000000
fuzz-mtrace2massif:
	fuzz/mtrace2massif.sh $(FUZZ_SECONDS)
fuzz: fuzz-mtrace2massif
bench-mtrace2massif: mtrace2massif
	bench/mtrace2massif.sh $(BENCH_RECORDS)
# the manual page goes with the binary
install: install-mtrace2massif-man
install-mtrace2massif-man:
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 644 doc/mtrace2massif.1 $(DESTDIR)$(PREFIX)/share/man/man1/
uninstall: uninstall-mtrace2massif-man
uninstall-mtrace2massif-man:
	rm -f $(DESTDIR)$(PREFIX)/share/man/man1/mtrace2massif.1
.PHONY: fuzz fuzz-mtrace2massif bench-mtrace2massif install-mtrace2massif-man uninstall-mtrace2massif-man
# --- end mtrace2massif ---

# --- bench ---
# `make bench [BENCH_RUNS=5]`: the workloads of issue 6 (bench/run.sh) timed
# uninstrumented, at MTRACE=3, 2 and 1, and under heaptrack and Massif when
# installed, then the tool benchmarks; about 10 minutes.  `make bench-quick`:
# one round at small sizes, about a minute.  When `bench` also depends on
# bench-ms_print (the ms_print section), make runs bench/ms_print.sh first
# and the runner is told not to run it a second time.
bench:
	bench/run.sh $(if $(filter bench-ms_print,$^),--ms-print-done)
bench-quick:
	bench/run.sh --quick
.PHONY: bench bench-quick
# --- end bench ---

# --- ecosystem ---
# `make install [PREFIX=/usr/local] [DESTDIR=]` installs the header and its
# runtime side by side in $(INCLUDEDIR) (mtrace.h includes "mtrace.c" from its
# own directory), the tools and mtrace-cc in $(BINDIR), the man pages, and
# $(PKGCONFIGDIR)/mtrace.pc made from mtrace.pc.in; `make uninstall` removes
# those files and nothing else (directories stay).  `make test-ecosystem`
# runs tests/ecosystem.sh alone (install test, recipes, examples, docs).
VERSION      = 1.0
BINDIR      ?= $(PREFIX)/bin
INCLUDEDIR  ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(PREFIX)/share/pkgconfig
MANDIR      ?= $(PREFIX)/share/man
ECO_MAN1     = doc/mtrace-cc.1
ECO_MAN7     = doc/mtrace.7
test-ecosystem: all
	bash tests/ecosystem.sh
.PHONY: test-ecosystem
# --- end ecosystem ---

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7
	install -m 644 mtrace.h mtrace.c $(DESTDIR)$(INCLUDEDIR)/
	for t in $(TOOLS); do install -m 755 $$t $(DESTDIR)$(BINDIR)/ || exit 1; done
	sed "s|^installed_dir='@INCLUDEDIR@'|installed_dir='$(INCLUDEDIR)'|" mtrace-cc > $(DESTDIR)$(BINDIR)/mtrace-cc
	chmod 755 $(DESTDIR)$(BINDIR)/mtrace-cc
	install -m 644 $(ECO_MAN1) $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(ECO_MAN7) $(DESTDIR)$(MANDIR)/man7/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' \
		-e 's|@INCLUDEDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))|g' \
		mtrace.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/mtrace.pc
	chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/mtrace.pc

uninstall:
	rm -f $(DESTDIR)$(INCLUDEDIR)/mtrace.h $(DESTDIR)$(INCLUDEDIR)/mtrace.c
	for t in $(TOOLS) mtrace-cc; do rm -f $(DESTDIR)$(BINDIR)/$$t; done
	rm -f $(patsubst doc/%,$(DESTDIR)$(MANDIR)/man1/%,$(ECO_MAN1))
	rm -f $(patsubst doc/%,$(DESTDIR)$(MANDIR)/man7/%,$(ECO_MAN7))
	rm -f $(DESTDIR)$(PKGCONFIGDIR)/mtrace.pc

clean:
	rm -f $(TOOLS) examples/example examples/example.trace
	rm -rf build

.PHONY: all test test-sanitize demo install uninstall clean
