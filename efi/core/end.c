/* SPDX-License-Identifier: MIT */
/*
 * The end of a run (see end.h).
 *
 * Firmware calls: with boot services CreateEvent, SetTimer, WaitForEvent,
 * CloseEvent and ReadKeyStroke (--end=wait) and the console (sink_print);
 * with or without them the runtime ResetSystem.
 */
#include "core/end.h"
#include "fw/firmware.h"
#include "fw/sink.h"
#include "report/fmt.h"
#include "report/serial.h"

#define WAIT_SECONDS 60u

void end_say(struct ptlab_fb *fb, bool boot_services, const char *s)
{
	size_t n = 0;
	char buf[128];

	if (boot_services) {
		sink_print(s);
		return;
	}
	while (s[n])
		n++;
	serial_write(s, n);
	if (fb->ok && n < sizeof(buf)) {
		for (size_t i = 0; i < n; i++)
			buf[i] = s[i];
		buf[n ? n - 1 : 0] = '\0';	/* without the line break */
		fbcon_write_line(&fb->con, buf);
	}
}

bool end_wait_key(const char *what, unsigned seconds)
{
	EFI_EVENT events[2];
	EFI_EVENT timer;
	EFI_INPUT_KEY key;
	UINTN index = 1;
	char line[160];

	fmt_snprintf(line, sizeof(line), "ptlab: press a key (or wait %u s) %s\n", seconds, what);
	sink_print(line);
	if (!ST->ConIn ||
	    uefi_call_wrapper(BS->CreateEvent, 5, EVT_TIMER, 0, NULL, NULL, &timer) != EFI_SUCCESS)
		return false;
	uefi_call_wrapper(BS->SetTimer, 3, timer, TimerRelative, (UINT64)seconds * 10000000);
	events[0] = ST->ConIn->WaitForKey;
	events[1] = timer;
	uefi_call_wrapper(BS->WaitForEvent, 3, 2, events, &index);
	uefi_call_wrapper(BS->CloseEvent, 1, timer);
	if (index != 0)
		return false;
	uefi_call_wrapper(ST->ConIn->ReadKeyStroke, 2, ST->ConIn, &key);
	return true;
}

/*
 * Shut down (reboot for --end=reboot, @end) through the runtime services,
 * telling why on COM1 and @fb's screen when that cannot be done after
 * ExitBootServices; returns when that did not happen.
 */
static void reset(struct ptlab_fb *fb, enum opts_end end, bool boot_services, enum verdict v)
{
	if (!boot_services && !firmware_runtime_reset_supported()) {
		end_say(fb, false, "ptlab: the firmware does not support ResetSystem after "
		    "ExitBootServices; halted\n");
		return;
	}
	/* after ExitBootServices runtime services are identity mapped in the recovery hierarchy */
	uefi_call_wrapper(RT->ResetSystem, 4,
			  end == OPTS_END_REBOOT ? EfiResetCold : EfiResetShutdown,
			  v == VERDICT_PASSED ? EFI_SUCCESS : EFI_ABORTED, 0, NULL);
	if (!boot_services)
		end_say(fb, false, "ptlab: ResetSystem returned; halted\n");
}

void end_run(struct ptlab *p, bool boot_services)
{
	const enum verdict v = verdict_of(p->rep, p->aborted);
	const unsigned steps = end_steps(p->opts.end, boot_services);

	if (steps & END_STEP_DEBUG_EXIT)
		verdict_debug_exit(&p->cpu.caps, v);
	if (steps & END_STEP_WAIT_KEY)
		end_wait_key("to shut down", WAIT_SECONDS);
	if (steps & END_STEP_RESET)
		reset(&p->fb, p->opts.end, boot_services, v);
	if (!(steps & END_STEP_HALT))
		return;   /* efi_main returns the verdict's status */
	if (boot_services)
		sink_print("ptlab: halted\n");
	else
		serial_write("ptlab: halted\n", 14);
	cpu_halt();
}

EFI_STATUS end_status(enum verdict v)
{
	return v == VERDICT_PASSED ? EFI_SUCCESS : v == VERDICT_NOTHING ? EFI_UNSUPPORTED :
	       EFI_ABORTED;
}
