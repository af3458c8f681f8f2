# tracelite: a loadable SQLite extension that queries trace files in place.
#
#   make            build tracelite.so
#   make demo       install missing build dependencies (Debian), build, run sample queries
#   make test       build and run the test suite
#   make check      the test suite under AddressSanitizer + UndefinedBehaviorSanitizer
#   make lint       the layering, size and unchecked-load rules (docs/architecture.md)
#   make conformance  compare with the reference tools' outputs on ../shared/peer-traces
#   make fuzz       libFuzzer targets (clang), FUZZ_TIME seconds each
#   make bench      benchmarks against the peer tools (see README)
#   make install    PREFIX=/usr/local DESTDIR=  (make uninstall removes it)

CC       ?= cc
CFLAGS   ?= -O2 -g
PREFIX   ?= /usr/local
DESTDIR  ?=
BUILD    ?= build
FUZZ_TIME ?= 60
PEER_TRACES ?= ../shared/peer-traces
PYTHON ?= /usr/bin/python3

WARN = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla \
       -Wformat=2 -Wundef -Wpointer-arith -Wcast-qual -Wcast-align \
       -Wwrite-strings -Wswitch-enum -Wno-format-nonliteral
override CFLAGS += -std=c11 -D_DEFAULT_SOURCE -fPIC -fvisibility=hidden \
                   -iquote src/base -Isrc -Ireaders $(WARN) -MMD -MP
# libiberty (static, built -fPIC) demangles C++ symbol names as perf does;
# its symbols are not exported from the extension
# LLVM's demangler (static, C++, built -fPIC) names XRay functions as
# llvm-xray does (src/model/demangle_llvm.cc); not exported either. The
# parts of libstdc++ it needs are linked in too (-Bstatic), not the shared
# library: loading libstdc++.so costs ~2.5 ms of every process that loads
# the extension. Those parts allocate a pool once when loaded, so the
# extension stays loaded once loaded (-z nodelete): a connection that closes
# does not unload it, and loading it again costs nothing and leaks nothing.
LLVM_DIR ?= /usr/lib/llvm-14
DEMANGLE_OBJ = $(BUILD)/src/model/demangle_llvm.o
# elfutils' libdw unwinds --call-graph dwarf stacks from their CFI, as perf
# does; it is not linked but loaded on first use (src/model/dwlib.h), so its
# headers are needed to build and libdw1 to unwind.
LDLIBS_SO = -lzstd -liberty -lpthread -lm -ldl $(DEMANGLE_OBJ) $(LLVM_DIR)/lib/libLLVMDemangle.a \
            -Wl,-Bstatic -lstdc++ -Wl,-Bdynamic
SO_LDFLAGS = -shared -static-libgcc -Wl,-z,relro,-z,now,-z,nodelete -Wl,--no-undefined \
             -Wl,--exclude-libs,libiberty.a -Wl,--exclude-libs,libLLVMDemangle.a \
             -Wl,--exclude-libs,libstdc++.a

