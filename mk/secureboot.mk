# SPDX-License-Identifier: MIT
#
# Secure Boot: the digest lists built into the app (mk/trust.sh; the
# default build's empty one is part of "all"), the signed image (make
# signed-image: sbsigntool, a test package) and the image that boots it
# through Debian's signed shim (make image SHIM=1).

# make signed-image: $(BUILD)/ptlab-signed.efi (stripped, signed with sbsign,
# checked with sbverify) and $(BUILD)/ptlab-signed.img around it.  KEY and
# CERT default to Debian's OVMF test key, which the firmware file
# OVMF_VARS_4M.snakeoil.fd trusts; mk/sign.sh says loudly that it is one.
# TRUST="FILE..." builds the SHA-256 digests of those files into the image
# that is signed ($(BUILD)/signed/ptlab.efi: the app with its own copy of
# efi/lib/trustlist.c): under Secure Boot it runs what no firmware can
# judge (an initrd, an ELF kernel, a module) only by those digests.  The
# default build's list ($(BUILD)/gen/trust.inc) is empty.
KEY ?= /usr/share/ovmf/PkKek-1-snakeoil.key
CERT ?= /usr/share/ovmf/PkKek-1-snakeoil.pem
TRUST ?=
SIGNED_EFI := $(BUILD)/ptlab-signed.efi
SIGNED_IMAGE := $(BUILD)/ptlab-signed.img
SIGNED_APP := $(BUILD)/signed/ptlab.efi
TRUST_INC := $(BUILD)/gen/trust.inc
SIGNED_TRUST_INC := $(BUILD)/gen/signed/trust.inc
TRUSTLIST_OBJ := $(BUILD)/efi/efi/lib/trustlist.c.o
SIGNED_TRUSTLIST_OBJ := $(BUILD)/signed/efi/lib/trustlist.c.o
SIGNED_APP_OBJS := $(filter-out $(TRUSTLIST_OBJ),$(EFI_APP_OBJS)) $(SIGNED_TRUSTLIST_OBJ)

$(TRUST_INC): mk/trust.sh | deps-build
	$(call msg,GEN,$@)
	$(Q)mk/trust.sh $@

# rewritten only when TRUST or a file it names changes (mk/trust.sh)
$(SIGNED_TRUST_INC): mk/trust.sh $(TRUST) FORCE | deps-test
	$(Q)mk/trust.sh $@ $(TRUST)

$(TRUSTLIST_OBJ): $(TRUST_INC)

$(SIGNED_TRUSTLIST_OBJ): efi/lib/trustlist.c $(SIGNED_TRUST_INC) | deps-test
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(EFI_CC) $(EFI_APP_CFLAGS) -iquote $(BUILD)/gen/signed $(DEPFLAGS) -c $< -o $@

$(eval $(call efi-app-rule,$(SIGNED_APP),SIGNED_APP_OBJS,EFI_APP_LIBS))
$(SIGNED_APP:.efi=.so): $(BUILD)/lists/efi.list

.PHONY: signed-image
signed-image: $(SIGNED_IMAGE)

$(SIGNED_EFI): $(SIGNED_APP) mk/sign.sh FORCE | deps-test
	$(Q)mk/sign.sh '$(KEY)' '$(CERT)' $(SIGNED_APP) $@ $(BUILD)/sign

$(SIGNED_IMAGE): $(SIGNED_EFI) startup.nsh mk/image.sh | deps-test
	$(call msg,IMAGE,$@)
	$(Q)mk/image.sh $@ $(SIGNED_EFI) startup.nsh '$(subst ','\'',$(ARGS))'

# make image SHIM=1 [KEY=... CERT=...]: $(IMAGE) for a PC with Secure Boot
# on and Microsoft's keys only (mk/shim-image.sh): Debian's signed shim as
# \EFI\BOOT\BOOTX64.EFI, MokManager beside it, the signed image (the
# same KEY and CERT as make signed-image) as grubx64.efi and CERT in DER as
# ptlab.der, the certificate to enrol in shim's MOK list (docs/firmware.md,
# "Booting through shim").  shim-signed is a test package.
SHIM ?=
ifeq ($(SHIM),1)
$(IMAGE): $(SIGNED_EFI) mk/shim-image.sh mk/image.sh FORCE | deps-test
	$(call msg,IMAGE,$@)
	$(Q)mk/shim-image.sh $@ $(SIGNED_EFI) '$(CERT)' '$(subst ','\'',$(ARGS))'
endif
