# SPDX-License-Identifier: MIT
#
# The NX-enforcing firmware: "make ovmf-nx" builds OVMF from Debian's edk2
# source package with the memory protections of a current PC on
# (mk/ovmfnx.sh, docs/firmware.md), once, into $(OVMFNX_DIR); "make
# test-nxfw" runs ptlab's firmware-mode and hand-off suite on it
# (tests/boot/nxfw.sh).  Neither is in "make test": the build takes many
# minutes; .ci/run runs "make test-nxfw" after "make test".

# The cache: the source, edk2's build tree and the two flash images.
OVMFNX_DIR ?= $(BUILD)/ovmf-nx
OVMFNX_CODE := $(OVMFNX_DIR)/OVMF_CODE_4M.fd
OVMFNX_VARS := $(OVMFNX_DIR)/OVMF_VARS_4M.fd
# edk2's build threads (its "build -n")
OVMFNX_JOBS ?= 2

.PHONY: ovmf-nx test-nxfw
ovmf-nx: $(OVMFNX_CODE)

# Rebuilt only when the script (its flags and PCDs) changes; edk2's own
# build is incremental in the cache.
$(OVMFNX_CODE): mk/ovmfnx.sh | deps-nxfw
	$(call msg,EDK2,$@)
	$(Q)OVMFNX_JOBS='$(OVMFNX_JOBS)' nice -n 19 mk/ovmfnx.sh '$(OVMFNX_DIR)'

test-nxfw: | deps-test deps-nxfw
	$(Q)$(MAKE) BUILD=$(BUILD) V=$(V) all image linux-initrd ovmf-nx
	$(Q)PTLAB_BUILD=$(BUILD) PTLAB_IMG=$(IMAGE) OVMF_NX_CODE='$(OVMFNX_CODE)' \
		OVMF_NX_VARS='$(OVMFNX_VARS)' OVMF_NX_PCDS='$(OVMFNX_DIR)/pcds.txt' tests/boot/nxfw.sh
