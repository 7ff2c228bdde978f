# SPDX-License-Identifier: MIT
#
# make view: the address-space page of a report (tools/view.py).

#   make view [REPORT=path/to/PTLAB.TXT or a serial log]
# writes $(BUILD)/view/index.html (self-contained) and $(BUILD)/view/map.svg
# with tools/view.py.  Without REPORT: the serial log of the last "make
# run" ($(RUN_DIR)/serial.log), else \PTLAB.TXT from its image $(RUN_IMAGE).
# It asks for the run group: the page is rendered through Jinja2 templates
# (tools/templates/, python3-jinja2) and read from a run's image (mtools).

REPORT ?=
VIEW_DIR := $(BUILD)/view
# Its suite, view-hostile, is in mk/suites.mk.

.PHONY: view

# REPORT reaches the recipe as data, through the environment, never as
# shell text: any file name works (not exported as itself: make would
# expand it to do so).
unexport REPORT
view: export PTLAB_VIEW_REPORT = $(value REPORT)
view: | deps-run
	$(Q)rep=$$PTLAB_VIEW_REPORT; \
	if [ -z "$$rep" ]; then \
		if [ -s '$(RUN_DIR)/serial.log' ]; then rep='$(RUN_DIR)/serial.log'; \
		elif [ -f '$(RUN_IMAGE)' ] && mcopy -o -i '$(RUN_IMAGE)@@1M' ::/PTLAB.TXT \
			'$(BUILD)/PTLAB.TXT' 2>/dev/null; then rep='$(BUILD)/PTLAB.TXT'; \
		else echo 'view: no report: "make run" first, or make view REPORT=path/to/PTLAB.TXT' >&2; \
			exit 1; fi; \
	fi; \
	python3 tools/view.py "$$rep" '$(VIEW_DIR)'
