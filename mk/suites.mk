# SPDX-License-Identifier: MIT
#
# "make test": the one list of suites (TEST_SUITES) and the rule that
# builds what they read, then runs them all (tests/run-suites.sh).

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
	'interfaces=$(MAKE) BUILD=$(BUILD) V=$(V) check-interfaces' \
	'protocols=tests/protocols.sh' \
	'sizes=tests/sizes.sh' \
	'covers=tests/covers.sh' \
	'report=python3 tests/tools/test_report.py' \
	'packages=tests/packages.sh' \
	'docs=python3 tests/check-links.py' \
	'pe=python3 tests/pe.py --nx $(NX_COMPAT) $(EFI_APP) $(BUILD)/ptlab-signed.efi'
TEST_SUITES += $(foreach t,$(BOOT_TESTS), \
	'$(basename $(notdir $(t)))=PTLAB_BUILD=$(BUILD) PTLAB_IMG=$(IMAGE) $(t)')
# a hostile report's page judged in headless Chromium (tests/tools/test_view.py)
TEST_SUITES += 'view-hostile=python3 tests/tools/test_view.py'
# make check-install (mk/install.mk)
TEST_SUITES += 'install=$(MAKE) BUILD=$(BUILD) V=$(V) check-install'

# Builds what the suites need first; a failing build is reported by the
# suites that need it (their output is missing), never hidden by a stale
# image.  The signed image holds the test initramfs's digest (TRUST=), so
# the secureboot suite can boot it under Secure Boot.
test: | deps-test
	$(Q)rm -f $(IMAGE)
	-$(Q)$(MAKE) -k BUILD=$(BUILD) V=$(V) all image fbrender chain linux-initrd linux-signed limine checks-tsv
	-$(Q)$(MAKE) -k BUILD=$(BUILD) V=$(V) signed-image TRUST='$(LINUX_INITRD)'
	$(Q)JOBS='$(JOBS)' TEST_LOGS='$(TEST_LOGS)' tests/run-suites.sh $(TEST_SUITES)
