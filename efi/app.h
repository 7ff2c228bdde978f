/* SPDX-License-Identifier: MIT */
/*
 * The firmware-side phases of a run, shared by the firmware mode (main.c)
 * and the hand-off mode (handoff.c).  Every function here that calls
 * firmware needs boot services; the others say so.
 */
#ifndef PTLAB_EFI_APP_H
#define PTLAB_EFI_APP_H

#include <efi.h>
#include <efilib.h>

#include "ptlab.h"

struct rawmap {
	void *buf;
	UINTN cap, size, key, desc_size;
	UINT32 version;
};

extern struct ptlab app;
extern struct report rep;

/* CPU facts, environment, TSC and deadline; false when the run cannot go on. */
bool app_start(struct ptlab *p, uint64_t t0);
/* Record / list the EfiLoaderData pieces the app allocated (page-rounded). */
void app_own(uint64_t pa, uint64_t bytes);
unsigned app_owned(const struct pt_range **r, bool *complete);
/* Send new report lines to every sink (no firmware needed after sink_firmware_gone). */
void app_emit(void);
/* A line outside the report (usage, errors). */
void app_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* GetMemoryMap into @m, growing its buffer on EFI_BUFFER_TOO_SMALL. */
EFI_STATUS app_get_map(struct rawmap *m);
void app_dump_raw_map(const struct rawmap *m);
/* Normalize @m into p->map (no firmware). */
int app_normalize(struct ptlab *p, const struct rawmap *m);
void app_describe_image(struct ptlab *p, EFI_LOADED_IMAGE *li);
void app_calibrate_tsc(struct ptlab *p);
/* The plan for p->map with the run's capabilities (no firmware). */
int app_plan(struct ptlab *p);
int app_setup_pool(struct ptlab *p);
int app_setup_data(struct ptlab *p);
/* The churn in live slices, progress between them (no firmware in hand-off mode). */
void app_run_churn(struct ptlab *p);
void app_report_facts(struct ptlab *p, const struct rawmap *m);
int app_dump_leaf(void *arg, const struct pt_leaf *l);
int app_raise(struct ptlab *p);
/* Build the plan, check it, churn, tear it down (see main.c). */
void app_build_and_check(struct ptlab *p, const struct rawmap *m);
/* Frames and facts at the end of a run (no firmware). */
void app_report_frames_and_time(struct ptlab *p, uint64_t t0);

/*
 * Every CPU on the built tables (smp_fw.c): per-CPU checks on each AP,
 * shootdowns by IPI, a churn read by the APs.  Firmware mode only (reports
 * a skip otherwise); needs boot services.
 */
void smp_run(struct ptlab *p);
/* Hand-off mode, before ExitBootServices: CPUs, blocks, trampoline, LAPIC in @recovery. */
void smp_handoff_prepare(struct ptlab *p, struct pt_space *recovery);

/*
 * --mode=handoff: leave boot services and run everything on all of RAM.
 * Returns only when it could not leave boot services (reported).
 */
void handoff_run(struct ptlab *p, EFI_LOADED_IMAGE *li, EFI_HANDLE image);

#endif
