# cordon: one non-recursive Makefile.  Everything is built into build/.
#
#   make            the launcher build/cordon
#   make test       the documents' and the layering's checks, unit tests
#                   (Criterion), then integration tests on the real
#                   kernel, as root and as an unprivileged user
#   make check      the layering check, the tests under ASan+UBSan, the
#                   banned-function check, the format check, a short
#                   fuzzing run
#   make fuzz       fuzz the parsers (FUZZ_SECONDS each, default 30)
#   make bench      cordon's cost beside bare, bubblewrap and firejail
#                   (scripts/bench/run.sh; results in doc/bench/)
#   make kernels    the kernel matrix: Debian's kernels (5.10 to 7.x)
#                   booted under QEMU, cordon run in each as root and as a
#                   user (scripts/kernels/; KERNELS="5.10 6.1" picks some;
#                   table in doc/kernels.md); not part of `make test`
#   make install    PREFIX (/usr/local) and DESTDIR honoured
#   make deps       install the Debian packages the build and tests need

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib/cordon
MANDIR ?= $(PREFIX)/share/man
B ?= build
Q ?= @

CC ?= cc
OPT ?= -O2 -g
WARN = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wformat=2 -Wformat-security -Wpointer-arith \
	-Wundef -Wwrite-strings -Wvla -Wnull-dereference -Wcast-align \
	-Wimplicit-fallthrough
CPPFLAGS += -D_GNU_SOURCE -iquote . -MMD -MP
CFLAGS += -std=c11 $(OPT) $(WARN) -fstack-protector-strong \
	-D_FORTIFY_SOURCE=2 -fno-strict-aliasing
# Sanitizers apply to the launcher and the tests; libcordon.so is built
# without them (an ASan runtime cannot be preloaded into other programs);
# its shared logic runs under them in the unit tests.
SAN ?=
SHIM_BASE_CFLAGS := $(CFLAGS)
CFLAGS += $(SAN)
LDFLAGS += $(SAN)

# The policy core (shim/core/): what both layers share, linked into the
# launcher and (built -fPIC) into the shim; it includes nothing of
# either.  Every include names its file from the top of the tree.  Its
# *_darwin.c files are macOS's (below).
SHARED_SRCS = $(filter-out %_darwin.c,$(wildcard shim/core/*.c))
# enforce/ is one folder per subsystem (doc/layout.md; the order they
# may call each other in is scripts/layers.txt).  main.c alone is at
# its top.  macOS's own files end in _darwin.c; the Seatbelt renderer
# (enforce/darwin/sbpl*.c) is built everywhere, for its unit tests.
ENFORCE_SRCS = $(filter-out %_darwin.c,$(wildcard enforce/*/*.c))
CORE_OBJS = $(patsubst %.c,$(B)/obj/%.o,$(SHARED_SRCS) $(ENFORCE_SRCS)) \
	$(GEN_OBJS)
# The seccomp programs (enforce/linux/filters.c), built with libseccomp when
# cordon is built, not at each start (scripts/filtergen.c).
GEN_SRCS = $(B)/gen/filters_compiled.c
GEN_OBJS = $(B)/obj/gen/filters_compiled.o
FILTERGEN_OBJS = $(B)/obj/enforce/linux/filters.o $(B)/obj/shim/core/sockrule_linux.o \
	$(B)/obj/shim/core/strbuf.o
# The launcher is linked statically (static-pie: still randomised): no
# loader, no libc to map and relocate: about 1.4 ms of each start here
# (make bench; the loader's own start costs every dynamic program ~0.6
# ms on these machines).  ld warns that getpwuid (a fallback when $HOME
# is unset) and libcap-ng's initgroups need the same glibc's NSS
# modules at run time: they are those of the machine that built it.
# Under sanitizers (make check) it stays dynamic.  The other programs
# (tests, helpers) link the four libraries statically.  libevent_core
# is the egress proxy's loop (enforce/proxy/proxy_loop.c); Debian's libevent_core.a
# is built -fPIE, so the static-pie launcher takes it as it is.
LIBS = -Wl,-Bstatic -lseccomp -ljansson -lcap-ng -levent_core -lresolv \
	-Wl,-Bdynamic -lpthread
