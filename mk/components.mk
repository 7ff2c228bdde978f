# SPDX-License-Identifier: MIT
#
# Components: the framebuffer renderer, the embedding example, the symbol
# check.  Nothing here is part of "all".

#   fbrender         $(BUILD)/host/fbrender: efi/report/fbcon.c drawing text lines
#                    into a PPM, the reference for QEMU screendumps
#                    (tests/boot/fb.sh)
#   check-examples   examples/handoff.c compiled with the firmware's flags
#                    (compile only) and for the host, where it runs and
#                    verifies the tables it built
#   check-undefined  both libptlab.a archives need nothing from outside but
#                    FREESTANDING_ALLOWED_UNDEF (host: also the sanitizer
#                    runtime)

FBRENDER := $(BUILD)/host/fbrender
FBRENDER_OBJS := $(BUILD)/host/tests/boot/fbrender.c.o \
	$(BUILD)/host/efi/report/fbcon.c.o $(BUILD)/host/efi/report/font8x16.c.o
EXAMPLE_SRCS := $(sort $(wildcard examples/*.c))
EXAMPLE_HOST_BINS := $(EXAMPLE_SRCS:examples/%.c=$(BUILD)/host/examples/%)
EXAMPLE_EFI_OBJS := $(EXAMPLE_SRCS:%=$(BUILD)/efi/%.o)
HOST_SANITIZER_PREFIXES := __asan_ __ubsan_ __sanitizer_ __lsan_

.PHONY: fbrender check-examples check-undefined

fbrender: $(FBRENDER)

$(FBRENDER): $(FBRENDER_OBJS)
	$(call msg,HOSTLD,$@)
	$(Q)$(HOSTCC) $(HOST_LDFLAGS) $^ -o $@

# Examples for the firmware target are compiled with the flags paging/ is
# built with, so no C library and no gnu-efi headers (mk/build.mk).

$(BUILD)/host/examples/%: $(BUILD)/host/examples/%.c.o $(HOST_LIBPTLAB)
	$(call msg,HOSTLD,$@)
	$(Q)$(HOSTCC) $(HOST_LDFLAGS) $^ -o $@

# Each example prints its own "NAME: N passed, M failed" line.
check-examples: $(EXAMPLE_EFI_OBJS) $(EXAMPLE_HOST_BINS) | deps-build
	$(Q)st=0; for bin in $(EXAMPLE_HOST_BINS); do $$bin || st=1; done; exit $$st

check-undefined: $(EFI_LIBPTLAB) $(HOST_LIBPTLAB) | deps-build
	$(Q)NM='$(NM)' ALLOWED='$(FREESTANDING_ALLOWED_UNDEF)' \
		tests/check-undefined.sh --prefixes '' $(EFI_LIBPTLAB) \
		--prefixes '$(HOST_SANITIZER_PREFIXES)' $(HOST_LIBPTLAB)

-include $(wildcard $(patsubst %.o,%.d,$(FBRENDER_OBJS) $(EXAMPLE_EFI_OBJS) \
	$(EXAMPLE_SRCS:%=$(BUILD)/host/%.o)))
