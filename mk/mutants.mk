# SPDX-License-Identifier: MIT
#
# make mutants [MUTANTS=N] [MUTANTS_SEED=S]: N small faults drawn from every
# candidate in paging/ (flipped comparisons, constants off by one, dropped
# statements), each built in a private copy under $(BUILD)/mutants and run
# against the unit binaries that exercise the mutated file, a survivor
# against all of them; prints every verdict, every survivor and the score
# (tests/mutants/mutants.py).  MUTANTS=all runs every candidate;
# MUTANTS_SINCE=REF keeps only the faults of lines "git diff REF" adds (new
# code: MUTANTS_SINCE=main MUTANTS=all).  Stale entries of
# tests/mutants/equivalent.txt (no candidate has their key) are printed.  Not part
# of "make test": about 20-60 s per mutant on a loaded 2-core machine, plus
# one full unit build and run at the start.
MUTANTS ?= 40
MUTANTS_SEED ?= 1
MUTANTS_SINCE ?=

.PHONY: mutants

mutants: | deps-test
	$(Q)python3 tests/mutants/mutants.py --build '$(abspath $(BUILD))/mutants' \
		--count '$(MUTANTS)' --seed '$(MUTANTS_SEED)' \
		$(if $(MUTANTS_SINCE),--since '$(MUTANTS_SINCE)')
