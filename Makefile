# SPDX-License-Identifier: MIT
#
# ptlab: UEFI page-table laboratory (gnu-efi application) and the freestanding
# x86-64 page-table library it is built on.
#
# Everything is built out of tree, below $(BUILD):
#   $(BUILD)/efi/    objects and libptlab.a for the firmware (freestanding)
#   $(BUILD)/host/   objects, libptlab.a, libptlab-app.a (efi/'s firmware-free
#                    modules) and unit tests for the host (ASan+UBSan)
#   $(BUILD)/ptlab.efi, $(BUILD)/ptlab.img
#
# "make help" lists the targets.  V=1 shows the full commands.

BUILD ?= build
V ?= 0

ifeq ($(strip $(BUILD)),)
$(error BUILD must not be empty)
endif

ifeq ($(V),1)
Q :=
msg = @true
else
Q := @
msg = @printf '  %-8s %s\n' '$(1)' '$(2)'
MAKEFLAGS += --no-print-directory
endif

# ---- tools ----------------------------------------------------------------

EFI_CC ?= gcc
HOSTCC ?= gcc
EFI_LD ?= ld
OBJCOPY ?= objcopy
AR ?= ar
NM ?= nm

EFI_INC ?= /usr/include/efi
EFI_LIB ?= /usr/lib
EFI_LDS := $(EFI_LIB)/elf_x86_64_efi.lds
EFI_CRT0 := $(EFI_LIB)/crt0-efi-x86_64.o
LIBGCC := $(shell $(EFI_CC) -print-libgcc-file-name)

OVMF_CODE ?= /usr/share/OVMF/OVMF_CODE_4M.fd
OVMF_VARS ?= /usr/share/OVMF/OVMF_VARS_4M.fd

# ---- flags ----------------------------------------------------------------

WARNFLAGS := -std=c11 -Wall -Wextra -Wshadow -Wvla -Wstrict-prototypes -Werror
DEPFLAGS = -MMD -MP

# Shared by everything that runs in the firmware.  No SSE/MMX (the firmware
# does not save those registers for us), no red zone (interrupts and
# exceptions run on our stack), position independent (relocated by crt0).
EFI_BASE_CFLAGS := $(WARNFLAGS) -Iinclude -O2 -g \
	-ffreestanding -fno-stack-protector -fno-stack-check -fshort-wchar \
	-mno-red-zone -mno-sse -mno-mmx -mno-80387 -fpic -fno-strict-aliasing \
	-maccumulate-outgoing-args

# paging/ for the firmware: the same flags without the gnu-efi include path,
# so "#include <efi.h>" in paging/ fails to compile.  Declarations from
# <string.h> are fine: the calls resolve to FREESTANDING_ALLOWED_UNDEF below.
# "make check-freestanding" proves both.
PAGING_EFI_CFLAGS := $(EFI_BASE_CFLAGS)

# efi/: gnu-efi 3.0.15 headers.  GNU_EFI_USE_MS_ABI makes EFIAPI the
# ms_abi attribute, so firmware protocol calls may be made directly or via
# uefi_call_wrapper().  efi_main itself is called by crt0 with the SysV
# convention and must not be declared EFIAPI.
EFI_APP_CFLAGS := $(EFI_BASE_CFLAGS) -Iefi \
	-isystem $(EFI_INC) -isystem $(EFI_INC)/x86_64 \
	-DGNU_EFI_USE_MS_ABI -DEFI_FUNCTION_WRAPPER

EFI_LDFLAGS := -nostdlib -znocombreloc -T $(EFI_LDS) -shared -Bsymbolic \
	--no-undefined -L$(EFI_LIB)
EFI_LDLIBS := -lefi -lgnuefi $(LIBGCC)
EFI_SECTIONS := -j .text -j .sdata -j .data -j .dynamic -j .dynsym \
	-j .rel -j .rela -j '.rel.*' -j '.rela.*' -j .reloc

SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
HOST_CFLAGS := $(WARNFLAGS) -Iinclude -Iefi -D_DEFAULT_SOURCE -g -O1 $(SANFLAGS)
HOST_LDFLAGS := $(SANFLAGS)
HOST_LDLIBS := -lcmocka

# Undefined symbols $(BUILD)/efi/libptlab.a may have: the compiler emits
# calls to these even in freestanding code (struct copies, zeroing); nothing
# else, memcmp included, is allowed.  In the app memset and memcpy come from
# libefi; paging/ uses no memmove today (the app would have to supply one).
FREESTANDING_ALLOWED_UNDEF := memset memcpy memmove

# The console font, generated (see "the console font" below); defined here,
# before any rule names it as a prerequisite.
FONT_PCF ?= /usr/share/fonts/X11/misc/ter-u16n_iso-8859-1.pcf.gz
FONT_INC := $(BUILD)/gen/font8x16.inc
EFI_APP_CFLAGS += -I$(BUILD)/gen
HOST_CFLAGS += -I$(BUILD)/gen

# ---- sources --------------------------------------------------------------