ifeq ($(SAN),)
CORDON_LDFLAGS = -static-pie
CORDON_LIBS = -lseccomp -ljansson -lcap-ng -levent_core -lresolv -lpthread
else
CORDON_LDFLAGS =
CORDON_LIBS = $(LIBS)
endif

# The shim: every shim/ file, plus the Landlock layer for standalone use.
# What every process runs at start-up comes first: state.c's state then
# starts the .bss, on the page of .data that ld.so touches anyway
# (shim.h), and the start-up code with the hooks' resolvers shares the
# first 64 KB of text that one page fault maps (fault-around).
SHIM_FIRST = shim/state.c shim/init.c shim/real.c shim/core/snapshot.c shim/core/strbuf.c \
	shim/core/env.c shim/exec_env.c shim/exec_env_linux.c shim/guard.c shim/cwd.c \
	$(wildcard shim/hook_*.c)
SHIM_SRCS = $(SHIM_FIRST) \
	$(filter-out $(SHIM_FIRST),$(wildcard shim/*.c) $(SHARED_SRCS))
SHIM_OBJS = $(patsubst %.c,$(B)/pic/%.o,$(SHIM_SRCS))
SHIM_LIB = $(B)/libcordon.so
# No fortify or stack-protector imports: they would raise the glibc the
# shim needs above the 2.2.5 baseline (shim/baseline.h).
SHIM_CFLAGS = -fPIC -fvisibility=hidden -ftls-model=initial-exec \
	-U_FORTIFY_SOURCE -fno-stack-protector -include shim/baseline.h
# What the loader does for the shim in every process (doc/bench/notes.md):
# its own calls bound inside it (-Bsymbolic-functions: no PLT slot, no
# lookup at load, for a hook it calls itself), and its code and
# read-only data in one segment (-z noseparate-code: two mappings, not
# four, each an mmap through the sandbox's filter and Landlock, and no
# page of headers or .rodata faulted in apart).  The price is that the
# shim's read-only data is executable in the command's processes: a
# hardening of the program against its own inputs, not of cordon's
# boundary, which is the kernel's.
SHIM_LDFLAGS = -shared -nostartfiles -Wl,-z,defs -Wl,-z,initfirst -Wl,-z,now \
	-Wl,-Bsymbolic-functions -Wl,-z,noseparate-code \
	-Wl,--version-script=shim/shim.map
EXPORT_LISTS = $(wildcard shim/exports/*.list)

UNIT_SRCS = $(wildcard tests/unit/test_*.c)
UNIT_BINS = $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRCS))
HELPER_SRCS = $(wildcard tests/helpers/*.c)
HELPER_BINS = $(patsubst tests/helpers/%.c,$(B)/helpers/%,$(HELPER_SRCS))
FUZZ_SRCS = $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS = $(patsubst tests/fuzz/%.c,$(B)/fuzz/%,$(FUZZ_SRCS))
FUZZ_SECONDS ?= 30

# ---- macOS ----------------------------------------------------------------
# The same tree on Darwin (clang, Xcode's Command Line Tools, jansson and
# Criterion from Homebrew): Seatbelt (enforce/darwin/) in place of
# Landlock, seccomp, capabilities and namespaces; the shim is
# libcordon.dylib, interposed by dyld (shim/darwin/).  The Linux-only
# sources are left out here; the shared ones build against
# shim/core/compat (doc/macos.md).  Nothing above changes on Linux.
ifeq ($(shell uname -s),Darwin)
ifeq ($(origin CC),default)
CC = clang
endif
BREW := $(shell brew --prefix 2>/dev/null)
CPPFLAGS += -idirafter shim/core/compat \
	-include shim/core/compat/linux_compat.h \
	$(if $(BREW),-I$(BREW)/include)
LDFLAGS += $(if $(BREW),-L$(BREW)/lib)
LIBS = -ljansson
CORDON_LDFLAGS =
CORDON_LIBS = $(LIBS)
LINUX_ONLY = shim/core/landlock.c shim/core/sockrule_linux.c \
	shim/lookup_linux.c shim/real.c shim/guard.c \
	$(wildcard enforce/linux/*.c enforce/broker/*.c) \
	$(filter-out enforce/probe/probe_mode.c,$(wildcard enforce/probe/*.c)) \
	$(filter-out enforce/proxy/proxy_parse.c enforce/proxy/proxy_rules.c \
		enforce/proxy/netclass.c,$(wildcard enforce/proxy/*.c)) \
	shim/exec_env_linux.c shim/core/preload_linux.c shim/standalone.c \
	$(wildcard shim/hook_*.c)
GEN_SRCS =
GEN_OBJS =
SHARED_SRCS := $(filter-out $(LINUX_ONLY),$(SHARED_SRCS)) \
	shim/core/compat_darwin.c shim/core/preload_darwin.c
ENFORCE_SRCS := $(filter-out $(LINUX_ONLY),$(ENFORCE_SRCS)) \
	$(wildcard enforce/*/*_darwin.c)
SHIM_SRCS := $(filter-out $(LINUX_ONLY),$(wildcard shim/*.c shim/core/*.c)) \
	$(wildcard shim/darwin/*.c)
SHIM_LIB = $(B)/libcordon.dylib
SHIM_CFLAGS = -fPIC -fvisibility=hidden -DCORDON_DYLIB
SHIM_LDFLAGS = -dynamiclib -Wl,-undefined,error \
	-Wl,-install_name,$(LIBDIR)/libcordon.dylib
endif

.PHONY: all test unit integration check fuzz install clean deps format kernels toolchains \
	check-format check-banned check-layers check-docs bench compat suites
.DEFAULT_GOAL := all

all: $(B)/cordon $(SHIM_LIB)

$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(B)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC [M]  $<"
	$(Q)$(CC) $(CPPFLAGS) $(SHIM_BASE_CFLAGS) $(SHIM_CFLAGS) -c -o $@ $<

$(SHIM_LIB): $(SHIM_OBJS) shim/shim.map
	@echo "  LD [M]  $@"
	$(Q)$(CC) $(SHIM_LDFLAGS) -o $@ $(SHIM_OBJS)

$(B)/filtergen: scripts/filtergen.c $(FILTERGEN_OBJS)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

$(B)/gen/filters_compiled.c: $(B)/filtergen
	@mkdir -p $(dir $@)
	@echo "  GEN     $@"
	$(Q)$(B)/filtergen $@

$(B)/obj/gen/%.o: $(B)/gen/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(B)/libcore.a: $(CORE_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/cordon: $(B)/obj/enforce/main.o $(B)/libcore.a
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS) $(CORDON_LDFLAGS) -o $@ $^ $(CORDON_LIBS)

$(B)/tests/%: tests/unit/%.c $(B)/libcore.a
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -Wno-missing-prototypes -Wno-write-strings \
		$(LDFLAGS) \
		-o $@ $< $(B)/libcore.a $(LIBS) -lcriterion

# test_real: shim/real.c in a preloaded library of its own (realprobe.so)
# beside dlsym(RTLD_NEXT), for every name of the hooks' REAL_FN lines
# (scripts/real-table.sh), alone and with realother.so, which defines
# them all.  Never sanitized: they are preloaded.
$(B)/gen/real_table.h $(B)/gen/realother.c: scripts/real-table.sh \
		$(wildcard shim/hook_*.c)
	@mkdir -p $(B)/gen
	@echo "  GEN     $@"
	$(Q)scripts/real-table.sh > $(B)/gen/real_table.h
	$(Q)scripts/real-table.sh -c > $(B)/gen/realother.c
$(B)/tests/realprobe.so: tests/unit/realprobe.c shim/real.c $(B)/gen/real_table.h
	@mkdir -p $(dir $@)
	@echo "  CC [M]  $@"
	$(Q)$(CC) $(CPPFLAGS) -iquote $(B)/gen $(SHIM_BASE_CFLAGS) $(SHIM_CFLAGS) \
		-Wno-missing-prototypes -shared -o $@ tests/unit/realprobe.c \
		shim/real.c -ldl
$(B)/tests/realother.so: $(B)/gen/realother.c
	@mkdir -p $(dir $@)
	@echo "  CC [M]  $@"
	$(Q)$(CC) -fPIC -shared -fno-builtin -w -o $@ $<
$(B)/tests/realdrive: tests/unit/realdrive.c
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	$(Q)$(CC) $(CPPFLAGS) $(SHIM_BASE_CFLAGS) -o $@ $< -ldl
$(B)/tests/test_real: $(B)/tests/realprobe.so $(B)/tests/realother.so \
	$(B)/tests/realdrive

# test_report and test_audit_record run the shim's own report.c, audit.c
# and state.c, built for the test (not -fPIC, not from libcordon.so):
# nothing is exported for them.
REPORT_TEST_OBJS = $(patsubst %.c,$(B)/obj/%.o,shim/report.c shim/audit.c \
	shim/state.c)
$(B)/tests/test_report $(B)/tests/test_audit_record: $(B)/tests/%: \
		tests/unit/%.c tests/unit/report_fixture.h \
		$(REPORT_TEST_OBJS) $(B)/libcore.a
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -Wno-missing-prototypes -Wno-write-strings \
		$(LDFLAGS) -o $@ $< $(REPORT_TEST_OBJS) $(B)/libcore.a \
		$(LIBS) -lcriterion

# Test helpers are small programs run inside and outside the sandbox.
$(B)/helpers/ffidrive: LIBS += -lffi -ldl
$(B)/helpers/pit_%: LIBS += -lpthread -ldl
$(B)/helpers/escape: LIBS += -luring
# static (no libc wrapper a shim could see), so never sanitized: a
# sanitizer's runtime cannot be linked statically (make check)
STATIC_HELPERS = $(B)/helpers/dnsconnect $(B)/helpers/unixpeer $(B)/helpers/inetpeer \
	$(B)/helpers/refuseloop $(B)/helpers/ttygrab $(B)/helpers/credpeer \
	$(B)/helpers/peercap $(B)/helpers/tcplisten $(B)/helpers/tmprace \
	$(B)/helpers/sockswap $(B)/helpers/breakout
$(STATIC_HELPERS): CFLAGS := $(filter-out $(SAN),$(CFLAGS))
$(STATIC_HELPERS): LDFLAGS := $(filter-out $(SAN),$(LDFLAGS)) -static
$(STATIC_HELPERS): LIBS =
# The snapshot helper encodes with the core itself.
$(B)/helpers/snapshot: tests/helpers/snapshot.c $(B)/libcore.a
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -Wno-missing-prototypes $(LDFLAGS) \
		-o $@ $< $(B)/libcore.a $(LIBS)
$(B)/helpers/%: tests/helpers/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -Wno-missing-prototypes $(LDFLAGS) \
		-o $@ $< $(LIBS)

$(B)/fuzz/%: tests/fuzz/%.c $(SHARED_SRCS) $(ENFORCE_SRCS) $(GEN_SRCS) $(wildcard shim/core/*.h enforce/*/*.h)
	@mkdir -p $(dir $@)
	clang -D_GNU_SOURCE -iquote . -std=c11 -g -O1 \
		-fsanitize=fuzzer,address,undefined -o $@ $< $(SHARED_SRCS) \
		$(ENFORCE_SRCS) $(GEN_SRCS) $(LIBS)

# The benchmark (scripts/bench/): never part of the tests.
BENCH_BINS = $(B)/bench/brun $(B)/bench/openstat $(B)/bench/llonly \
	$(B)/bench/isocost $(B)/bench/unixconnect $(B)/bench/proxybench \
	$(B)/bench/sessioncost $(B)/bench/unixloop $(B)/bench/filteronly \
	$(B)/bench/capturebench $(B)/bench/loadcost \
	$(B)/bench/empty.so
# static: no shim in it, the environment of its children its own
$(B)/bench/loadcost: scripts/bench/loadcost.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) $(filter-out $(SAN),$(CFLAGS)) -static -o $@ $<
$(B)/bench/empty.so: scripts/bench/empty.c
	@mkdir -p $(dir $@)
	@echo "  CC [M]  $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -shared $(LDFLAGS) -o $@ $<
$(B)/bench/llonly $(B)/bench/isocost $(B)/bench/unixconnect \
		$(B)/bench/proxybench $(B)/bench/filteronly: $(B)/bench/%: \
		scripts/bench/%.c $(B)/libcore.a
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libcore.a $(LIBS)
$(B)/bench/%: scripts/bench/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< -lpthread

bench: all $(BENCH_BINS) $(B)/helpers/fakeabi $(B)/kernels/contain
	scripts/bench/run.sh $(B)

# The kernel matrix (scripts/kernels/matrix.sh), tables in doc/kernels.md
# and, after a run of all rows, README.md's (KERNELS_OUT, KERNELS_README:
# CI writes into the build and leaves the README): its containment
# helper is static (no shim sees it); the guests run a part of the
# integration tests too (guest.sh), with their helpers.  KERNELS selects rows (boot.sh's
# keys: 5.10 6.1 6.1-nolandlock 6.12 7).  CI runs the whole (.ci/run).
KERNELS_OUT ?= doc/kernels.md
KERNELS_README ?= README.md
$(B)/kernels/contain: scripts/kernels/contain.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) $(filter-out $(SAN),$(CFLAGS)) -static -o $@ $<

