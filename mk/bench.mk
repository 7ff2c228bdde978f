# SPDX-License-Identifier: MIT
#
# The benchmark (tests/bench/: bench.c with the arena, the cases and main;
# stats.c, ref.c, report.c; bench.h): "make bench" and "make bench-runs".
# Its objects' pattern rules are mk/build.mk's (bench, bench-scalar).

# tests/bench/*.c linked with paging/*.c built for speed: -O2, no
# sanitizers, objects in their own directory $(BUILD)/bench/.  Prints its
# timings; never part of "make test" (timings are not asserted).
BENCH_CFLAGS := $(WARNFLAGS) -Iinclude -D_DEFAULT_SOURCE -O2 -g
BENCH_PAGING_OBJS := $(PAGING_SRCS:%=$(BUILD)/bench/%.o)
BENCH_SRCS := $(addprefix tests/bench/,bench.c ref.c report.c stats.c)
BENCH_OBJS := $(BENCH_SRCS:%=$(BUILD)/bench/%.o)
BENCH_BIN := $(BUILD)/bench/bench

$(BENCH_BIN): $(BENCH_OBJS) $(BENCH_PAGING_OBJS) $(BUILD)/lists/paging.list
	$(call msg,HOSTLD,$@)
	$(Q)$(HOSTCC) $(filter %.o,$^) -o $@ -lm

# The same with paging/ compiled without SSE, as the firmware build has it
# (the scalar loops), and the benchmark itself with -DBENCH_SCALAR (every
# file of it: ref.c's store loops and report.c's lines depend on it too).
BENCH_SCALAR_CFLAGS = $(BENCH_CFLAGS) -mno-sse -mno-mmx
BENCH_SCALAR_MAIN_CFLAGS = $(BENCH_CFLAGS) -DBENCH_SCALAR
BENCH_SCALAR_PAGING_OBJS := $(PAGING_SRCS:%=$(BUILD)/bench-scalar/%.o)
BENCH_SCALAR_OBJS := $(BENCH_SRCS:%=$(BUILD)/bench-scalar/%.o)
BENCH_SCALAR_BIN := $(BUILD)/bench-scalar/bench

$(BENCH_SCALAR_BIN): $(BENCH_SCALAR_OBJS) $(BENCH_SCALAR_PAGING_OBJS) \
		$(BUILD)/lists/paging.list
	$(call msg,HOSTLD,$@)
	$(Q)$(HOSTCC) $(filter %.o,$^) -o $@ -lm

# Writes $(BUILD)/bench/results.md (the tables docs/performance.md shows) and
# $(BUILD)/bench/plot.svg; the goal lines come last.  bench-runs runs it
# BENCH_RUNS times and summarises the goal lines (median, runs met).
BENCH_RUNS ?= 5

bench: $(BENCH_BIN) $(BENCH_SCALAR_BIN)
	$(Q)$(BENCH_SCALAR_BIN) --md $(BUILD)/bench/results-scalar.md
	$(Q)$(BENCH_BIN) --md $(BUILD)/bench/results.md --svg $(BUILD)/bench/plot.svg

bench-runs: $(BENCH_BIN) $(BENCH_SCALAR_BIN)
	$(Q)tests/bench/runs.sh $(BENCH_RUNS) '$(MAKE) --no-print-directory BUILD=$(BUILD) bench' \
		$(BUILD)/bench/runs