PAGING_SRCS := $(sort $(wildcard paging/*.c))
# efi/ is main.c and one folder per concern (mk/layers.txt says which folder
# may use which; "make check-layers" proves it).
EFI_SRCS := $(sort $(wildcard efi/*.c efi/*/*.c efi/*.S efi/*/*.S))
UNIT_TEST_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_SUPPORT_SRCS := $(filter-out $(UNIT_TEST_SRCS),$(sort $(wildcard tests/unit/*.c)))

# Boot tests: every executable tests/boot/*.sh except the shared library.
BOOT_TESTS := $(sort $(shell find tests/boot -maxdepth 1 -name '*.sh' \
	! -name lib.sh -perm -u+x 2>/dev/null))

EFI_PAGING_OBJS := $(PAGING_SRCS:%=$(BUILD)/efi/%.o)
EFI_APP_OBJS := $(EFI_SRCS:%=$(BUILD)/efi/%.o)
EFI_APP_LIBS = $(EFI_LIBPTLAB)
HOST_PAGING_OBJS := $(PAGING_SRCS:%=$(BUILD)/host/%.o)
UNIT_SUPPORT_OBJS := $(UNIT_SUPPORT_SRCS:%=$(BUILD)/host/%.o)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/host/tests/%,$(UNIT_TEST_SRCS))

EFI_LIBPTLAB := $(BUILD)/efi/libptlab.a
HOST_LIBPTLAB := $(BUILD)/host/libptlab.a
EFI_APP := $(BUILD)/ptlab.efi
EFI_SO := $(EFI_APP:.efi=.so)
IMAGE := $(BUILD)/ptlab.img

# ---- run settings ---------------------------------------------------------

# Options for the application, stored in \ptlab.cfg on the image
# (no file when empty): make run ARGS="..."
ARGS ?=
QEMU ?= qemu-system-x86_64
QEMU_CPU ?= max
QEMU_MEM ?= 2G
QEMU_SMP ?= 1
QEMU_EXTRA ?=
# where "make run" keeps the firmware variables and the serial log
RUN_DIR ?= $(BUILD)
# isa-debug-exit: the guest writes code C to port 0xf4, QEMU exits with
# (C << 1) | 1: 0x10 passed (33), 0x11 failed (35), 0x12 aborted (37),
# 0x13 nothing checked (39).  "make run" judges by the serial log instead.

# ---- test suites ----------------------------------------------------------

# "name=command" pairs run by tests/run-suites.sh, JOBS at a time (default:
# the number of cores), each one's output in $(TEST_LOGS)/NAME.log.  Each
# command prints its own "name: N passed, M failed" line; the script sums
# them.  "name@LOCK=command": suites naming the same LOCK never run at the
# same time.  What "make test" builds first (all, the images, fbrender,
# chain) the suites only read; each boot test boots private copies in a
# directory of its own ($(BUILD)/boot/NAME.XXXXXX), QMP sockets included,
# and no suite uses a TCP port.  Lock host-tests: unit deletes and relinks
# every unit-test binary, reliability runs two of them.
JOBS ?=
TEST_LOGS ?= $(BUILD)/test-logs
# The one list of suites.  freestanding runs in a tree of its own, made
# anew each time: "make check-freestanding" must work from nothing.
FRESH_BUILD := $(BUILD)/fresh
TEST_SUITES := 'freestanding=rm -rf $(FRESH_BUILD) && $(MAKE) BUILD=$(FRESH_BUILD) V=$(V) check-freestanding' \
	'unit@host-tests=$(MAKE) BUILD=$(BUILD) V=$(V) unit' \
	'reliability@host-tests=$(MAKE) BUILD=$(BUILD) V=$(V) reliability' \
	'fuzz-replay=$(MAKE) BUILD=$(BUILD) V=$(V) fuzz-replay' \
	'undefined=$(MAKE) BUILD=$(BUILD) V=$(V) check-undefined' \
	'examples=$(MAKE) BUILD=$(BUILD) V=$(V) check-examples' \
	'layers=$(MAKE) BUILD=$(BUILD) V=$(V) check-layers' \
	'report=python3 tests/tools/test_report.py' \
	'packages=tests/packages.sh' \
	'docs=python3 tests/check-links.py'
TEST_SUITES += $(foreach t,$(BOOT_TESTS), \
	'$(basename $(notdir $(t)))=PTLAB_BUILD=$(BUILD) PTLAB_IMG=$(IMAGE) $(t)')

# ---- targets --------------------------------------------------------------

.PHONY: all deps image run unit unit-build test check-freestanding clean help FORCE bench \
	bench-runs
.DEFAULT_GOAL := all

all: $(EFI_APP) $(HOST_LIBPTLAB)

help:
	@echo 'ptlab targets:'
	@echo '  all                 (default) $(BUILD)/ptlab.efi and $(BUILD)/host/libptlab.a'
	@echo '  deps                check the Debian packages of every group (mk/packages.txt), install missing ones (as root);'
	@echo '                      deps-build, deps-run, deps-test: one group and those below it'
	@echo '  image               $(BUILD)/ptlab.img: GPT disk with the app as \EFI\BOOT\BOOTX64.EFI'
	@echo '  run                 boot $(RUN_DIR)/run.img under QEMU/OVMF (ends with the run), serial on stdio and in $(RUN_DIR)/serial.log;'
	@echo '                      verdict from the serial log and the report files'
	@echo '                      (ARGS="..." -> \ptlab.cfg; QEMU_CPU, QEMU_MEM, QEMU_SMP, QEMU_EXTRA)'
	@echo '                      KERNEL=PATH [INITRD="A B"] [CMDLINE="..."]: boot that kernel on the checked tables'
	@echo '  unit                build and run the host unit tests (ASan+UBSan, cmocka)'
	@echo '  check-freestanding  prove paging/ cannot see firmware headers'
	@echo '  check-layers        prove efi/'"'"'s folders depend on each other as mk/layers.txt says,'
	@echo '                      and keep no state outside struct ptlab but mk/statics.txt'"'"'s'
	@echo '  bench               build (-O2, no sanitizers) and run tests/bench/bench.c'
	@echo '                      (and its no-SSE build); writes results.md and plot.svg'
	@echo '  bench-runs          make bench BENCH_RUNS times (default 5), goal lines summarised'
	@echo '  test                every suite, JOBS at a time (default: cores); ends with "N passed, M failed"'
	@echo '  fuzz                run each libFuzzer target for FUZZ_SECONDS (default 60)'
	@echo '  fuzz-replay         run the fuzz targets over their committed seed corpora'
	@echo '  fbrender            host tool: render text lines with the app'"'"'s framebuffer console (PPM)'
	@echo '  check-examples      build and run examples/handoff.c (host), compile it for the firmware'
	@echo '  check-undefined     libptlab.a: no undefined symbols but the documented ones'
	@echo '  install             headers, libptlab.a, libptlab-efi.a, pkg-config files (PREFIX, DESTDIR)'
	@echo '  check-install       install into a scratch directory, build examples/handoff.c against it'
	@echo '  install-esp         ESP=DIR: DIR/EFI/ptlab/ptlab.efi with a systemd-boot and a GRUB entry (MENU_ARGS, DESTDIR;'
	@echo '                      KERNEL= INITRD= CMDLINE= for a Linux entry; FORCE=1 replaces edited entries)'
	@echo '  mutants             mutation testing of paging/ (MUTANTS=N, MUTANTS_SEED=S; not in test)'
	@echo '  view                $(BUILD)/view/index.html and map.svg from REPORT= (default: the last run)'
	@echo '  signed-image        $(BUILD)/ptlab-signed.img: the app signed for Secure Boot (KEY=, CERT=,'
	@echo '                      TRUST="FILE...": digests of initrds/modules it may boot)'
	@echo '  linux-signed        $(BUILD)/linux/vmlinuz-signed: Debian'"'"'s kernel signed with KEY (Secure Boot test)'
	@echo '  chain               $(BUILD)/tests/chain.efi: the entry-state chainloader (test only)'
	@echo '  clean               remove $(BUILD)'
	@echo 'variables: BUILD=$(BUILD) V=1 (full commands) DEPS_CHECK=0 (skip package check)'

# Package checks (mk/packages.txt, mk/deps.sh): deps-build before any
# compile, deps-run before an image or QEMU, deps-test before the test
# suites; each group includes the ones it builds on.  Order-only
# prerequisites, so each runs once per make invocation and never forces a
# rebuild; apt-get is called only when something is missing.  "make" and
# "make run" never ask for a test package.
DEPS_CHECK ?= 1
.PHONY: deps deps-build deps-run deps-test
deps: deps-test
deps-build deps-run deps-test:
ifeq ($(DEPS_CHECK),1)
	$(Q)mk/deps.sh $(@:deps-%=%)
endif

# ---- firmware build ----

# $(call compile-rule,OUT,DIR,EXT,CC,FLAGS,LABEL): DIR/%.EXT (DIR ends in /)
# compiled into $(BUILD)/OUT/DIR/%.EXT.o by the compiler in variable CC with
# the flags in variable FLAGS (both by name, so later additions count).
define compile-rule
$$(BUILD)/$(1)/$(2)%.$(3).o: $(2)%.$(3) | deps-build
	$$(call msg,$(6),$$<)
	@mkdir -p $$(@D)
	$$(Q)$$($(4)) $$($(5)) $$(DEPFLAGS) -c $$< -o $$@
endef

# $(call archive-rule,LIB,OBJS,LIST): LIB from the objects in variable OBJS,
# rebuilt also when source list LIST changes.
define archive-rule
$(1): $$($(2)) $$(BUILD)/lists/$(3).list
	$$(call msg,AR,$$@)
	@mkdir -p $$(@D)
	$$(Q)rm -f $$@ && $$(AR) rcs $$@ $$(filter %.o,$$^)
endef

# $(call efi-app-rule,EFI,OBJS,LIBS): the UEFI application EFI (PE32+) from
# the objects in variable OBJS and the archives in variable LIBS, through
# EFI:.efi=.so linked with gnu-efi's crt0 and linker script.
define efi-app-rule
$(1:.efi=.so): $$($(2)) $$($(3))
	$$(call msg,LD,$$@)
	@mkdir -p $$(@D)
	$$(Q)$$(EFI_LD) $$(EFI_LDFLAGS) $$(EFI_CRT0) $$($(2)) $$($(3)) $$(EFI_LDLIBS) -o $$@
$(1): $(1:.efi=.so)
	$$(call msg,OBJCOPY,$$@)
	@mkdir -p $$(@D)
	$$(Q)$$(OBJCOPY) $$(EFI_SECTIONS) --target efi-app-x86_64 --subsystem=10 $$< $$@
endef

EFI_APP_ASFLAGS = $(EFI_APP_CFLAGS) -D__ASSEMBLY__
BENCH_SCALAR_CFLAGS = $(BENCH_CFLAGS) -mno-sse -mno-mmx
BENCH_SCALAR_MAIN_CFLAGS = $(BENCH_CFLAGS) -DBENCH_SCALAR

$(eval $(call compile-rule,efi,paging/,c,EFI_CC,PAGING_EFI_CFLAGS,CC))
$(eval $(call compile-rule,efi,efi/,c,EFI_CC,EFI_APP_CFLAGS,CC))
$(eval $(call compile-rule,efi,efi/,S,EFI_CC,EFI_APP_ASFLAGS,AS))
$(eval $(call compile-rule,efi,examples/,c,EFI_CC,PAGING_EFI_CFLAGS,CC))
$(eval $(call compile-rule,efi,tests/entrystate/,c,EFI_CC,EFI_APP_CFLAGS,CC))
$(eval $(call compile-rule,host,,c,HOSTCC,HOST_CFLAGS,HOSTCC))
$(eval $(call compile-rule,bench,,c,HOSTCC,BENCH_CFLAGS,BENCHCC))
$(eval $(call compile-rule,bench-scalar,paging/,c,HOSTCC,BENCH_SCALAR_CFLAGS,BENCHCC))
$(eval $(call compile-rule,bench-scalar,tests/bench/,c,HOSTCC,BENCH_SCALAR_MAIN_CFLAGS,BENCHCC))

# Source lists, rewritten only when they change, so that archives and links
# also follow a deleted source file.
$(BUILD)/lists/%.list: FORCE
	@mkdir -p $(@D)
	@echo '$(SRCLIST_$*)' | cmp -s - $@ || echo '$(SRCLIST_$*)' >$@

SRCLIST_paging = $(PAGING_SRCS)
SRCLIST_efi = $(EFI_SRCS)
SRCLIST_unit = $(UNIT_SUPPORT_SRCS)

$(eval $(call archive-rule,$(EFI_LIBPTLAB),EFI_PAGING_OBJS,paging))
$(eval $(call efi-app-rule,$(EFI_APP),EFI_APP_OBJS,EFI_APP_LIBS))
$(EFI_SO): $(BUILD)/lists/efi.list

# ---- host build ----

$(eval $(call archive-rule,$(HOST_LIBPTLAB),HOST_PAGING_OBJS,paging))

# The firmware-free modules of efi/ for the host (ASan+UBSan), in an archive
# of their own: the unit tests link them as they are.  What they need from
# the machine (the fault probes, invlpg, wbinvd, flushes, the deadline) is
# behind link seams declared in efi/ headers: efi/live/live.c,
# efi/live/flush.c and efi/cpu/trap.c define them for the firmware, the
# tests that link such a module define their own.  Built without the gnu-efi include path, so a firmware header
# reaching one of these modules fails to compile here.
APP_HOST_SRCS := $(addprefix efi/,checks/checkkit.c checks/churn.c checks/inject.c \
	checks/registry.c core/verdict.c lib/model.c lib/sha256.c lib/trust.c \
	cpu/gdt.c limine/elf.c limine/lmmap.c limine/requests.c \
	limine/responses.c limine/lmplan.c linux/linuxboot.c opts/optcheck.c opts/opts.c \
	report/fbcon.c report/fmt.c report/font8x16.c report/ptdump.c report/report.c \
	report/serline.c \
	smp/smpcore.c)
APP_HOST_OBJS := $(APP_HOST_SRCS:%=$(BUILD)/host/%.o)
HOST_LIBAPP := $(BUILD)/host/libptlab-app.a
SRCLIST_app = $(APP_HOST_SRCS)

$(eval $(call archive-rule,$(HOST_LIBAPP),APP_HOST_OBJS,app))

$(BUILD)/host/tests/test_%: $(BUILD)/host/tests/unit/test_%.c.o \
		$(UNIT_SUPPORT_OBJS) $(HOST_LIBAPP) $(HOST_LIBPTLAB) $(BUILD)/lists/unit.list
	$(call msg,HOSTLD,$@)
	$(Q)$(HOSTCC) $(HOST_LDFLAGS) $(filter %.o %.a,$^) $(HOST_LDLIBS) -o $@

# test_catalog reads the app's registry: catalog.c and the modules whose
# tables it lists, linked as they are (with ram.c, firmware-free); the
# machine's seams those modules call are the test's own.
CATALOG_HOST_OBJS := $(addprefix $(BUILD)/host/efi/checks/,catalog.c.o checks.c.o \
	cpuchecks.c.o elsewhere.c.o ram.c.o)

$(BUILD)/host/tests/test_catalog: $(BUILD)/host/tests/unit/test_catalog.c.o $(CATALOG_HOST_OBJS) \
		$(UNIT_SUPPORT_OBJS) $(HOST_LIBAPP) $(HOST_LIBPTLAB) $(BUILD)/lists/unit.list
	$(call msg,HOSTLD,$@)
	$(Q)$(HOSTCC) $(HOST_LDFLAGS) $(filter %.o %.a,$^) $(HOST_LDLIBS) -o $@

# Every test binary is relinked, so that one test file that does not build
# is reported as a failure (run-unit.sh counts a missing binary) without a
# stale binary standing in for it or hiding the other tests' results.
unit: | deps-test
	$(Q)rm -f $(UNIT_BINS)
	-$(Q)$(MAKE) -k BUILD=$(BUILD) V=$(V) unit-build
	$(Q)tests/run-unit.sh $(UNIT_BINS)

unit-build: $(UNIT_BINS)

# ---- benchmark ----

# tests/bench/bench.c linked with paging/*.c built for speed: -O2, no
# sanitizers, objects in their own directory $(BUILD)/bench/.  Prints its
# timings; never part of "make test" (timings are not asserted).
BENCH_CFLAGS := $(WARNFLAGS) -Iinclude -D_DEFAULT_SOURCE -O2 -g
BENCH_PAGING_OBJS := $(PAGING_SRCS:%=$(BUILD)/bench/%.o)
BENCH_OBJS := $(BUILD)/bench/tests/bench/bench.c.o
BENCH_BIN := $(BUILD)/bench/bench

$(BENCH_BIN): $(BENCH_OBJS) $(BENCH_PAGING_OBJS) $(BUILD)/lists/paging.list
	$(call msg,HOSTLD,$@)
	$(Q)$(HOSTCC) $(filter %.o,$^) -o $@ -lm

# The same with paging/ compiled without SSE, as the firmware build has it
# (the scalar loops), and the benchmark itself with -DBENCH_SCALAR.
BENCH_SCALAR_PAGING_OBJS := $(PAGING_SRCS:%=$(BUILD)/bench-scalar/%.o)
BENCH_SCALAR_BIN := $(BUILD)/bench-scalar/bench

$(BENCH_SCALAR_BIN): $(BUILD)/bench-scalar/tests/bench/bench.c.o $(BENCH_SCALAR_PAGING_OBJS) \
		$(BUILD)/lists/paging.list
	$(call msg,HOSTLD,$@)
	$(Q)$(HOSTCC) $(filter %.o,$^) -o $@ -lm

# Writes $(BUILD)/bench/results.md (the tables docs/performance.md shows) and
# $(BUILD)/bench/plot.svg; the goal lines come last.  bench-runs runs it
# BENCH_RUNS times and summarises the goal lines (median, runs met).
BENCH_RUNS ?= 5

bench: $(BENCH_BIN) $(BENCH_SCALAR_BIN)
	$(Q)$(BENCH_SCALAR_BIN) --md $(BUILD)/bench/results-scalar.md
	$(Q)$(BENCH_BIN) --md $(BUILD)/bench/results.md --svg $(BUILD)/bench/plot.svg

bench-runs: $(BENCH_BIN) $(BENCH_SCALAR_BIN)
	$(Q)tests/bench/runs.sh $(BENCH_RUNS) '$(MAKE) --no-print-directory BUILD=$(BUILD) bench' \
		$(BUILD)/bench/runs

# ---- checks ----

# The header scan covers efi/'s firmware-free modules (APP_HOST_SRCS) too.
check-freestanding: $(EFI_LIBPTLAB) $(FONT_INC) | deps-build
	$(Q)CC='$(EFI_CC)' CFLAGS='$(PAGING_EFI_CFLAGS) -Iefi -I$(BUILD)/gen' NM='$(NM)' \
		ALLOWED='$(FREESTANDING_ALLOWED_UNDEF)' EFI_INC='$(EFI_INC)' \
		SRCS='$(PAGING_SRCS) $(APP_HOST_SRCS)' \
		mk/check-freestanding.sh $(EFI_LIBPTLAB) $(BUILD)/freestanding

# efi/'s folders use each other only as mk/layers.txt says (includes and
# calls), efi/ keeps no writable object outside struct ptlab but those
# mk/statics.txt lists with a reason, and both checks refuse every kind of
# wrong arrow or new variable (tests/layers.sh).
.PHONY: check-layers
check-layers: $(EFI_APP_OBJS) $(EFI_LIBPTLAB) | deps-build
	$(Q)tests/layers.sh $(BUILD)

# Builds what the suites need first; a failing build is reported by the
# suites that need it (their output is missing), never hidden by a stale
# image.  The signed image holds the test initramfs's digest (TRUST=), so
# the secureboot suite can boot it under Secure Boot.
test: | deps-test
	$(Q)rm -f $(IMAGE)
	-$(Q)$(MAKE) -k BUILD=$(BUILD) V=$(V) all image fbrender chain linux-initrd linux-signed limine
	-$(Q)$(MAKE) -k BUILD=$(BUILD) V=$(V) signed-image TRUST='$(LINUX_INITRD)'
	$(Q)JOBS='$(JOBS)' TEST_LOGS='$(TEST_LOGS)' tests/run-suites.sh $(TEST_SUITES)

# ---- fuzzing and reliability ----

# libFuzzer targets tests/fuzz/fuzz_*.c (clang, ASan+UBSan), each built
# from its source, paging/*.c and the unit-test support sources it uses
# into $(BUILD)/fuzz/.  Seeds: tests/fuzz/corpus/<target>/ (written by
# tests/fuzz/mkcorpus.py).  "make fuzz" runs the targets one after the other
# for FUZZ_SECONDS each, each as FUZZ_JOBS processes sharing one corpus
# (default: one per core), and prints their executions and the total;
# "make fuzz-replay" runs every seed once.  The reliability suite reruns test_bad_input and
# test_alloc_fail and prints their case counts with the number of seeds.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_JOBS ?=
FUZZ_TARGETS := memmap plan ops
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_CFLAGS := $(WARNFLAGS) -Iinclude -Iefi -D_DEFAULT_SOURCE -g -O1 \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
FUZZ_SUPPORT := tests/unit/arena.c tests/unit/shadow.c efi/lib/model.c
FUZZ_BINS := $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz_%)

.PHONY: fuzz fuzz-build fuzz-replay reliability

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(PAGING_SRCS) $(FUZZ_SUPPORT) \
		$(wildcard include/ptlab/*.h paging/*.h tests/unit/*.h) efi/lib/model.h | deps-test
	$(call msg,FUZZCC,$@)
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $(filter %.c,$^) -o $@

fuzz-build: $(FUZZ_BINS)

fuzz: | deps-test
	-$(Q)$(MAKE) -k BUILD=$(BUILD) V=$(V) fuzz-build
	$(Q)FUZZ_JOBS=$(FUZZ_JOBS) tests/fuzz/run.sh fuzz $(FUZZ_DIR) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-replay: | deps-test
	$(Q)rm -f $(FUZZ_BINS)
	-$(Q)$(MAKE) -k BUILD=$(BUILD) V=$(V) fuzz-build
	$(Q)tests/fuzz/run.sh replay $(FUZZ_DIR) $(FUZZ_TARGETS)

reliability: | deps-test
	-$(Q)$(MAKE) -k BUILD=$(BUILD) V=$(V) $(BUILD)/host/tests/test_bad_input \
		$(BUILD)/host/tests/test_alloc_fail
	$(Q)tests/reliability-summary.sh $(BUILD)/host/tests/test_bad_input \
		$(BUILD)/host/tests/test_alloc_fail tests/fuzz/corpus

# ---- the Linux hand-off test's initramfs ----

# tests/linux/init.c, static, as /init and busybox-static's busybox as
# /bin/busybox (mk/initramfs.sh); tests/boot/linux.sh boots Debian's
# linux-image-cloud-amd64 kernel with it on ptlab's tables.
LINUX_DIR := $(BUILD)/linux
LINUX_INITRD := $(LINUX_DIR)/initrd.img
BUSYBOX ?= /bin/busybox

.PHONY: linux-initrd
linux-initrd: $(LINUX_INITRD)

$(LINUX_DIR)/init: tests/linux/init.c | deps-test
	$(call msg,CCLD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) -static -O2 $(WARNFLAGS) -o $@ $<

# the cloud kernel's efivarfs module: /init loads it to read an EFI variable
EFIVARFS_KO ?= $(lastword $(sort $(wildcard /lib/modules/*-cloud-amd64/kernel/fs/efivarfs/efivarfs.ko)))

$(LINUX_INITRD): $(LINUX_DIR)/init mk/initramfs.sh | deps-test
	$(call msg,CPIO,$@)
	$(Q)mk/initramfs.sh $@ $< $(BUSYBOX) $(EFIVARFS_KO)

# The same kernel signed with KEY (Debian's signature replaced), for the
# Secure Boot suite: the signed ptlab boots it on firmware that trusts KEY.
LINUX_KERNEL ?= $(lastword $(sort $(wildcard /boot/vmlinuz-*-cloud-amd64)))
LINUX_SIGNED := $(LINUX_DIR)/vmlinuz-signed

.PHONY: linux-signed
linux-signed: $(LINUX_SIGNED)

$(LINUX_SIGNED): $(LINUX_KERNEL) mk/sign.sh | deps-test
	$(Q)mk/sign.sh --kernel '$(KEY)' '$(CERT)' $< $@ $(LINUX_DIR)/sign

# ---- image and QEMU ----

# Rebuilt every time: it is cheap and \ptlab.cfg follows ARGS.
image: $(IMAGE)

$(IMAGE): $(EFI_APP) startup.nsh mk/image.sh FORCE | deps-run
	$(call msg,IMAGE,$@)
	$(Q)mk/image.sh $@ $(EFI_APP) startup.nsh '$(subst ','\'',$(ARGS))'

# What "make run" boots: the image with ARGS as \ptlab.cfg and, when ARGS
# names no --end, --end=shutdown added, so QEMU ends as soon as the run has
# ended (the stick image, "make image", keeps --end=wait as its default).
# Its \startup.nsh (the UEFI shell's fallback when the run returned, e.g.
# refused its options) never runs a second run over the first one's
# \PTLAB.TXT (mk/run-startup.sed) and, without an --end in ARGS, shuts
# down.
RUN_IMAGE ?= $(RUN_DIR)/run.img
RUN_END := $(if $(filter --end=%,$(ARGS)),,--end=shutdown)
RUN_NSH := $(RUN_DIR)/run-startup.nsh

$(RUN_NSH): startup.nsh mk/run-startup.sed FORCE
	@mkdir -p $(@D)
	$(Q)sed -f mk/run-startup.sed startup.nsh | \
		sed -e '' $(if $(RUN_END),-e 's|exit /b|reset -s|' -e '$$a reset -s') >$@

# make run KERNEL=PATH [INITRD="A B"] [CMDLINE="..."]: the kernel and the
# initrds go onto the run image and \ptlab.cfg boots them on the checked
# tables (--mode=handoff --kernel=... --initrd=... "--cmdline=...", the
# command line one word of the option tokenizer: mk/image.sh).  CMDLINE
# defaults to console=ttyS0 here, so the kernel talks on the serial port
# "make run" shows; CMDLINE= passes an empty one.  The values reach the
# script through the environment as written ($(value ...): make expands
# nothing in them), never as shell text.
RUN_CMDLINE_GIVEN := $(if $(filter undefined,$(origin CMDLINE)),,1)

$(RUN_IMAGE): export PTLAB_RUN_KERNEL = $(value KERNEL)
$(RUN_IMAGE): export PTLAB_RUN_INITRD = $(value INITRD)
$(RUN_IMAGE): export PTLAB_RUN_CMDLINE = $(if $(RUN_CMDLINE_GIVEN),$(value CMDLINE),console=ttyS0)
$(RUN_IMAGE): $(EFI_APP) $(RUN_NSH) mk/image.sh FORCE | deps-run
	$(call msg,IMAGE,$@)
	$(Q)mk/image.sh $@ $(EFI_APP) $(RUN_NSH) '$(subst ','\'',$(strip $(ARGS) $(RUN_END)))'

# The verdict comes from what the application said on the serial port (a
# copy of it in $(RUN_DIR)/serial.log) and the report files on the image,
# never from QEMU's exit status alone: mk/verdict.sh.
run: $(RUN_IMAGE) | deps-run
	$(Q)mkdir -p $(RUN_DIR) && cp $(OVMF_VARS) $(RUN_DIR)/OVMF_VARS.fd
	$(Q)rm -f $(RUN_DIR)/serial.log; status=0; \
	$(QEMU) -machine q35,accel=tcg -cpu $(QEMU_CPU) -m $(QEMU_MEM) \
		-smp $(QEMU_SMP) \
		-drive if=pflash,format=raw,readonly=on,file=$(OVMF_CODE) \
		-drive if=pflash,format=raw,file=$(RUN_DIR)/OVMF_VARS.fd \
		-drive format=raw,file=$(RUN_IMAGE) \
		-chardev stdio,id=ptlabcom1,logfile=$(RUN_DIR)/serial.log,signal=on \
		-serial chardev:ptlabcom1 -display none \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
		-net none -no-reboot $(QEMU_EXTRA) || status=$$?; \
	mk/verdict.sh $(RUN_DIR)/serial.log $(RUN_IMAGE) $$status

clean:
	$(call msg,CLEAN,$(BUILD))
	$(Q)rm -rf -- '$(BUILD)'

FORCE:

# Keep objects and lists that only pattern rules mention.
.SECONDARY:

-include $(wildcard $(patsubst %.o,%.d,$(EFI_PAGING_OBJS) $(EFI_APP_OBJS) \
	$(HOST_PAGING_OBJS) $(UNIT_SUPPORT_OBJS) $(APP_HOST_OBJS) $(CATALOG_HOST_OBJS) \
	$(UNIT_TEST_SRCS:%=$(BUILD)/host/%.o) $(BENCH_OBJS) $(BENCH_PAGING_OBJS) \
	$(BENCH_SCALAR_PAGING_OBJS) $(BUILD)/bench-scalar/tests/bench/bench.c.o))

# ==== components: framebuffer renderer, embedding example, symbol check ====
#
# Kept apart from the rules above; nothing here is part of "all".
#   fbrender         $(BUILD)/host/fbrender: efi/report/fbcon.c drawing text lines
#                    into a PPM, the reference for QEMU screendumps
#                    (tests/boot/fb.sh)
#   check-examples   examples/handoff.c compiled with the firmware's flags
#                    (compile only) and for the host, where it runs and
#                    verifies the tables it built
#   check-undefined  both libptlab.a archives need nothing from outside but
#                    FREESTANDING_ALLOWED_UNDEF (host: also the sanitizer
#                    runtime)

FBRENDER := $(BUILD)/host/fbrender
FBRENDER_OBJS := $(BUILD)/host/tests/boot/fbrender.c.o \
	$(BUILD)/host/efi/report/fbcon.c.o $(BUILD)/host/efi/report/font8x16.c.o
EXAMPLE_SRCS := $(sort $(wildcard examples/*.c))
EXAMPLE_HOST_BINS := $(EXAMPLE_SRCS:examples/%.c=$(BUILD)/host/examples/%)
EXAMPLE_EFI_OBJS := $(EXAMPLE_SRCS:%=$(BUILD)/efi/%.o)
HOST_SANITIZER_PREFIXES := __asan_ __ubsan_ __sanitizer_ __lsan_

.PHONY: fbrender check-examples check-undefined

fbrender: $(FBRENDER)

$(FBRENDER): $(FBRENDER_OBJS)
	$(call msg,HOSTLD,$@)
	$(Q)$(HOSTCC) $(HOST_LDFLAGS) $^ -o $@

# Examples for the firmware target are compiled with the flags paging/ is
# built with, so no C library and no gnu-efi headers (compile-rule above).

$(BUILD)/host/examples/%: $(BUILD)/host/examples/%.c.o $(HOST_LIBPTLAB)
	$(call msg,HOSTLD,$@)
	$(Q)$(HOSTCC) $(HOST_LDFLAGS) $^ -o $@

# Each example prints its own "NAME: N passed, M failed" line.
check-examples: $(EXAMPLE_EFI_OBJS) $(EXAMPLE_HOST_BINS) | deps-build
	$(Q)st=0; for bin in $(EXAMPLE_HOST_BINS); do $$bin || st=1; done; exit $$st

check-undefined: $(EFI_LIBPTLAB) $(HOST_LIBPTLAB) | deps-build
	$(Q)NM='$(NM)' ALLOWED='$(FREESTANDING_ALLOWED_UNDEF)' \
		tests/check-undefined.sh --prefixes '' $(EFI_LIBPTLAB) \
		--prefixes '$(HOST_SANITIZER_PREFIXES)' $(HOST_LIBPTLAB)

# ==== Secure Boot ====
#
# make signed-image: $(BUILD)/ptlab-signed.efi (stripped, signed with sbsign,
# checked with sbverify) and $(BUILD)/ptlab-signed.img around it.  KEY and
# CERT default to Debian's OVMF test key, which the firmware file
# OVMF_VARS_4M.snakeoil.fd trusts; mk/sign.sh says loudly that it is one.
# TRUST="FILE..." builds the SHA-256 digests of those files into the image
# that is signed ($(BUILD)/signed/ptlab.efi: the app with its own copy of
# efi/lib/trustlist.c): under Secure Boot it runs what no firmware can
# judge (an initrd, an ELF kernel, a module) only by those digests.  The
# default build's list ($(BUILD)/gen/trust.inc) is empty.
KEY ?= /usr/share/ovmf/PkKek-1-snakeoil.key
CERT ?= /usr/share/ovmf/PkKek-1-snakeoil.pem
TRUST ?=
SIGNED_EFI := $(BUILD)/ptlab-signed.efi
SIGNED_IMAGE := $(BUILD)/ptlab-signed.img
SIGNED_APP := $(BUILD)/signed/ptlab.efi
TRUST_INC := $(BUILD)/gen/trust.inc
SIGNED_TRUST_INC := $(BUILD)/gen/signed/trust.inc
TRUSTLIST_OBJ := $(BUILD)/efi/efi/lib/trustlist.c.o
SIGNED_TRUSTLIST_OBJ := $(BUILD)/signed/efi/lib/trustlist.c.o
SIGNED_APP_OBJS := $(filter-out $(TRUSTLIST_OBJ),$(EFI_APP_OBJS)) $(SIGNED_TRUSTLIST_OBJ)

$(TRUST_INC): mk/trust.sh | deps-build
	$(call msg,GEN,$@)
	$(Q)mk/trust.sh $@

# rewritten only when TRUST or a file it names changes (mk/trust.sh)
$(SIGNED_TRUST_INC): mk/trust.sh $(TRUST) FORCE | deps-test
	$(Q)mk/trust.sh $@ $(TRUST)

$(TRUSTLIST_OBJ): $(TRUST_INC)

$(SIGNED_TRUSTLIST_OBJ): efi/lib/trustlist.c $(SIGNED_TRUST_INC) | deps-test
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(EFI_CC) $(EFI_APP_CFLAGS) -iquote $(BUILD)/gen/signed $(DEPFLAGS) -c $< -o $@

$(eval $(call efi-app-rule,$(SIGNED_APP),SIGNED_APP_OBJS,EFI_APP_LIBS))
$(SIGNED_APP:.efi=.so): $(BUILD)/lists/efi.list

.PHONY: signed-image
signed-image: $(SIGNED_IMAGE)

$(SIGNED_EFI): $(SIGNED_APP) mk/sign.sh FORCE | deps-test
	$(Q)mk/sign.sh '$(KEY)' '$(CERT)' $(SIGNED_APP) $@ $(BUILD)/sign

$(SIGNED_IMAGE): $(SIGNED_EFI) startup.nsh mk/image.sh | deps-test
	$(call msg,IMAGE,$@)
	$(Q)mk/image.sh $@ $(SIGNED_EFI) startup.nsh '$(subst ','\'',$(ARGS))'

# ==== entry-state chainloader (test only) ====
#
# $(BUILD)/tests/chain.efi: a UEFI application that starts ptlab.efi after
# putting the CPU into the states other firmware leaves, and compares every
# register ptlab restores (tests/boot/entrystate.sh).
CHAIN_EFI := $(BUILD)/tests/chain.efi

.PHONY: chain
chain: $(CHAIN_EFI)

# ptlab's LA57 trampoline, shared as it is: the la57 variant enters ptlab in
# 5-level paging through it.
CHAIN_OBJS := $(BUILD)/efi/tests/entrystate/chain.c.o $(BUILD)/efi/efi/live/la57tramp.c.o \
	$(BUILD)/efi/efi/cpu/gdt.c.o \
	$(BUILD)/efi/efi/live/la57tramp_asm.S.o
CHAIN_LIBS :=

$(eval $(call efi-app-rule,$(CHAIN_EFI),CHAIN_OBJS,CHAIN_LIBS))

-include $(BUILD)/efi/tests/entrystate/chain.c.d

-include $(wildcard $(patsubst %.o,%.d,$(FBRENDER_OBJS) $(EXAMPLE_EFI_OBJS) \
	$(EXAMPLE_SRCS:%=$(BUILD)/host/%.o)))

# ==== view: the address-space page of a report ====
#
#   make view [REPORT=path/to/PTLAB.TXT or a serial log]
# writes $(BUILD)/view/index.html (self-contained) and $(BUILD)/view/map.svg
# with tools/view.py.  Without REPORT: the serial log of the last "make
# run" ($(RUN_DIR)/serial.log), else \PTLAB.TXT from its image $(RUN_IMAGE).

REPORT ?=
VIEW_DIR := $(BUILD)/view
# a hostile report's page judged in headless Chromium (tests/tools/test_view.py)
TEST_SUITES += 'view-hostile=python3 tests/tools/test_view.py'

.PHONY: view

# REPORT reaches the recipe as data, through the environment, never as
# shell text: any file name works (not exported as itself: make would
# expand it to do so).
unexport REPORT
view: export PTLAB_VIEW_REPORT = $(value REPORT)
view: | deps-build
	$(Q)rep=$$PTLAB_VIEW_REPORT; \
	if [ -z "$$rep" ]; then \
		if [ -s '$(RUN_DIR)/serial.log' ]; then rep='$(RUN_DIR)/serial.log'; \
		elif [ -f '$(RUN_IMAGE)' ] && mcopy -o -i '$(RUN_IMAGE)@@1M' ::/PTLAB.TXT \
			'$(BUILD)/PTLAB.TXT' 2>/dev/null; then rep='$(BUILD)/PTLAB.TXT'; \
		else echo 'view: no report: "make run" first, or make view REPORT=path/to/PTLAB.TXT' >&2; \
			exit 1; fi; \
	fi; \
	python3 tools/view.py "$$rep" '$(VIEW_DIR)'

# ==== the console font ====
#
# efi/report/font8x16.c includes $(BUILD)/gen/font8x16.inc: Terminus 8x16 (SIL
# Open Font License 1.1, xfonts-terminus), the ISO 8859-1 code page,
# converted from its PCF by tools/pcf2c.py.


$(FONT_INC): tools/pcf2c.py | deps-build
	$(call msg,GEN,$@)
	@mkdir -p $(@D)
	$(Q)python3 tools/pcf2c.py $(FONT_PCF) $@.tmp && mv $@.tmp $@

$(BUILD)/efi/efi/report/font8x16.c.o $(BUILD)/host/efi/report/font8x16.c.o \
$(BUILD)/host/tests/unit/test_fbcon.c.o: $(FONT_INC)

# Installation (make install, check-install) and mutation testing (make mutants).
include mk/install.mk mk/mutants.mk
include mk/limine.mk
