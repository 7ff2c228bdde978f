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

# The rest lives in mk/*.mk, one file per concern, each saying at its top
# what it holds.  The order matters where ":=" and prerequisites are
# expanded as they are read: the toolchain's flags and the font's path
# first, then the sources below, then the rules that name them.
include mk/toolchain.mk
include mk/font.mk

# ---- sources --------------------------------------------------------------

PAGING_SRCS := $(sort $(wildcard paging/*.c))
# efi/ is main.c and one folder per concern (mk/layers.txt says which folder
# may use which; "make check-layers" proves it).
EFI_SRCS := $(sort $(wildcard efi/*.c efi/*/*.c efi/*.S efi/*/*.S))
UNIT_TEST_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_SUPPORT_SRCS := $(filter-out $(UNIT_TEST_SRCS),$(sort $(wildcard tests/unit/*.c)))

# Boot tests: every executable tests/boot/*.sh except the shared library
# lava.sh (make test-lava's, mk/lava.mk) and nxfw.sh (make test-nxfw's,
# mk/ovmfnx.mk).
BOOT_TESTS := $(sort $(shell find tests/boot -maxdepth 1 -name '*.sh' \
	! -name lib.sh ! -name lava.sh ! -name nxfw.sh -perm -u+x 2>/dev/null))

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

# ---- targets --------------------------------------------------------------

.PHONY: all deps image run unit unit-build test check-freestanding clean help FORCE bench \
	bench-runs
.DEFAULT_GOAL := all

all: $(EFI_APP) $(HOST_LIBPTLAB)

help:
	@echo 'ptlab targets:'
	@echo '  all                 (default) $(BUILD)/ptlab.efi and $(BUILD)/host/libptlab.a'
	@echo '  deps                check the Debian packages of the build, run and test groups (mk/packages.txt), install missing'
	@echo '                      ones (as root); deps-build, deps-run, deps-test, deps-lab: one group and those below it'
	@echo '  image               $(BUILD)/ptlab.img: GPT disk with the app as \EFI\BOOT\BOOTX64.EFI; SHIM=1: Debian'"'"'s'
	@echo '                      signed shim, MokManager, the signed app (KEY=, CERT=) as grubx64.efi and CERT in DER'
	@echo '  run                 boot $(RUN_DIR)/run.img under QEMU/OVMF (ends with the run), serial on stdio and in $(RUN_DIR)/serial.log;'
	@echo '                      verdict from the serial log and the report files'
	@echo '                      (ARGS="..." -> \ptlab.cfg; QEMU_CPU, QEMU_MEM, QEMU_SMP, QEMU_EXTRA)'
	@echo '                      KERNEL=PATH [INITRD="A B"|MODULES="A B"] [CMDLINE="..."]: boot that kernel on the checked tables'
	@echo '  unit                build and run the host unit tests (ASan+UBSan, cmocka)'
	@echo '  check-freestanding  prove paging/ cannot see firmware headers'
	@echo '  check-layers        prove efi/'"'"'s folders depend on each other as mk/layers.txt says,'
	@echo '                      and keep no state outside struct ptlab but mk/statics.txt'"'"'s'
	@echo '  check-interfaces    print the share of functions taking the whole run state (at most 20 %),'
	@echo '                      and prove state.h has no function and every .c its own header'
	@echo '  check-size          no file of efi/, paging/, include/ over 800 lines, no function over 100'
	@echo '  bench               build (-O2, no sanitizers) and run tests/bench/'
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
	@echo '  lava                run ptlab as a LAVA job with lava-run on QEMU/OVMF (as root; ARGS -> \ptlab.cfg,'
	@echo '                      LAVA_TIMEOUT=$(LAVA_TIMEOUT) s, LAVA_DIR=$(LAVA_DIR)); ends with "lava: N passed, M failed, ..."'
	@echo '  test-lava           the LAVA suite: a good job, an injected fault (LAVA_FAULT), a hung run (not in test)'
	@echo '  ovmf-nx             $(OVMFNX_DIR): OVMF built from Debian'"'"'s edk2 source with NX enforced (minutes; cached)'
	@echo '  test-nxfw           ptlab'"'"'s firmware-mode and hand-off suite on that firmware (not in test; CI runs it)'
	@echo '  mmu-qemu            $(BUILD)/mmu: QEMU 7.2 built from Debian'"'"'s qemu source (once; ~20 min)'
	@echo '  mmu-faults          every fault of tests/mmu/faults.txt patched into that QEMU, ptlab booted on it:'
	@echo '                      which check caught it (MMU_FAULTS="NAME ...", MMU_DOC=docs/testing.md; not in test)'
	@echo '  clean               remove $(BUILD)'
	@echo 'variables: BUILD=$(BUILD) V=1 (full commands) DEPS_CHECK=0 (skip package check)'
	@echo '           NX_COMPAT=$(NX_COMPAT) (1: the PE header says NX_COMPAT; SBAT generation: mk/sbat.csv)'

# Package checks (mk/packages.txt, mk/deps.sh): deps-build before any
# compile, deps-run before an image or QEMU, deps-test before the test
# suites, deps-lab before "make lava" and "make test-lava" (lava-dispatcher,
# in no other group), deps-nxfw before "make ovmf-nx" and "make test-nxfw"
# (what building edk2 needs; CI installs it); each group includes the ones it builds on.  Order-only
# prerequisites, so each runs once per make invocation and never forces a
# rebuild; apt-get is called only when something is missing.  "make" and
# "make run" never ask for a test package.
DEPS_CHECK ?= 1
.PHONY: deps deps-build deps-run deps-test deps-lab deps-nxfw deps-mmu
deps: deps-test
deps-build deps-run deps-test deps-lab deps-nxfw deps-mmu:
ifeq ($(DEPS_CHECK),1)
	$(Q)mk/deps.sh $(@:deps-%=%)
endif

# The builds of "all", the unit tests, the benchmark, the structure checks,
# "make test" and its suites, fuzzing, the Linux tests' files, the disk
# images and "make run".
include mk/build.mk
include mk/unit.mk
include mk/bench.mk
include mk/checks.mk
include mk/suites.mk
include mk/fuzz.mk
include mk/linux.mk
include mk/qemu.mk

clean:
	$(call msg,CLEAN,$(BUILD))
	$(Q)rm -rf -- '$(BUILD)'

FORCE:

# Keep objects and lists that only pattern rules mention.
.SECONDARY:

# The compiler's dependency files of the objects named so far (their lists
# come from the sources above, mk/build.mk, mk/unit.mk and mk/bench.mk).
-include $(wildcard $(patsubst %.o,%.d,$(EFI_PAGING_OBJS) $(EFI_APP_OBJS) \
	$(HOST_PAGING_OBJS) $(UNIT_SUPPORT_OBJS) $(APP_HOST_OBJS) $(CATALOG_HOST_OBJS) \
	$(UNIT_TEST_SRCS:%=$(BUILD)/host/%.o) $(BENCH_OBJS) $(BENCH_PAGING_OBJS) \
	$(BENCH_SCALAR_PAGING_OBJS) $(BENCH_SCALAR_OBJS)))

# Components outside "all" (fbrender, check-examples, check-undefined),
# Secure Boot (the digest lists, the signed image), the entry-state
# chainloader, "make view", installation, mutation testing, the
# Limine-protocol test kernels.
include mk/components.mk
include mk/secureboot.mk
include mk/chain.mk
include mk/view.mk
include mk/install.mk
include mk/mutants.mk
include mk/limine.mk

# The check registry as a table, and docs/faults.md's table made from it.
include mk/registry.mk

# ptlab as a LAVA job (make lava) and its suite (make test-lava).
include mk/lava.mk

# The NX-enforcing OVMF (make ovmf-nx) and ptlab's suite on it (make test-nxfw).
include mk/ovmfnx.mk

# QEMU rebuilt with deliberate MMU faults (make mmu-qemu, make mmu-faults).
include mk/mmu.mk