kernels: $(B)/cordon $(SHIM_LIB) $(B)/kernels/contain $(HELPER_BINS)
	scripts/install-deps.sh
	KERNELS="$(KERNELS)" scripts/kernels/matrix.sh $(B) $(KERNELS_OUT) \
		$(KERNELS_README)

test: check-docs check-layers unit integration

# Everything make test, make compat and make kernels run, built once:
# CI then runs the matrix beside make test (.ci/run), two makes that
# must not build the same files at once.
suites: all $(UNIT_BINS) $(HELPER_BINS) $(B)/kernels/contain

# The README short, its links and doc/'s whole, its two commands those
# of CI (scripts/check-docs.sh); the selftest breaks a copy each way.
check-docs:
	scripts/check-docs.sh
	scripts/check-docs.sh --selftest

unit: $(UNIT_BINS)
	@set -e; for t in $(UNIT_BINS); do echo "== $$t"; $$t; done

integration: $(B)/cordon $(B)/libcordon.so $(HELPER_BINS)
	tests/integration/run.sh $(B)

# Third-party test suites bare and under cordon, compared test by test
# (tests/compat/allowed.txt: the reviewed differences), then a load test
# of many starts at once; both run even when the first fails.
compat: $(B)/cordon $(SHIM_LIB)
	@s=0; scripts/compat/run.sh $(B) || s=1; \
		scripts/compat/load.sh $(B) || s=1; exit $$s

