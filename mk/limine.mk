# SPDX-License-Identifier: MIT
#
# The Limine-protocol test kernel (tests/limine/), the judge of
# --mode=handoff with an ELF kernel (tests/boot/limine.sh), in two builds
# below $(BUILD)/limine/:
#   kernel-pie.elf     position independent, linked at 0 (-fPIE); only
#                      R_X86_64_RELATIVE relocations
#   kernel-static.elf  linked at 0xffffffff80000000 (-mcmodel=kernel), its
#                      firmware type request a decoy after the end marker
#   kernel-rev0.elf    the static build asking for base revision 0
# Each is checked as it is linked (tests/limine/check-elf.py: segments,
# relocations, the request markers and a plain scan for every request);
# a failing check fails the build.  "make limine" builds them.

LIMINE_DIR := $(BUILD)/limine
LIMINE_SRCS := tests/limine/entry.S tests/limine/kernel.c tests/limine/fwtables.c tests/limine/smp.c tests/limine/lib.c
LIMINE_HDRS := tests/limine/lib.h tests/limine/proto.h tests/limine/kernel.h
LIMINE_KERNELS := $(LIMINE_DIR)/kernel-pie.elf $(LIMINE_DIR)/kernel-static.elf \
	$(LIMINE_DIR)/kernel-rev0.elf

LIMINE_CFLAGS := $(WARNFLAGS) -O2 -g -ffreestanding -nostdlib -mno-red-zone \
	-mno-sse -mno-mmx -mno-80387 -fno-stack-protector -fno-stack-check \
	-fno-asynchronous-unwind-tables -fno-unwind-tables -fcf-protection=none \
	-fno-tree-loop-distribute-patterns -fno-strict-aliasing
LIMINE_LDFLAGS := -nostdlib -Wl,-z,max-page-size=0x1000 \
	-Wl,-z,noexecstack -Wl,--build-id=none -Wl,--no-undefined
LIMINE_PIE := -fPIE -fvisibility=hidden -static-pie -Wl,-z,text
LIMINE_STATIC := -fno-pic -mcmodel=kernel -static -no-pie

.PHONY: limine
limine: $(LIMINE_KERNELS)

# limine_link KIND FLAGS LDS-DEFINES [decoy]: the linker script through the
# preprocessor, then compile and link in one step, then check-elf.py
define limine_link
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) -E -P -x c $(3) tests/limine/kernel.ld -o $@.ld
	$(Q)$(CC) $(LIMINE_CFLAGS) $(2) -o $@.tmp $(LIMINE_SRCS) $(LIMINE_LDFLAGS) -Wl,-T,$@.ld
	$(Q)python3 tests/limine/check-elf.py $(1) $@.tmp $(4) >$@.check || { cat $@.check; rm -f $@.tmp; exit 1; }
	$(Q)mv $@.tmp $@
endef

$(LIMINE_DIR)/kernel-pie.elf: $(LIMINE_SRCS) $(LIMINE_HDRS) tests/limine/kernel.ld \
		tests/limine/check-elf.py mk/limine.mk | deps
	$(call limine_link,pie,$(LIMINE_PIE) -DVARIANT='"pie"' -DBASE_REVISION=2,-DPIE -DKBASE=0)

$(LIMINE_DIR)/kernel-static.elf: $(LIMINE_SRCS) $(LIMINE_HDRS) tests/limine/kernel.ld \
		tests/limine/check-elf.py mk/limine.mk | deps
	$(call limine_link,static,$(LIMINE_STATIC) -DVARIANT='"static"' -DBASE_REVISION=2 -DDECOY=1,-DKBASE=0xffffffff80000000,decoy)

$(LIMINE_DIR)/kernel-rev0.elf: $(LIMINE_SRCS) $(LIMINE_HDRS) tests/limine/kernel.ld \
		tests/limine/check-elf.py mk/limine.mk | deps
	$(call limine_link,static,$(LIMINE_STATIC) -DVARIANT='"static"' -DBASE_REVISION=0,-DKBASE=0xffffffff80000000)

# The library's SHA-256, CRC-32 and formatting, on the host, against
# sha256sum, zlib and printf(1) (tests/limine/selftest.c).
$(LIMINE_DIR)/selftest: tests/limine/selftest.c tests/limine/lib.c $(LIMINE_HDRS) | deps
	$(call msg,CCLD,$@)
	@mkdir -p $(@D)
	$(Q)$(HOSTCC) $(WARNFLAGS) -O2 -fno-builtin -Wno-builtin-declaration-mismatch \
		-Itests/limine -o $@ tests/limine/selftest.c tests/limine/lib.c

$(LIMINE_DIR)/selftest.ok: $(LIMINE_DIR)/selftest $(LIMINE_DIR)/kernel-pie.elf
	$(call msg,TEST,$<)
	$(Q)f=$(LIMINE_DIR)/kernel-pie.elf; \
	want="$$(sha256sum $$f | cut -d' ' -f1) $$(python3 -c 'import sys,zlib; print("%08x" % zlib.crc32(open(sys.argv[1],"rb").read()))' $$f)"; \
	want="$$want$$(printf '\n%d %u %x %x %s %05d 0x%x %d' -5 7 255 0xffffffff80000000 str 42 16 -9)"; \
	got="$$($<  $$f)"; \
	if [ "$$got" = "$$want" ]; then touch $@; else echo "selftest: got '$$got', want '$$want'"; exit 1; fi

limine: $(LIMINE_DIR)/selftest.ok
