# SPDX-License-Identifier: MIT
#
# "make mmu-faults", the proof that ptlab's checks see a broken MMU (not in
# "make test"): QEMU's x86-64 system emulator built once from Debian's qemu
# source package under $(MMU_DIR) ("make mmu-qemu", mk/mmu-qemu.sh: about
# 20 minutes of 2 cores the first time, seconds after), then every fault of
# tests/mmu/faults.txt patched in alone and ptlab booted on it
# (tests/mmu/run.sh).  MMU_FAULTS="NAME ..." runs only those; MMU_DOC=FILE
# writes the table into FILE (docs/testing.md).  The mmu package group
# (mk/packages.txt) is this target's alone.

MMU_DIR ?= $(BUILD)/mmu
MMU_FAULTS ?=
MMU_DOC ?=

.PHONY: mmu-qemu mmu-faults
mmu-qemu: | deps-mmu
	$(Q)nice -n 19 mk/mmu-qemu.sh $(MMU_DIR)

mmu-faults: mmu-qemu $(IMAGE) | deps-mmu
	$(Q)PTLAB_BUILD=$(BUILD) PTLAB_IMG=$(IMAGE) MMU_DOC='$(MMU_DOC)' \
		tests/mmu/run.sh $(MMU_DIR) $(MMU_FAULTS)
