# SPDX-License-Identifier: MIT
#
# What the Linux hand-off tests boot besides ptlab: the initramfs
# (make linux-initrd) and Debian's kernel signed with KEY (make
# linux-signed, for the Secure Boot suite).  Test only.

# tests/linux/init.c, static, as /init and busybox-static's busybox as
# /bin/busybox (mk/initramfs.sh); tests/boot/linux.sh boots Debian's
# linux-image-cloud-amd64 kernel with it on ptlab's tables.
LINUX_DIR := $(BUILD)/linux
LINUX_INITRD := $(LINUX_DIR)/initrd.img
BUSYBOX ?= /bin/busybox

.PHONY: linux-initrd
linux-initrd: $(LINUX_INITRD)

$(LINUX_DIR)/init: tests/linux/init.c | deps-test
	$(call msg,CCLD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) -static -O2 $(WARNFLAGS) -o $@ $<

# the cloud kernel's efivarfs module: /init loads it to read an EFI variable
EFIVARFS_KO ?= $(lastword $(sort $(wildcard /lib/modules/*-cloud-amd64/kernel/fs/efivarfs/efivarfs.ko)))

$(LINUX_INITRD): $(LINUX_DIR)/init mk/initramfs.sh | deps-test
	$(call msg,CPIO,$@)
	$(Q)mk/initramfs.sh $@ $< $(BUSYBOX) $(EFIVARFS_KO)

# The same kernel signed with KEY (Debian's signature replaced), for the
# Secure Boot suite: the signed ptlab boots it on firmware that trusts KEY.
LINUX_KERNEL ?= $(lastword $(sort $(wildcard /boot/vmlinuz-*-cloud-amd64)))
LINUX_SIGNED := $(LINUX_DIR)/vmlinuz-signed

.PHONY: linux-signed
linux-signed: $(LINUX_SIGNED)

$(LINUX_SIGNED): $(LINUX_KERNEL) mk/sign.sh | deps-test
	$(Q)mk/sign.sh --kernel '$(KEY)' '$(CERT)' $< $@ $(LINUX_DIR)/sign