# Real developer workflows (cargo, pyenv's Python, npm, cmake, git,
# java, ...) bare and under cordon four ways (tests/toolchains/run.sh);
# the table of the run goes to doc/toolchains.md.
TOOLCHAINS_OUT ?= doc/toolchains.md
toolchains: $(B)/cordon $(SHIM_LIB)
	tests/toolchains/run.sh $(B) $(TOOLCHAINS_OUT) "$(TOOLCHAINS)"

# Absolute corpus paths: a target may chdir (fuzz_path works in a
# fixture tree); a fuzzer that fails fails the target.
fuzz: $(FUZZ_BINS)
	@set -e; for f in $(FUZZ_BINS); do \
		n=$$(basename $$f); mkdir -p $(B)/corpus/$$n; \
		echo "== $$n ($(FUZZ_SECONDS) s)"; \
		$$f -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
			$(abspath $(B))/corpus/$$n $(CURDIR)/tests/fuzz/corpus/$$n \
			> $(B)/fuzz/$$n.log 2>&1 || { tail -20 $(B)/fuzz/$$n.log; exit 1; }; \
		tail -2 $(B)/fuzz/$$n.log; \
	done

check: check-layers check-banned check-format all
	scripts/check-exports.sh $(B)/libcordon.so
	$(MAKE) B=$(B)/san SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" OPT="-O1 -g" test
	$(MAKE) FUZZ_SECONDS=20 fuzz

check-banned:
	scripts/check-banned.sh

check-format:
	scripts/check-format.sh

# The structure read from the includes against scripts/layers.txt: no
# circle, no include back up, no file over 600 lines, no platform #if in
# a function body.  Its own fixture tests (tests/layers/) first.
check-layers:
	tests/layers/run.sh
	scripts/check-layers.py

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

install: $(B)/cordon $(SHIM_LIB)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 0755 $(B)/cordon $(DESTDIR)$(BINDIR)/cordon
	install -m 0755 $(SHIM_LIB) $(DESTDIR)$(LIBDIR)/$(notdir $(SHIM_LIB))
	install -m 0644 doc/cordon.1 $(DESTDIR)$(MANDIR)/man1/cordon.1

deps:
	scripts/install-deps.sh

clean:
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' 2>/dev/null)
