# SPDX-License-Identifier: MIT
#
# The console font: efi/report/font8x16.c includes $(BUILD)/gen/font8x16.inc,
# Terminus 8x16 (SIL Open Font License 1.1, xfonts-terminus), the ISO 8859-1
# code page, converted from its PCF by tools/pcf2c.py.  Included right after
# the toolchain: FONT_INC is defined before any rule names it as a
# prerequisite (check-freestanding), and its folder joins the include paths.

FONT_PCF ?= /usr/share/fonts/X11/misc/ter-u16n_iso-8859-1.pcf.gz
FONT_INC := $(BUILD)/gen/font8x16.inc
EFI_APP_CFLAGS += -I$(BUILD)/gen
HOST_CFLAGS += -I$(BUILD)/gen

$(FONT_INC): tools/pcf2c.py | deps-build
	$(call msg,GEN,$@)
	@mkdir -p $(@D)
	$(Q)python3 tools/pcf2c.py $(FONT_PCF) $@.tmp && mv $@.tmp $@

$(BUILD)/efi/efi/report/font8x16.c.o $(BUILD)/host/efi/report/font8x16.c.o \
$(BUILD)/host/tests/unit/test_fbcon.c.o: $(FONT_INC)
