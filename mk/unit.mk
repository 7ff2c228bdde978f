# SPDX-License-Identifier: MIT
#
# The host unit tests (tests/unit/, cmocka, ASan+UBSan): one binary per
# test_*.c linked with the support sources, libptlab-app.a and libptlab.a;
# test_catalog with the registry's modules; "make unit" and unit-build.

$(BUILD)/host/tests/test_%: $(BUILD)/host/tests/unit/test_%.c.o \
		$(UNIT_SUPPORT_OBJS) $(HOST_LIBAPP) $(HOST_LIBPTLAB) $(BUILD)/lists/unit.list
	$(call msg,HOSTLD,$@)
	$(Q)$(HOSTCC) $(HOST_LDFLAGS) $(filter %.o %.a,$^) $(HOST_LDLIBS) -o $@

# test_catalog reads the app's registry: catalog.c and the modules whose
# tables it lists, linked as they are (with ram.c, firmware-free); the
# machine's seams those modules call are tests/seams.h's.
CATALOG_HOST_OBJS := $(addprefix $(BUILD)/host/efi/,proto/catalog.c.o linux/lxchecks.c.o \
	limine/lmchecks.c.o) $(addprefix $(BUILD)/host/efi/checks/,checks.c.o livechecks.c.o \
	cpuchecks.c.o mmuperm.c.o mmutlb.c.o mmuprobe.c.o mmularge.c.o elsewhere.c.o ram.c.o)

$(BUILD)/host/tests/test_catalog: $(BUILD)/host/tests/unit/test_catalog.c.o $(CATALOG_HOST_OBJS) \
		$(UNIT_SUPPORT_OBJS) $(HOST_LIBAPP) $(HOST_LIBPTLAB) $(BUILD)/lists/unit.list
	$(call msg,HOSTLD,$@)
	$(Q)$(HOSTCC) $(HOST_LDFLAGS) $(filter %.o %.a,$^) $(HOST_LDLIBS) -o $@

# Every test binary is relinked, so that one test file that does not build
# is reported as a failure (run-unit.sh counts a missing binary) without a
# stale binary standing in for it or hiding the other tests' results.
unit: | deps-test
	$(Q)rm -f $(UNIT_BINS)
	-$(Q)$(MAKE) -k BUILD=$(BUILD) V=$(V) unit-build
	$(Q)tests/run-unit.sh $(UNIT_BINS)

unit-build: $(UNIT_BINS)

# test_memattr: efi/fw/memattr.c as it is, built for the host against the
# test's stand-in of the gnu-efi declarations it uses (tests/unit/efistub/)
# and driven through a fake EFI_MEMORY_ATTRIBUTE_PROTOCOL.
MEMATTR_HOST_OBJS := $(BUILD)/host/efi/fw/memattr.c.o
$(MEMATTR_HOST_OBJS) $(BUILD)/host/tests/unit/test_memattr.c.o: HOST_CFLAGS += -Itests/unit/efistub

$(BUILD)/host/tests/test_memattr: $(BUILD)/host/tests/unit/test_memattr.c.o $(MEMATTR_HOST_OBJS) \
		$(UNIT_SUPPORT_OBJS) $(HOST_LIBAPP) $(HOST_LIBPTLAB) $(BUILD)/lists/unit.list
	$(call msg,HOSTLD,$@)
	$(Q)$(HOSTCC) $(HOST_LDFLAGS) $(filter %.o %.a,$^) $(HOST_LDLIBS) -o $@
