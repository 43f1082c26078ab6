# SPDX-License-Identifier: MIT
# mtrace - compile-time heap tracer.  `make` builds the tools, `make test` runs
# every suite, `make demo` traces the Massif manual's example program.
CC      ?= cc
CFLAGS  ?= -O2 -g
WARN     = -Wall -Wextra
VERSION  = 1.0
# This Makefile's own directory: bench/ builds libmtrace from a snapshot of
# the runtime's sources elsewhere (make -f TOP/Makefile), and the version
# script, libmtrace.map, stays here.
MAKEFILE_DIR := $(dir $(lastword $(MAKEFILE_LIST)))
PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR      ?= $(PREFIX)/bin
INCLUDEDIR  ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
MANDIR      ?= $(PREFIX)/share/man
MAN1 = doc/ms_print.1 doc/mtrace2massif.1 doc/mtrace-cc.1 doc/mtrace-diff.1 doc/mtrace-top.1
MAN7 = doc/mtrace.7

LIBDIR      ?= $(PREFIX)/lib
TOOLS = ms_print mtrace2massif mtrace-diff mtrace-top
LIBS  = libmtrace.so libmtrace.a
# The shared library: the real file, its soname (the major version: an
# incompatible change of the ABI makes it libmtrace.so.2, and programs
# linked with .so.1 keep theirs) and libmtrace.so, the link -lmtrace finds.
SOMAJOR = $(firstword $(subst ., ,$(VERSION)))
SONAME  = libmtrace.so.$(SOMAJOR)
SOFILE  = libmtrace.so.$(VERSION)
# The tools read traces and Massif files of any size, on 32-bit systems too.
TOOL_CC = $(CC) $(CPPFLAGS) -D_FILE_OFFSET_BITS=64 $(CFLAGS) $(WARN)
# dlopen, for libzstd when a compressed trace comes (convert/common/tool.c): in the
# C library since glibc 2.34 and in musl, where -ldl is an empty stub.
TOOL_LIBS = -ldl

TEST_CFLAGS ?= -g -O1
export CC TEST_CFLAGS

all: $(TOOLS) $(LIBS) mtrace-uninstalled.pc

