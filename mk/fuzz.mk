# SPDX-License-Identifier: MIT
#
# Fuzzing (make fuzz, fuzz-replay: libFuzzer, clang) and the reliability
# suite (test_bad_input and test_alloc_fail again, with the seeds).

# libFuzzer targets tests/fuzz/fuzz_*.c (clang, ASan+UBSan), each built
# from its source and the sources it checks (FUZZ_SRCS_<target>: paging/*.c
# and the unit-test support sources, or the efi/ parsers with what they
# call) into $(BUILD)/fuzz/.  Seeds: tests/fuzz/corpus/<target>/ (written by
# tests/fuzz/mkcorpus.py).  "make fuzz" runs the targets one after the other
# for FUZZ_SECONDS each, each as FUZZ_JOBS processes sharing one corpus
# (default: one per core), and prints their executions and the total;
# "make fuzz-replay" runs every seed once.  The reliability suite reruns test_bad_input and
# test_alloc_fail and prints their case counts with the number of seeds.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_JOBS ?=
FUZZ_TARGETS := memmap plan ops lmelf bzimage opts acpi lmload lxload
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_CFLAGS := $(WARNFLAGS) -Iinclude -Iefi -D_DEFAULT_SOURCE -g -O1 \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
FUZZ_SUPPORT := tests/unit/arena.c tests/unit/shadow.c efi/lib/model.c
FUZZ_SRCS_memmap := $(PAGING_SRCS) $(FUZZ_SUPPORT)
FUZZ_SRCS_plan := $(PAGING_SRCS) $(FUZZ_SUPPORT)
FUZZ_SRCS_ops := $(PAGING_SRCS) $(FUZZ_SUPPORT)
FUZZ_SRCS_lmelf := $(addprefix efi/,limine/lmelf.c limine/lmerr.c limine/lmreq.c report/fmt.c)
FUZZ_SRCS_lmload := $(PAGING_SRCS) $(addprefix efi/,limine/lmelf.c limine/lmerr.c \
	limine/lmreq.c limine/lmresp.c limine/lmmap.c limine/lmplan.c limine/lmplace.c report/fmt.c)
FUZZ_SRCS_lxload := $(PAGING_SRCS) $(addprefix efi/,linux/linuxboot.c linux/lxplace.c report/fmt.c)
FUZZ_SRCS_bzimage := efi/linux/linuxboot.c efi/report/fmt.c
FUZZ_SRCS_opts := efi/opts/opts.c efi/opts/lex.c efi/opts/loadopts.c efi/opts/cfgfile.c efi/opts/optcheck.c efi/report/fmt.c
FUZZ_SRCS_acpi := efi/acpi/acpi.c
FUZZ_HDRS := $(wildcard include/ptlab/*.h paging/*.h tests/unit/*.h tests/fuzz/*.h efi/*/*.h)
FUZZ_BINS := $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz_%)

.PHONY: fuzz fuzz-build fuzz-replay reliability

# $(call fuzz-rule,TARGET): $(FUZZ_DIR)/fuzz_TARGET from its source and FUZZ_SRCS_TARGET
define fuzz-rule
$(FUZZ_DIR)/fuzz_$(1): tests/fuzz/fuzz_$(1).c $(FUZZ_SRCS_$(1)) $(FUZZ_HDRS) | deps-test
	$$(call msg,FUZZCC,$$@)
	@mkdir -p $$(@D)
	$$(Q)$$(FUZZ_CC) $$(FUZZ_CFLAGS) $$(filter %.c,$$^) -o $$@
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call fuzz-rule,$(t))))

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
