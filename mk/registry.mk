# SPDX-License-Identifier: MIT
#
# The check registry as a table: tools/listchecks.c linked with the app's
# registry (catalog.c and the modules whose tables it lists, as
# test_catalog links them) prints one line per entry - fault, whole name,
# phase, when it is planted, what it breaks - into $(CHECKS_TSV).
# tools/faulttable.py and tests/boot/faults.sh read those fields from there
# only; tests/boot/faults.tsv keys its rows by fault name and says just
# what the registry cannot (which boots prove which fault, what a test
# point looks like).  "make faults-table" writes docs/faults.md's table
# again; "make check-faults-table" fails when it is not the one the
# registry and faults.tsv make (faults.sh checks the same).  The program
# is built like the unit tests (ASan+UBSan); leak detection is off where
# it runs in the build, which may be under a tracer.

CHECKS_TSV := $(BUILD)/gen/checks.tsv
LISTCHECKS := $(BUILD)/host/tools/listchecks

$(LISTCHECKS): $(BUILD)/host/tools/listchecks.c.o $(CATALOG_HOST_OBJS) $(HOST_LIBAPP) \
		$(HOST_LIBPTLAB)
	$(call msg,HOSTLD,$@)
	$(Q)$(HOSTCC) $(HOST_LDFLAGS) $^ -o $@

$(CHECKS_TSV): $(LISTCHECKS)
	$(call msg,GEN,$@)
	@mkdir -p $(@D)
	$(Q)ASAN_OPTIONS=detect_leaks=0 $(LISTCHECKS) >$@.tmp && mv $@.tmp $@

.PHONY: checks-tsv faults-table check-faults-table
checks-tsv: $(CHECKS_TSV)

faults-table: $(CHECKS_TSV)
	$(Q)python3 tools/faulttable.py --write $(CHECKS_TSV) tests/boot/faults.tsv docs/faults.md

check-faults-table: $(CHECKS_TSV)
	$(Q)python3 tools/faulttable.py --check $(CHECKS_TSV) tests/boot/faults.tsv docs/faults.md

-include $(BUILD)/host/tools/listchecks.c.d