# The runtime: mtrace.c includes runtime/*, one concern a file.  Compiled
# once, the shared library exports only mtrace_*, pmtrace and the
# allocator's names (libmtrace.map), and is never unloaded (-z nodelete: a
# traced plugin closed with dlclose must not take the runtime with it).
RUNTIME = mtrace.c mtrace.h $(wildcard runtime/*.c runtime/*.h)
mtrace.pic.o: $(RUNTIME)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -fPIC -fvisibility=hidden -DMTRACE_RUNTIME -c -o $@ mtrace.c
$(SOFILE): mtrace.pic.o $(MAKEFILE_DIR)libmtrace.map
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=$(MAKEFILE_DIR)libmtrace.map \
		-Wl,-z,nodelete -o $@ mtrace.pic.o
$(SONAME): $(SOFILE)
	ln -sf $(SOFILE) $@
libmtrace.so: $(SONAME)
	ln -sf $(SONAME) $@
libmtrace.a: mtrace.pic.o
	rm -f $@ && $(AR) rcs $@ mtrace.pic.o

# Is LIBDIR searched by the dynamic linker itself (a distribution's
# /usr/lib, /usr/lib64, /usr/lib/<triplet>)?  Then mtrace.pc and mtrace-cc
# add no rpath (distributions forbid one there); anywhere else they do, so
# that a traced program runs without LD_LIBRARY_PATH.
MULTIARCH = $(shell $(CC) -print-multiarch 2> /dev/null)
SYSTEM_LIBDIRS = /lib /usr/lib /lib64 /usr/lib64 /lib32 /usr/lib32 /libx32 /usr/libx32 \
	$(if $(MULTIARCH),/lib/$(MULTIARCH) /usr/lib/$(MULTIARCH))
RPATH = $(if $(filter $(patsubst %/,%,$(LIBDIR)),$(SYSTEM_LIBDIRS)),no,yes)
# mtrace.pc.in filled in: $(call pc_sed,PREFIX,INCLUDEDIR,LIBDIR,RPATH)
pc_sed = sed -e 's|@PREFIX@|$(1)|g' -e 's|@VERSION@|$(VERSION)|g' \
	-e 's|@INCLUDEDIR@|$(patsubst $(1)/%,$${prefix}/%,$(patsubst $(1),$${prefix},$(2)))|g' \
	-e 's|@LIBDIR@|$(patsubst $(1)/%,$${prefix}/%,$(patsubst $(1),$${prefix},$(3)))|g' \
	-e 's|@RPATH@|$(if $(filter yes,$(4)),-Wl$(comma)-rpath$(comma)$${libdir} )|g' mtrace.pc.in
comma = ,
# pkg-config from the source tree, after a plain `make`: with
# PKG_CONFIG_PATH=/path/to/tree, pkg-config prefers mtrace-uninstalled.pc
# (its convention for uninstalled packages).  Rewritten only when its text
# changes (a copy of the tree elsewhere gets its own paths).
mtrace-uninstalled.pc: FORCE
	@$(call pc_sed,$(CURDIR),$(CURDIR),$(CURDIR),yes) > $@.tmp && \
		if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
FORCE:

# The converters, in convert/, a folder each (convert/README.md): the
# tools (mtrace2massif/, ms_print/, mtrace-diff/, mtrace-top/, each with its thin main),
# what they share (common/: tool.c; trace/: the trace parser, which
# mtrace2massif and mtrace-diff drive with heap models of their own; html/:
# the pages).  tests/ci.sh checks that each folder uses only those its
# README.md allows.  The programs are built here at the top, where the
# README and users' scripts run them.
COMMON_SRC = convert/common/tool.c
COMMON_H   = convert/common/tool.h
TRACE_SRC  = convert/trace/parse.c convert/trace/stack.c convert/trace/sym.c convert/trace/segments.c
TRACE_H    = convert/trace/trace.h $(COMMON_H)
M2M_SRC = convert/mtrace2massif/m2m_files.c convert/mtrace2massif/m2m_convert.c \
	convert/mtrace2massif/m2m_heap.c convert/mtrace2massif/m2m_snap.c convert/mtrace2massif/m2m_out.c \
	convert/mtrace2massif/m2m_gnuplot.c convert/mtrace2massif/m2m_ranks.c convert/mtrace2massif/m2m_html.c \
	convert/mtrace2massif/m2m_html_data.c convert/html/m2m_html_page.c $(TRACE_SRC)
MSP_SRC = convert/ms_print/ms_print_run.c convert/ms_print/ms_print_graph.c convert/ms_print/ms_print_body.c \
	convert/ms_print/ms_print_read.c convert/ms_print/ms_print_out.c convert/ms_print/ms_print_pnum.c
# The pages' style and script (convert/html/, hand-written) as C strings.
# The made files are kept in the tree, so that a build without awk (or
# the fuzz harness) has them too.
convert/html/m2m_html_page.c: convert/html/page.css convert/html/common.js convert/html/page.js convert/html/run.js convert/html/embed.awk
	awk -f convert/html/embed.awk convert/html/page.css convert/html/common.js convert/html/page.js convert/html/run.js > $@.tmp && mv $@.tmp $@
convert/html/diff_html_page.c: convert/html/diff.css convert/html/diff.js convert/html/embed.awk
	awk -v out=diff_html_page.c -f convert/html/embed.awk convert/html/diff.css \
		convert/html/diff.js > $@.tmp && mv $@.tmp $@
mtrace2massif: convert/mtrace2massif/mtrace2massif.c $(M2M_SRC) convert/mtrace2massif/m2m.h $(TRACE_H) \
		convert/html/pages.h $(COMMON_SRC)
	$(TOOL_CC) -o $@ convert/mtrace2massif/mtrace2massif.c $(M2M_SRC) $(COMMON_SRC) $(LDFLAGS) $(TOOL_LIBS)
ms_print: convert/ms_print/ms_print.c $(MSP_SRC) convert/ms_print/ms_print_lib.h convert/ms_print/ms_print_pnum.h \
		$(COMMON_SRC) $(COMMON_H)
	$(TOOL_CC) -o $@ convert/ms_print/ms_print.c $(MSP_SRC) $(COMMON_SRC) $(LDFLAGS) $(TOOL_LIBS)
# mtrace-diff (convert/mtrace-diff/diff.h): its own parts, and the trace
# parser driving its own heap model; its page: its own script and style,
# and mtrace2massif's style.
DIFF_SRC = convert/mtrace-diff/diff_input.c convert/mtrace-diff/diff_run.c convert/mtrace-diff/diff_json.c \
	convert/mtrace-diff/diff_report.c convert/mtrace-diff/diff_trace.c convert/mtrace-diff/diff_table.c \
	convert/mtrace-diff/diff_html.c convert/html/diff_html_page.c convert/html/m2m_html_page.c $(TRACE_SRC)
mtrace-diff: convert/mtrace-diff/mtrace-diff.c $(DIFF_SRC) convert/mtrace-diff/diff.h $(TRACE_H) \
		convert/html/pages.h $(COMMON_SRC)
	$(TOOL_CC) -o $@ convert/mtrace-diff/mtrace-diff.c $(DIFF_SRC) $(COMMON_SRC) $(LDFLAGS) $(TOOL_LIBS)
# mtrace-top (convert/mtrace-top/top.h): traces followed as they grow,
# through the trace parser with a heap model of its own; the terminal
# with ANSI escapes only (-lm: floor and isfinite's helpers, where libm
# is apart).
TOP_SRC = convert/mtrace-top/top_follow.c convert/mtrace-top/top_show.c convert/mtrace-top/top_screen.c \
	$(TRACE_SRC)
mtrace-top: convert/mtrace-top/mtrace-top.c $(TOP_SRC) convert/mtrace-top/top.h convert/mtrace-top/top_screen.h \
		$(TRACE_H) $(COMMON_SRC)
	$(TOOL_CC) -o $@ convert/mtrace-top/mtrace-top.c $(TOP_SRC) $(COMMON_SRC) $(LDFLAGS) $(TOOL_LIBS) -lm

# The whole suite (tests/*.sh), with the grand total on the last line.
# tests/setup.sh first: it installs what the suites need (tests/packages.txt)
# when it may, or stops at once naming the packages.
test:
	tests/setup.sh
	$(MAKE) all
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

# The pictures of --html's page (doc/html-*.png, in the README, the guide and
# doc/mtrace2massif.md): the Massif manual's example traced with call
# stacks, converted, each view shot by headless Chromium (tests/html/).
screenshots: mtrace2massif
	@d=$$(mktemp -d) && top=$$(pwd) && \
	$(CC) -g -O0 -DMTRACE=1 -include ./mtrace.h -o $$d/example examples/example.c 2> /dev/null && \
	(cd $$d && MTRACE_DEPTH=8 MTRACE=example.trace ./example 2> /dev/null; \
	 $$top/mtrace2massif --time-unit=B --html=example.html example.trace) && \
	CDP_WIDTH=1100 node --experimental-websocket tests/html/cdp.js $$d/example.html \
		tests/html/shots.js doc html- > $$d/out; status=$$?; cat $$d/out; \
	grep -qx 'errors 0' $$d/out || status=1; rm -rf $$d; exit $$status

# doc/html-mpi.png: the page of examples/mpi.c's run under Open MPI, 4 ranks
screenshot-mpi: mtrace2massif
	@d=$$(mktemp -d) && top=$$(pwd) && \
	mpicc -g -O0 -DMTRACE=1 -include ./mtrace.h -o $$d/mpi examples/mpi.c && \
	(cd $$d && MTRACE=mpi.trace mpirun --allow-run-as-root --oversubscribe \
	 --mca orte_abort_on_non_zero_status 0 -np 4 ./mpi > /dev/null 2>&1; \
	 $$top/mtrace2massif --html=mpi.html mpi.trace mpi.trace-1 mpi.trace-2 mpi.trace-3 > /dev/null) && \
	CDP_WIDTH=1100 node --experimental-websocket tests/html/cdp.js $$d/mpi.html \
		tests/html/runshot.js doc/html-mpi.png > $$d/out; status=$$?; cat $$d/out; \
	grep -qx 'errors 0' $$d/out || status=1; rm -rf $$d; exit $$status

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
# The suites' mutation check (tests/mutate/run.sh, tests/mutate/README.md):
# mutants made to a copy of the tree, built, and run against the suites
# that should catch them.  `make mutate`: the hand-written regression list
# (tests/mutate/mutants.txt; fails below 95% caught or when a change no
# longer applies to the source, which `make test` checks too, in
# tests/ci.sh), then MUTATE_SAMPLE mutants made by rule over runtime/,
# mtrace.h and convert/ (tests/mutate/gen.py), a sample stratified by file
# that MUTATE_SEED reproduces: each run against its file's suites, then,
# if none kills it, the whole suite; the score by file and every survivor
# with its diff.  Hours on 2 loaded cores (the whole suite for each
# survivor); MUTATE_WHOLE=0 skips that step.  `make mutate-all`: every
# generated mutant (about 14000: days).  `make mutate-hand`: the list
# alone (about 13 minutes on 2 idle cores).  `make mutate MUTANTS="peak-recno
# account.c:rel:a3cf5e74"` runs some, hand-written or generated.
MUTATE_SAMPLE ?= 300
MUTATE_SEED ?= 1
mutate:
	tests/mutate/run.sh $(if $(MUTANTS),,--sample $(MUTATE_SAMPLE) --seed $(MUTATE_SEED)) $(MUTANTS)
mutate-all:
	tests/mutate/run.sh --all
mutate-hand:
	tests/mutate/run.sh
.PHONY: screenshot-mpi mutate mutate-all mutate-hand

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
# the build cost: one small file compiled the one-line way with gcc and
# clang at -O0, -O2, -O2 -g (bench/compile.sh alone: `make bench-compile
# [COMPILE_RUNS=5] [COMPILE_REVS="d430840 ..."]`, commits to compare with;
# about 4 minutes), then Lua built four ways (bench/build.sh, with LUA_SRC)
bench-build: bench-compile
	LUA_SRC="$(LUA_SRC)" bench/build.sh
bench-compile:
	bench/compile.sh
# the heap check against glibc's MALLOC_CHECK_, Electric Fence and ASan (bench/heapcheck.sh; in `make bench` too)
bench-heapcheck: libmtrace.so
	bench/heapcheck.sh
# the floors apart from the tracer: exact order with threads, level 1's writing, a side table's miss
bench-floor: libmtrace.so
	bench/floor.sh
# a traced new/delete pair beside malloc/free's, plain, levels 2 and 1, heaptrack (bench/cxx.sh; in `make bench` too)
bench-cxx:
	bench/cxx.sh
.PHONY: bench bench-quick bench-stacks bench-build bench-compile bench-floor bench-heapcheck bench-cxx
# --- end bench ---

# The runtime as one file, as SQLite ships its amalgamation: mtrace.c with
# each #include "runtime/..." replaced by that file, so that an installed
# or vendored one-line use needs the header and this file only.
build/mtrace.c: $(RUNTIME) runtime/amalgamate.awk
	@mkdir -p build
	awk -f runtime/amalgamate.awk mtrace.c > $@.tmp && mv $@.tmp $@

# make install: the header (PREFIX/include/mtrace.h) and, for the one-line
# use, the runtime as one file beside it in a directory of its own,
# PREFIX/include/mtrace/mtrace.c (the installed header includes
# "mtrace/mtrace.c": a bare mtrace.c in a shared include directory would not
# say whose it is); libmtrace.so.VERSION with its links .so.1 and .so, and
# libmtrace.a; the tools; mtrace-cc, told where the header and library are
# (absolute, and relative to BINDIR for a moved or staged tree) and whether
# to add an rpath; the man pages; LIBDIR/pkgconfig/mtrace.pc.  DESTDIR,
# PREFIX, BINDIR, INCLUDEDIR, LIBDIR, MANDIR and PKGCONFIGDIR are honoured;
# `make uninstall` removes exactly those files (and include/mtrace).
install: all build/mtrace.c
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(INCLUDEDIR)/mtrace $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7
	sed 's|^#include "mtrace.c"$$|#include "mtrace/mtrace.c"|' mtrace.h > $(DESTDIR)$(INCLUDEDIR)/mtrace.h
	grep -q '^#include "mtrace/mtrace.c"$$' $(DESTDIR)$(INCLUDEDIR)/mtrace.h
	chmod 644 $(DESTDIR)$(INCLUDEDIR)/mtrace.h
	install -m 644 build/mtrace.c $(DESTDIR)$(INCLUDEDIR)/mtrace/mtrace.c
	install -m 755 $(SOFILE) $(DESTDIR)$(LIBDIR)/
	ln -sf $(SOFILE) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libmtrace.so
	install -m 644 libmtrace.a $(DESTDIR)$(LIBDIR)/
	for t in $(TOOLS); do install -m 755 $$t $(DESTDIR)$(BINDIR)/ || exit 1; done
	sed -e "s|^installed_dir='@INCLUDEDIR@'|installed_dir='$(INCLUDEDIR)'|" \
		-e "s|^installed_libdir='@LIBDIR@'|installed_libdir='$(LIBDIR)'|" \
		-e "s|^rel_dir='@BINDIR_TO_INCLUDEDIR@'|rel_dir='$$(realpath -m --relative-to='$(BINDIR)' '$(INCLUDEDIR)')'|" \
		-e "s|^rel_libdir='@BINDIR_TO_LIBDIR@'|rel_libdir='$$(realpath -m --relative-to='$(BINDIR)' '$(LIBDIR)')'|" \
		-e "s|^rpath='@RPATH@'|rpath='$(RPATH)'|" mtrace-cc > $(DESTDIR)$(BINDIR)/mtrace-cc
	chmod 755 $(DESTDIR)$(BINDIR)/mtrace-cc
	ln -sf mtrace-cc $(DESTDIR)$(BINDIR)/mtrace-c++
	install -m 644 $(MAN1) $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(MAN7) $(DESTDIR)$(MANDIR)/man7/
	$(call pc_sed,$(PREFIX),$(INCLUDEDIR),$(LIBDIR),$(RPATH)) > $(DESTDIR)$(PKGCONFIGDIR)/mtrace.pc
	chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/mtrace.pc

uninstall:
	rm -f $(DESTDIR)$(INCLUDEDIR)/mtrace.h $(DESTDIR)$(INCLUDEDIR)/mtrace/mtrace.c
	-rmdir $(DESTDIR)$(INCLUDEDIR)/mtrace 2> /dev/null
	rm -f $(DESTDIR)$(LIBDIR)/$(SOFILE) $(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/libmtrace.so \
		$(DESTDIR)$(LIBDIR)/libmtrace.a
	for t in $(TOOLS) mtrace-cc mtrace-c++; do rm -f $(DESTDIR)$(BINDIR)/$$t; done
	rm -f $(patsubst doc/%,$(DESTDIR)$(MANDIR)/man1/%,$(MAN1))
	rm -f $(patsubst doc/%,$(DESTDIR)$(MANDIR)/man7/%,$(MAN7))
	rm -f $(DESTDIR)$(PKGCONFIGDIR)/mtrace.pc

# make dist: mtrace-VERSION.tar.gz, the files git tracks (and new ones it
# does not ignore; outside a git checkout, the MANIFEST of the tarball it
# came from).  make distcheck: that tarball unpacked in a temporary
# directory, built, installed into a DESTDIR, the examples built against the
# installed copy (the one-line use, pkg-config, mtrace-cc) and run, the
# tools run on their trace, uninstalled; fails if a file is left behind.
DIST = mtrace-$(VERSION)
dist:
	tests/packaging/dist.sh $(DIST)
distcheck: dist
	tests/packaging/distcheck.sh $(DIST).tar.gz

clean:
	rm -f $(TOOLS) $(LIBS) libmtrace.so.* mtrace-uninstalled.pc mtrace.pic.o examples/example examples/example.trace \
		examples/massif.out.example.trace $(DIST).tar.gz
	rm -rf build

.PHONY: all test test-sanitize test-ecosystem test-model-long test-convmodel-long demo screenshots fuzz fuzz-ms_print fuzz-mtrace2massif \
	bench-ms_print bench-mtrace2massif install uninstall clean dist distcheck FORCE
