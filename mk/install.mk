# SPDX-License-Identifier: MIT
#
# make install [PREFIX=/usr/local] [DESTDIR=]: the library for other projects.
#
#   $(PREFIX)/include/ptlab/*.h            the public headers
#   $(PREFIX)/lib/libptlab.a               host build: -O2, no sanitizers, -fPIC
#   $(PREFIX)/lib/libptlab-efi.a           firmware build: freestanding, no red
#                                          zone, no SSE/MMX/x87, -fpic
#   $(PREFIX)/lib/pkgconfig/ptlab.pc       pkg-config for each archive
#   $(PREFIX)/lib/pkgconfig/ptlab-efi.pc
#
# The unit tests' libptlab.a is instrumented (ASan+UBSan) and is never the
# one installed.  "make check-install" installs into a scratch DESTDIR and
# builds examples/handoff.c against that copy alone (tests/install.sh).

PREFIX ?= /usr/local
DESTDIR ?=
INCLUDEDIR ?= $(PREFIX)/include
LIBDIR ?= $(PREFIX)/lib
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
PTLAB_VERSION := 0.1

RELEASE_CFLAGS := $(WARNFLAGS) -Iinclude -O2 -g -fPIC
RELEASE_PAGING_OBJS := $(PAGING_SRCS:%=$(BUILD)/release/%.o)
RELEASE_LIBPTLAB := $(BUILD)/release/libptlab.a
PUBLIC_HEADERS := $(sort $(wildcard include/ptlab/*.h))
# What code around libptlab-efi.a needs in firmware or a kernel (the
# archive itself is built with $(PAGING_EFI_CFLAGS)).
PC_EFI_CFLAGS := -ffreestanding -mno-red-zone -mno-sse -mno-mmx -mno-80387

.PHONY: install check-install install-esp

$(BUILD)/release/%.c.o: %.c | deps-build
	$(call msg,CC,$<)
	@mkdir -p $(@D)
	$(Q)$(HOSTCC) $(RELEASE_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(RELEASE_LIBPTLAB): $(RELEASE_PAGING_OBJS) $(BUILD)/lists/paging.list
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $(filter %.o,$^)

# pc_file NAME LIB WHAT CFLAGS: the pkg-config file for one archive, on stdout
# (written at install time, so it always names this PREFIX).
pc_file = sed -e 's|@PREFIX@|$(PREFIX)|; s|@INCLUDEDIR@|$(INCLUDEDIR)|; s|@LIBDIR@|$(LIBDIR)|' \
	-e 's|@VERSION@|$(PTLAB_VERSION)|; s|@NAME@|$(1)|; s|@LIB@|$(2)|; s|@WHAT@|$(3)|' \
	-e 's|@CFLAGS@|$(4)|' mk/ptlab.pc.in

install: $(RELEASE_LIBPTLAB) $(EFI_LIBPTLAB) mk/ptlab.pc.in
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)install -d '$(DESTDIR)$(INCLUDEDIR)/ptlab' '$(DESTDIR)$(LIBDIR)' '$(DESTDIR)$(PKGCONFIGDIR)'
	$(Q)install -m 644 $(PUBLIC_HEADERS) '$(DESTDIR)$(INCLUDEDIR)/ptlab/'
	$(Q)install -m 644 $(RELEASE_LIBPTLAB) '$(DESTDIR)$(LIBDIR)/libptlab.a'
	$(Q)install -m 644 $(EFI_LIBPTLAB) '$(DESTDIR)$(LIBDIR)/libptlab-efi.a'
	$(Q)$(call pc_file,ptlab,ptlab,host build,) >'$(DESTDIR)$(PKGCONFIGDIR)/ptlab.pc'
	$(Q)$(call pc_file,ptlab-efi,ptlab-efi,freestanding firmware/kernel build,$(PC_EFI_CFLAGS)) \
		>'$(DESTDIR)$(PKGCONFIGDIR)/ptlab-efi.pc'

check-install: | deps-test
	$(Q)MAKE='$(MAKE)' BUILD='$(BUILD)' EFI_CC='$(EFI_CC)' HOSTCC='$(HOSTCC)' NM='$(NM)' \
		tests/install.sh

-include $(wildcard $(RELEASE_PAGING_OBJS:%.o=%.d))

# make install-esp ESP=DIR [DESTDIR=] [MENU_ARGS="--end=return"]
#                  [KERNEL=bzImage [INITRD="initrd..."] [CMDLINE="..."]] [FORCE=1]:
# the application on an EFI System Partition, $(DESTDIR)/DIR/EFI/ptlab/ptlab.efi,
# with a systemd-boot entry (ptlab.conf) and a GRUB entry for
# /etc/grub.d/40_custom (grub.40_custom) beside it, both starting it with
# MENU_ARGS, or with KERNEL: booting that kernel in hand-off mode
# (mk/install-esp.sh).  The values reach the script as data, through the
# environment ($(value ...): not even make expands them), never as shell
# text.  tests/install.sh checks the entries and refusals on the host;
# tests/boot/menus.sh installs into a scratch DESTDIR and boots what it
# wrote under GRUB and systemd-boot.
ESP ?=
MENU_ARGS ?=
# Not exported as they are: make would expand them to do so (a $(shell)
# in a value would run); the PTLAB_ESP_* copies below are their raw values.
unexport ESP DESTDIR MENU_ARGS KERNEL INITRD CMDLINE FORCE

install-esp: export PTLAB_ESP_DIR = $(value ESP)
install-esp: export PTLAB_ESP_DESTDIR = $(value DESTDIR)
install-esp: export PTLAB_ESP_MENU_ARGS = $(value MENU_ARGS)
install-esp: export PTLAB_ESP_KERNEL = $(value KERNEL)
install-esp: export PTLAB_ESP_INITRD = $(value INITRD)
install-esp: export PTLAB_ESP_CMDLINE = $(value CMDLINE)
install-esp: export PTLAB_ESP_FORCE = $(value FORCE)
install-esp: $(EFI_APP) mk/install-esp.sh
	$(Q)mk/install-esp.sh $(EFI_APP)
