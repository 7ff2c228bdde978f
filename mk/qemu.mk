# SPDX-License-Identifier: MIT
#
# The disk images and QEMU: "make image" (the stick image), the image
# "make run" boots ($(RUN_DIR)/run.img: ARGS, KERNEL, INITRD, CMDLINE) and
# "make run" itself, judged by mk/verdict.sh.

# ---- run settings ----

OVMF_CODE ?= /usr/share/OVMF/OVMF_CODE_4M.fd
OVMF_VARS ?= /usr/share/OVMF/OVMF_VARS_4M.fd

# Options for the application, stored in \ptlab.cfg on the image
# (no file when empty): make run ARGS="..."
ARGS ?=
QEMU ?= qemu-system-x86_64
QEMU_CPU ?= max
QEMU_MEM ?= 2G
QEMU_SMP ?= 1
QEMU_EXTRA ?=
# QEMU's known deviations from the SDM (docs/mmu.md), which "make run" lists
# for ptlab unless ARGS names its own --known-deviation (QEMU_DEVIATIONS=:
# none): QEMU 7.2 raises a reserved-bit #PF with P=0
QEMU_DEVIATIONS ?= rsvd-p0
# where "make run" keeps the firmware variables and the serial log
RUN_DIR ?= $(BUILD)
# isa-debug-exit: the guest writes code C to port 0xf4, QEMU exits with
# (C << 1) | 1: 0x10 passed (33), 0x11 failed (35), 0x12 aborted (37),
# 0x13 nothing checked (39).  "make run" judges by the serial log instead.

# ---- image and QEMU ----

# Rebuilt every time: it is cheap and \ptlab.cfg follows ARGS.  SHIM=1:
# the image for Secure Boot with Microsoft's keys (mk/secureboot.mk).
image: $(IMAGE)

ifneq ($(SHIM),1)
$(IMAGE): $(EFI_APP) startup.nsh mk/image.sh FORCE | deps-run
	$(call msg,IMAGE,$@)
	$(Q)mk/image.sh $@ $(EFI_APP) startup.nsh '$(subst ','\'',$(ARGS))'
endif

# What "make run" boots: the image with ARGS as \ptlab.cfg and, when ARGS
# names no --end, --end=shutdown added, so QEMU ends as soon as the run has
# ended (the stick image, "make image", keeps --end=wait as its default).
# Its \startup.nsh (the UEFI shell's fallback when the run returned, e.g.
# refused its options) never runs a second run over the first one's
# \PTLAB.TXT (mk/run-startup.sed) and, without an --end in ARGS, shuts
# down.
RUN_IMAGE ?= $(RUN_DIR)/run.img
RUN_END := $(if $(filter --end=%,$(ARGS)),,--end=shutdown)
RUN_DEV := $(if $(filter --known-deviation=%,$(ARGS)),,$(if $(QEMU_DEVIATIONS),--known-deviation=$(QEMU_DEVIATIONS)))
RUN_NSH := $(RUN_DIR)/run-startup.nsh

$(RUN_NSH): startup.nsh mk/run-startup.sed FORCE
	@mkdir -p $(@D)
	$(Q)sed -f mk/run-startup.sed startup.nsh | \
		sed -e '' $(if $(RUN_END),-e 's|exit /b|reset -s|' -e '$$a reset -s') >$@

# make run KERNEL=PATH [INITRD="A B"] [MODULES="A B"] [CMDLINE="..."]: the
# kernel, the initrds (a Linux kernel's) or the modules (a Limine-protocol
# kernel's, each with its file name as its string) go onto the run image and \ptlab.cfg boots them on the checked
# tables (--mode=handoff --kernel=... --initrd=... "--cmdline=...", the
# command line one word of the option tokenizer: mk/image.sh).  CMDLINE
# defaults to console=ttyS0 here, so the kernel talks on the serial port
# "make run" shows; CMDLINE= passes an empty one.  The values reach the
# script through the environment as written ($(value ...): make expands
# nothing in them), never as shell text.
RUN_CMDLINE_GIVEN := $(if $(filter undefined,$(origin CMDLINE)),,1)

$(RUN_IMAGE): export PTLAB_RUN_KERNEL = $(value KERNEL)
$(RUN_IMAGE): export PTLAB_RUN_INITRD = $(value INITRD)
$(RUN_IMAGE): export PTLAB_RUN_MODULES = $(value MODULES)
$(RUN_IMAGE): export PTLAB_RUN_CMDLINE = $(if $(RUN_CMDLINE_GIVEN),$(value CMDLINE),console=ttyS0)
$(RUN_IMAGE): $(EFI_APP) $(RUN_NSH) mk/image.sh FORCE | deps-run
	$(call msg,IMAGE,$@)
	$(Q)mk/image.sh $@ $(EFI_APP) $(RUN_NSH) '$(subst ','\'',$(strip $(ARGS) $(RUN_END) $(RUN_DEV)))'

# The verdict comes from what the application said on the serial port (a
# copy of it in $(RUN_DIR)/serial.log) and the report files on the image,
# never from QEMU's exit status alone: mk/verdict.sh.
run: $(RUN_IMAGE) | deps-run
	$(Q)mkdir -p $(RUN_DIR) && cp $(OVMF_VARS) $(RUN_DIR)/OVMF_VARS.fd
	$(Q)rm -f $(RUN_DIR)/serial.log; status=0; \
	$(QEMU) -machine q35,accel=tcg -cpu $(QEMU_CPU) -m $(QEMU_MEM) \
		-smp $(QEMU_SMP) \
		-drive if=pflash,format=raw,readonly=on,file=$(OVMF_CODE) \
		-drive if=pflash,format=raw,file=$(RUN_DIR)/OVMF_VARS.fd \
		-drive format=raw,file=$(RUN_IMAGE) \
		-chardev stdio,id=ptlabcom1,logfile=$(RUN_DIR)/serial.log,signal=on \
		-serial chardev:ptlabcom1 -display none \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
		-net none -no-reboot $(QEMU_EXTRA) || status=$$?; \
	mk/verdict.sh $(RUN_DIR)/serial.log $(RUN_IMAGE) $$status
