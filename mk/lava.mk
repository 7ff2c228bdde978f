# SPDX-License-Identifier: MIT
#
# LAVA: "make lava" runs ptlab as a LAVA job with Debian's lava-run on
# QEMU/OVMF (lava/run.sh), "make test-lava" its suite (tests/boot/lava.sh).
# The jobs, devices and dispatcher configuration are in lava/ (docs/lab.md).

# Where a run keeps its image, job, log and lava-run's output directory.
LAVA_DIR ?= $(BUILD)/lava
# Seconds the job may take, and each of its actions: a hung run (--hold)
# ends as a LAVA timeout after this long.
LAVA_TIMEOUT ?= 300
LAVA_JOB ?= lava/jobs/qemu-ovmf.yaml
LAVA_DEVICE ?= lava/devices/qemu-ovmf.yaml
LAVA_DISPATCHER ?= lava/dispatcher.yaml
# the job's id (default: the time in seconds)
LAVA_JOB_ID ?=
# the Python lava-dispatcher is installed for (lava_common's schemas)
LAVA_PYTHON ?= /usr/bin/python3
# the fault "make test-lava" injects (docs/faults.md), and the timeout of
# its hung job
LAVA_FAULT ?= pf-mapped
LAVA_HOLD_TIMEOUT ?= 60

# The image the job boots: the stick image ("make image": the same app,
# startup.nsh and --end default) with ARGS as \ptlab.cfg, in LAVA_DIR so
# that build/ptlab.img keeps what "make image" made it.  The job boots
# QEMU, so, as "make run" does, QEMU's known deviations (QEMU_DEVIATIONS,
# mk/qemu.mk; docs/mmu.md) are listed after ARGS unless ARGS names its own
# --known-deviation; the monitor reports their TAP TODO lines as pass
# (docs/lab.md).
LAVA_IMAGE := $(LAVA_DIR)/ptlab.img
LAVA_DEV := $(if $(filter --known-deviation=%,$(ARGS)),,$(if $(QEMU_DEVIATIONS),--known-deviation=$(QEMU_DEVIATIONS)))
LAVA_ARGS := $(strip $(ARGS) $(LAVA_DEV))

.PHONY: lava test-lava

$(LAVA_IMAGE): $(EFI_APP) startup.nsh mk/image.sh FORCE | deps-run
	$(call msg,IMAGE,$@)
	$(Q)mkdir -p $(@D)
	$(Q)mk/image.sh $@ $(EFI_APP) startup.nsh '$(subst ','\'',$(LAVA_ARGS))'

# The last line is LAVA's verdict from its own result records; non-zero
# when a test case failed or the job did not complete (lava/results.py).
lava: $(LAVA_IMAGE) | deps-lab
	$(Q)LAVA_JOB='$(LAVA_JOB)' LAVA_DEVICE='$(LAVA_DEVICE)' \
		LAVA_DISPATCHER='$(LAVA_DISPATCHER)' LAVA_JOB_ID='$(LAVA_JOB_ID)' \
		LAVA_PYTHON='$(LAVA_PYTHON)' \
		lava/run.sh '$(LAVA_DIR)' '$(LAVA_IMAGE)' '$(LAVA_TIMEOUT)' '$(subst ','\'',$(LAVA_ARGS))'

# Not in "make test": each job boots QEMU under TCG.  The suite runs
# "make lava" itself, one job at a time.
test-lava: | deps-lab
	$(Q)$(MAKE) BUILD=$(BUILD) V=$(V) all
	$(Q)PTLAB_BUILD=$(BUILD) LAVA_FAULT='$(LAVA_FAULT)' LAVA_HOLD_TIMEOUT='$(LAVA_HOLD_TIMEOUT)' \
		LAVA_PYTHON='$(LAVA_PYTHON)' tests/boot/lava.sh
