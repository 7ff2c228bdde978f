# SPDX-License-Identifier: MIT
#
# The entry-state chainloader (test only, make chain).

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
