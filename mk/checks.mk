# SPDX-License-Identifier: MIT
#
# The checks of the tree's structure: check-freestanding (paging/ and the
# firmware-free modules see no firmware header, libptlab.a needs nothing
# undocumented), check-layers (mk/layers.txt, mk/statics.txt),
# check-interfaces (the modules' interfaces are small) and check-size (so
# are its files and functions).

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

# Few functions take the whole run state (the share printed, at most 20 %),
# state.h declares none, every .c has its own header, the shared checks
# name no mode and no kernel field; each kind of wide interface refused on
# a copy (tests/interfaces.sh).  Counted with Universal Ctags.
.PHONY: check-interfaces
check-interfaces: | deps-test
	$(Q)tests/interfaces.sh

# No file of efi/, paging/ or include/ over 800 lines, no function over 100
# lines of body; the largest file and the longest function printed.  The
# suite (tests/sizes.sh) also proves that it refuses both on a copy.
.PHONY: check-size
check-size:
	$(Q)python3 mk/check-size.py .
