# SPDX-License-Identifier: MIT
#
# The toolchain: the compilers, linker, archiver and gnu-efi files, the
# flags of each build (the firmware's: freestanding, no SSE, no red zone;
# the host's: ASan+UBSan) and the templates every object, archive and UEFI
# application is made with (compile-rule, archive-rule, efi-app-rule).
# Variables and templates only, no rule; included first, so that every
# later ":=" sees the flags.

# ---- tools ----

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

# ---- flags ----

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

# ---- rule templates ----

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

# The PE's own data (mk/pe.py): the SBAT line of every image (mk/sbat.csv,
# the one place of ptlab's SBAT generation; docs/firmware.md says when to
# bump it) and DllCharacteristics' NX_COMPAT bit, set when NX_COMPAT=1 (the default)
# (ptlab then promises never to run code from memory the firmware may map
# non-executable).  tests/pe.py reads both back from the built image.
NX_COMPAT ?= 1
SBAT_CSV := mk/sbat.csv
PE_KEEP := .text .sdata .data .dynamic .dynsym .rel .rela '.rel.*' '.rela.*' .reloc

# $(call efi-app-rule,EFI,OBJS,LIBS): the UEFI application EFI (PE32+) from
# the objects in variable OBJS and the archives in variable LIBS, through
# EFI:.efi=.so linked with gnu-efi's crt0 and linker script; objcopy's PE
# with .sbat and the NX_COMPAT bit (mk/pe.py).
define efi-app-rule
$(1:.efi=.so): $$($(2)) $$($(3))
	$$(call msg,LD,$$@)
	@mkdir -p $$(@D)
	$$(Q)$$(EFI_LD) $$(EFI_LDFLAGS) $$(EFI_CRT0) $$($(2)) $$($(3)) $$(EFI_LDLIBS) -o $$@
$(1): $(1:.efi=.so) $$(SBAT_CSV) mk/pe.py $$(BUILD)/lists/pe.list
	$$(call msg,OBJCOPY,$$@)
	@mkdir -p $$(@D)
	$$(Q)python3 mk/pe.py $$(OBJCOPY) $$< $$@ $$(SBAT_CSV) $$(PTLAB_VERSION) $$(NX_COMPAT) $$(PE_KEEP)
endef

EFI_APP_ASFLAGS = $(EFI_APP_CFLAGS) -D__ASSEMBLY__
