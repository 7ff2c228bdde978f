# SPDX-License-Identifier: MIT
#
# The builds of "make all": every object's pattern rule (firmware, host,
# benchmark builds; mk/toolchain.mk's compile-rule), the source lists that
# make archives follow a deleted file, libptlab.a for the firmware and the
# host, ptlab.efi, and libptlab-app.a (efi/'s firmware-free modules on the
# host, linked by the unit tests).

$(eval $(call compile-rule,efi,paging/,c,EFI_CC,PAGING_EFI_CFLAGS,CC))
$(eval $(call compile-rule,efi,efi/,c,EFI_CC,EFI_APP_CFLAGS,CC))
$(eval $(call compile-rule,efi,efi/,S,EFI_CC,EFI_APP_ASFLAGS,AS))
$(eval $(call compile-rule,efi,examples/,c,EFI_CC,PAGING_EFI_CFLAGS,CC))
$(eval $(call compile-rule,efi,tests/entrystate/,c,EFI_CC,EFI_APP_CFLAGS,CC))
$(eval $(call compile-rule,host,,c,HOSTCC,HOST_CFLAGS,HOSTCC))
$(eval $(call compile-rule,bench,,c,HOSTCC,BENCH_CFLAGS,BENCHCC))
$(eval $(call compile-rule,bench-scalar,paging/,c,HOSTCC,BENCH_SCALAR_CFLAGS,BENCHCC))
$(eval $(call compile-rule,bench-scalar,tests/bench/,c,HOSTCC,BENCH_SCALAR_MAIN_CFLAGS,BENCHCC))

# Source lists, rewritten only when they change, so that archives and links
# also follow a deleted source file.
$(BUILD)/lists/%.list: FORCE
	@mkdir -p $(@D)
	@echo '$(SRCLIST_$*)' | cmp -s - $@ || echo '$(SRCLIST_$*)' >$@

SRCLIST_paging = $(PAGING_SRCS)
SRCLIST_efi = $(EFI_SRCS)
SRCLIST_unit = $(UNIT_SUPPORT_SRCS)
# what mk/pe.py writes into the PE besides the sections
SRCLIST_pe = version=$(PTLAB_VERSION) nx_compat=$(NX_COMPAT)

$(eval $(call archive-rule,$(EFI_LIBPTLAB),EFI_PAGING_OBJS,paging))
$(eval $(call efi-app-rule,$(EFI_APP),EFI_APP_OBJS,EFI_APP_LIBS))
$(EFI_SO): $(BUILD)/lists/efi.list

# ---- host build ----

$(eval $(call archive-rule,$(HOST_LIBPTLAB),HOST_PAGING_OBJS,paging))

# The firmware-free modules of efi/ for the host (ASan+UBSan), in an archive
# of their own: the unit tests link them as they are.  What they need from
# the machine (the fault probes, invlpg, wbinvd, flushes, the deadline) is
# behind link seams declared in efi/ headers: efi/live/live.c,
# efi/live/flush.c and efi/cpu/trap.c define them for the firmware,
# tests/seams.h once for the host programs that link such a module.  Built without the gnu-efi include path, so a firmware header
# reaching one of these modules fails to compile here.
APP_HOST_SRCS := $(addprefix efi/,checks/checkkit.c checks/churn.c checks/churnjudge.c \
	checks/churntype.c checks/inject.c \
	checks/registry.c core/verdict.c lib/efistatus.c lib/model.c lib/sha256.c lib/trust.c rules/rules.c \
	cpu/gdt.c limine/lmelf.c limine/lmerr.c limine/lmmap.c limine/lmreq.c \
	limine/lmresp.c limine/lmplan.c limine/lmplace.c linux/linuxboot.c linux/lxplace.c opts/cfgfile.c opts/lex.c opts/loadopts.c opts/optcheck.c opts/opts.c opts/usage.c \
	report/fbcon.c report/fmt.c report/font8x16.c report/ptdump.c report/report.c \
	report/serline.c \
	smp/smpcore.c acpi/acpi.c)
APP_HOST_OBJS := $(APP_HOST_SRCS:%=$(BUILD)/host/%.o)
HOST_LIBAPP := $(BUILD)/host/libptlab-app.a
SRCLIST_app = $(APP_HOST_SRCS)

$(eval $(call archive-rule,$(HOST_LIBAPP),APP_HOST_OBJS,app))