# The layers, each using only those before it (docs/architecture.md):
# base, readers, model, engine (src/*.c), vtab.
BASE_SRC   = $(sort $(wildcard src/base/*.c))
READER_SRC = $(sort $(wildcard readers/*.c readers/*/*.c))
MODEL_SRC  = $(sort $(wildcard src/model/*.c))
CORE_SRC = $(BASE_SRC) $(READER_SRC) $(MODEL_SRC) src/trace.c src/count.c src/group.c src/formats.c src/merge.c src/group_vary.c src/derive.c
SQL_SRC  = src/vtab_util.c src/extension.c $(sort $(wildcard vtab/*.c)) src/percentile.c src/flamegraph.c
TEST_SRC = $(sort $(wildcard tests/*.c))

CORE_OBJ = $(CORE_SRC:%.c=$(BUILD)/%.o)
SQL_OBJ  = $(SQL_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ = $(TEST_SRC:%.c=$(BUILD)/%.o)

SO      = $(BUILD)/tracelite.so
TESTBIN = $(BUILD)/tltest

.PHONY: all test check demo install uninstall clean fuzz bench conformance check-headers replay threads lint

all: $(SO) tracelite.so

tracelite.so: $(SO)
	cp $(SO) $@

$(SO): $(CORE_OBJ) $(SQL_OBJ)
	$(CC) $(CFLAGS) $(SO_LDFLAGS) -o $@ $^ $(LDLIBS_SO)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

# The one C++ file: CFLAGS less the C-only ones
$(DEMANGLE_OBJ): src/model/demangle_llvm.cc
	@mkdir -p $(dir $@)
	$(CXX) $(filter-out -std=c11 -Wstrict-prototypes -Wmissing-prototypes,$(CFLAGS)) \
	  -std=c++17 -fno-exceptions -fno-rtti -I$(LLVM_DIR)/include -c -o $@ $<
$(SO) $(TESTBIN) $(BUILD)/replay $(BUILD)/replay-ctf-stream $(BUILD)/replay-ctf2-meta \
  $(BUILD)/replay-elf $(BUILD)/replay-sql fuzz: | $(DEMANGLE_OBJ)

$(BUILD)/tests/%.o: override CFLAGS += -Wno-missing-prototypes \
    -DTL_TESTDATA_DIR='"$(CURDIR)/testdata"' -DTL_BUILD_DIR='"$(CURDIR)/$(BUILD)"' \
    -DTL_PEER_DIR='"$(abspath $(PEER_TRACES))"' -DTL_PYTHON='"$(PYTHON)"' \
    -DTL_BUILD_NAME='"$(BUILD)"' -DTL_TEST_HOOKS

# The test binary's file source has a test hook (tl_test_poll_hook)
TEST_CORE_OBJ = $(filter-out $(BUILD)/src/base/source.o,$(CORE_OBJ)) $(BUILD)/tests/source_hooked.o
$(BUILD)/tests/source_hooked.o: src/base/source.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DTL_TEST_HOOKS -c -o $@ $<

$(TESTBIN): $(TEST_OBJ) $(TEST_CORE_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ -lcmocka -lsqlite3 $(LDLIBS_SO)

# The sql/ library runs through the sqlite3 shell (tests/sql_library.py),
# which cannot load a sanitizer build: only the plain build runs it. The
# whole suite is one cmocka run after it, so the output ends with cmocka's
# summary.
SQL_LIBRARY_TEST = $(if $(findstring -fsanitize,$(CFLAGS)),,yes)
test: CFLAGS += -Werror
test: $(SO) $(TESTBIN)
	$(PYTHON) tests/lint.py
	$(if $(SQL_LIBRARY_TEST),$(PYTHON) tests/sql_library.py --so $(SO))
	$(if $(SQL_LIBRARY_TEST),$(PYTHON) tests/test_fleet.py --so $(SO))
	$(if $(SQL_LIBRARY_TEST),$(PYTHON) tests/test_profile.py --so $(SO))
	$(if $(SQL_LIBRARY_TEST),sh tests/browser/run.sh $(SO))
	$(TESTBIN)

SAN_FLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all -DTL_CHECK_RECORDS
TSAN_FLAGS = -O1 -g -fsanitize=thread
check:
	$(PYTHON) tests/lint.py
	$(MAKE) BUILD=build-asan CFLAGS="$(SAN_FLAGS)" replay
	$(MAKE) BUILD=build-tsan CFLAGS="$(TSAN_FLAGS)" threads
	$(MAKE) BUILD=build-asan CFLAGS="$(SAN_FLAGS)" test

# The tests that share traces between threads, under ThreadSanitizer.
# (Address space randomization off where setarch can: ThreadSanitizer keeps
# its shadow at fixed addresses, and with randomization on one run in about
# fifteen here stopped with "ThreadSanitizer failed to allocate" (ENOMEM).)
NORAND := $(shell setarch $$(uname -m) -R true >/dev/null 2>&1 && echo "setarch $$(uname -m) -R")
threads: CFLAGS += -Werror
threads: $(SO) $(TESTBIN)
	TSAN_OPTIONS="halt_on_error=1 suppressions=$(CURDIR)/tests/tsan.supp" $(NORAND) $(TESTBIN) trace

# Replay the fuzz seeds and saved inputs through every reader (no libFuzzer).
REPLAY_DIRS = $(wildcard testdata/*/ testdata/*/*/ tests/fuzz/corpus/*/)
# The CTF stream target takes stream files (its metadata is fixed): its seeds
# in tests/fuzz/ctf-stream/ and what `make fuzz` saved for it.
CTF_STREAM_DIRS = $(wildcard tests/fuzz/ctf-stream/ build-fuzz/corpus-ctf-stream/)
# The CTF 2 metadata target takes metadata files.
CTF2_META_DIRS = $(wildcard tests/fuzz/ctf2-meta/ build-fuzz/corpus-ctf2-meta/)
# The ELF target takes binaries: the XRay test maps, the perf symbol test's
# program and what fuzzing found (tests/fuzz/elf/).
ELF_SEEDS = $(wildcard testdata/xray/*.elf testdata/perf/sym/symfs/tmp/tracelite-sym/symprog) \
            $(wildcard tests/fuzz/elf/*) \
            $(wildcard build-fuzz/corpus-elf/)
# The JIT map target takes /tmp/perf-PID.map files.
JITMAP_SEEDS = $(wildcard tests/fuzz/jitmap/ build-fuzz/corpus-jitmap/)
# The SQL target takes trace files of any format.
SQL_SEEDS = $(wildcard testdata/cpel/ testdata/perf/ testdata/xray/ build-fuzz/corpus-sql/)
# The unwinder target takes registers, a stack copy and an ELF file (fuzz_unwind.c).
UNWIND_SEEDS = $(wildcard tests/fuzz/unwind/ build-fuzz/corpus-unwind/)
FUZZ_COMMON = $(BUILD)/tests/fuzz/replay.o $(BUILD)/tests/fuzz/fuzz_drain.o $(BUILD)/tests/fileutil.o
$(BUILD)/replay: $(BUILD)/tests/fuzz/fuzz_trace.o $(FUZZ_COMMON) $(CORE_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS_SO)
$(BUILD)/replay-ctf-stream: $(BUILD)/tests/fuzz/fuzz_ctf_stream.o $(FUZZ_COMMON) $(CORE_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS_SO)
$(BUILD)/replay-ctf2-meta: $(BUILD)/tests/fuzz/fuzz_ctf2_meta.o $(FUZZ_COMMON) $(CORE_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS_SO)
$(BUILD)/replay-elf: $(BUILD)/tests/fuzz/fuzz_elf.o $(FUZZ_COMMON) $(CORE_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS_SO)
$(BUILD)/replay-jitmap: $(BUILD)/tests/fuzz/fuzz_jitmap.o $(FUZZ_COMMON) $(CORE_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS_SO)
$(BUILD)/replay-unwind: $(BUILD)/tests/fuzz/fuzz_unwind.o $(FUZZ_COMMON) $(CORE_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS_SO)
# SQL through the extension linked in (SQLITE_CORE: direct calls, no loading).
$(BUILD)/replay-sql: tests/fuzz/fuzz_sql.c $(SQL_SRC) $(FUZZ_COMMON) $(CORE_OBJ)
	$(CC) $(CFLAGS) -DSQLITE_CORE -o $@ $^ -lsqlite3 $(LDLIBS_SO)
replay: $(BUILD)/replay $(BUILD)/replay-ctf-stream $(BUILD)/replay-ctf2-meta $(BUILD)/replay-elf $(BUILD)/replay-sql \
        $(BUILD)/replay-jitmap \
        $(BUILD)/replay-unwind
	$(BUILD)/replay $(REPLAY_DIRS)
	$(BUILD)/replay-ctf-stream $(CTF_STREAM_DIRS)
	$(BUILD)/replay-ctf2-meta $(CTF2_META_DIRS)
	$(BUILD)/replay-elf $(ELF_SEEDS)
	$(BUILD)/replay-sql $(SQL_SEEDS)
	$(BUILD)/replay-jitmap $(JITMAP_SEEDS)
	$(BUILD)/replay-unwind $(UNWIND_SEEDS)

conformance: $(SO)
	@if [ -d "$(PEER_TRACES)" ]; then \
	  $(PYTHON) tests/conformance.py --so $(SO) --peer "$(PEER_TRACES)"; \
	else echo "conformance: $(PEER_TRACES) not found, nothing to compare"; fi

demo:
	@sh tests/deps.sh
	$(MAKE) all
	@sh tests/demo.sh ./tracelite.so

# The extension in LIBDIR; the sql/ library and the Python example in
# DATADIR. DESTDIR is prepended to both (staged installs, packages).
LIBDIR  ?= $(PREFIX)/lib
DATADIR ?= $(PREFIX)/share/tracelite
SQL_FILES = $(wildcard sql/*.sql)
# The Python package (python/tracelite) where PYTHON finds it: Debian's
# dist-packages of /usr, or of PREFIX for its python3.X.
PY_FILES = $(wildcard python/tracelite/*.py)
PYVER = $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])')
PYDIR ?= $(if $(filter /usr,$(PREFIX)),$(PREFIX)/lib/python3/dist-packages,$(PREFIX)/lib/python$(PYVER)/dist-packages)
install: $(SO)
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(DATADIR)/sql $(DESTDIR)$(DATADIR)/examples
	install -m 0755 $(SO) $(DESTDIR)$(LIBDIR)/tracelite.so
	install -m 0644 $(SQL_FILES) $(DESTDIR)$(DATADIR)/sql/
	install -m 0755 examples/query.py $(DESTDIR)$(DATADIR)/examples/query.py
	install -d $(DESTDIR)$(PYDIR)/tracelite
	install -m 0644 $(PY_FILES) $(DESTDIR)$(PYDIR)/tracelite/
	printf "SO = '%s'\nSQL_DIR = '%s'\n" '$(LIBDIR)/tracelite.so' '$(DATADIR)/sql' \
	  > $(DESTDIR)$(PYDIR)/tracelite/_install.py

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/tracelite.so $(DESTDIR)$(DATADIR)/examples/query.py
	rm -f $(addprefix $(DESTDIR)$(DATADIR)/sql/,$(notdir $(SQL_FILES)))
	-rmdir $(DESTDIR)$(DATADIR)/sql $(DESTDIR)$(DATADIR)/examples $(DESTDIR)$(DATADIR) 2>/dev/null
	rm -f $(addprefix $(DESTDIR)$(PYDIR)/tracelite/,$(notdir $(PY_FILES)) _install.py)
	rm -rf $(DESTDIR)$(PYDIR)/tracelite/__pycache__
	-rmdir $(DESTDIR)$(PYDIR)/tracelite $(DESTDIR)$(PYDIR) $(dir $(DESTDIR)$(PYDIR)) 2>/dev/null

# The layering, size and unchecked-load rules (docs/architecture.md).
lint:
	$(PYTHON) tests/lint.py

check-headers:
	@for h in src/base/*.h src/model/*.h src/*.h readers/*.h readers/*/*.h; do \
	  [ -f "$$h" ] || continue; \
	  echo "#include \"$$h\"" | $(CC) -std=c11 -fsyntax-only -iquote src/base -Isrc -Ireaders -I. -x c - || exit 1; \
	done; echo "headers ok"

# One libFuzzer target per reader: FUZZ_TIME seconds each, seeds from
# testdata/<format>/, new inputs kept in build-fuzz/corpus-<format>/.
FUZZ_FORMATS ?= $(filter $(notdir $(wildcard testdata/*)),cpel perf ctf xray)
FUZZ_CC ?= clang
FUZZ_FLAGS = -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -DTL_CHECK_RECORDS -iquote src/base -Isrc -Ireaders -D_DEFAULT_SOURCE
# libFuzzer checks each input that allocates more than it frees for leaks;
# LeakSanitizer's own check at exit is left out: its thread-stopping tracer
# at times crashes there ("Tracer caught signal 11"), after every run passed.
fuzz: export LSAN_OPTIONS = leak_check_at_exit=0
fuzz:
	@mkdir -p build-fuzz
	@for f in $(FUZZ_FORMATS); do \
	  echo "fuzz: $$f ($(FUZZ_TIME) s)"; \
	  $(FUZZ_CC) $(FUZZ_FLAGS) -DTL_FUZZ_FORMAT='"'$$f'"' -o build-fuzz/fuzz_$$f \
	    tests/fuzz/fuzz_trace.c tests/fuzz/fuzz_drain.c $(CORE_SRC) $(LDLIBS_SO) || exit 1; \
	  mkdir -p build-fuzz/corpus-$$f; \
	  dict=""; [ -f tests/fuzz/$$f.dict ] && dict="-dict=tests/fuzz/$$f.dict"; \
	  build-fuzz/fuzz_$$f -max_total_time=$(FUZZ_TIME) -rss_limit_mb=1024 $$dict \
	    build-fuzz/corpus-$$f testdata/$$f || exit 1; \
	done
	@echo "fuzz: ctf-stream ($(FUZZ_TIME) s)"
	$(FUZZ_CC) $(FUZZ_FLAGS) -o build-fuzz/fuzz_ctf_stream \
	  tests/fuzz/fuzz_ctf_stream.c tests/fuzz/fuzz_drain.c $(CORE_SRC) $(LDLIBS_SO)
	@mkdir -p build-fuzz/corpus-ctf-stream
	build-fuzz/fuzz_ctf_stream -max_total_time=$(FUZZ_TIME) -rss_limit_mb=1024 \
	  -dict=tests/fuzz/ctf.dict build-fuzz/corpus-ctf-stream tests/fuzz/ctf-stream
	@echo "fuzz: ctf2-meta ($(FUZZ_TIME) s)"
	$(FUZZ_CC) $(FUZZ_FLAGS) -o build-fuzz/fuzz_ctf2_meta \
	  tests/fuzz/fuzz_ctf2_meta.c $(CORE_SRC) $(LDLIBS_SO)
	@mkdir -p build-fuzz/corpus-ctf2-meta
	build-fuzz/fuzz_ctf2_meta -max_total_time=$(FUZZ_TIME) -rss_limit_mb=1024 \
	  -dict=tests/fuzz/ctf2-meta.dict build-fuzz/corpus-ctf2-meta tests/fuzz/ctf2-meta
	@echo "fuzz: elf ($(FUZZ_TIME) s)"
	$(FUZZ_CC) $(FUZZ_FLAGS) -o build-fuzz/fuzz_elf tests/fuzz/fuzz_elf.c $(CORE_SRC) $(LDLIBS_SO)
	@mkdir -p build-fuzz/corpus-elf build-fuzz/seeds-elf
	@cp $(filter-out build-fuzz/%,$(ELF_SEEDS)) build-fuzz/seeds-elf/
	build-fuzz/fuzz_elf -max_total_time=$(FUZZ_TIME) -rss_limit_mb=1024 build-fuzz/corpus-elf build-fuzz/seeds-elf
	@echo "fuzz: jitmap ($(FUZZ_TIME) s)"
	$(FUZZ_CC) $(FUZZ_FLAGS) -o build-fuzz/fuzz_jitmap tests/fuzz/fuzz_jitmap.c $(CORE_SRC) $(LDLIBS_SO)
	@mkdir -p build-fuzz/corpus-jitmap
	build-fuzz/fuzz_jitmap -max_total_time=$(FUZZ_TIME) -rss_limit_mb=1024 build-fuzz/corpus-jitmap tests/fuzz/jitmap
	@echo "fuzz: sql ($(FUZZ_TIME) s)"
	$(FUZZ_CC) $(FUZZ_FLAGS) -DSQLITE_CORE -o build-fuzz/fuzz_sql tests/fuzz/fuzz_sql.c \
	  $(SQL_SRC) $(CORE_SRC) -lsqlite3 $(LDLIBS_SO)
	@mkdir -p build-fuzz/corpus-sql
	build-fuzz/fuzz_sql -max_total_time=$(FUZZ_TIME) -rss_limit_mb=2048 build-fuzz/corpus-sql \
	  testdata/cpel testdata/perf testdata/xray
	@echo "fuzz: unwind ($(FUZZ_TIME) s)"
	$(FUZZ_CC) $(FUZZ_FLAGS) -o build-fuzz/fuzz_unwind tests/fuzz/fuzz_unwind.c $(CORE_SRC) $(LDLIBS_SO)
	@mkdir -p build-fuzz/corpus-unwind
	build-fuzz/fuzz_unwind -max_total_time=$(FUZZ_TIME) -timeout=10 -rss_limit_mb=1024 \
	  build-fuzz/corpus-unwind tests/fuzz/unwind

# Traces recorded for the benchmark go here (kept between runs); BENCH_SCALE
# (full, the default, or small) sizes them. See tests/bench/run.sh.
BENCH_DATA ?= /tmp/tracelite-bench
bench: $(SO) tracelite.so
	BENCH_DATA='$(BENCH_DATA)' BENCH_SCALE='$(BENCH_SCALE)' BENCH_ONLY='$(BENCH_ONLY)' sh tests/bench/run.sh

clean:
	rm -rf build build-asan build-tsan build-fuzz tracelite.so

-include $(CORE_OBJ:.o=.d) $(SQL_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(wildcard $(BUILD)/tests/fuzz/*.d) $(wildcard $(BUILD)/tests/source_hooked.d)
