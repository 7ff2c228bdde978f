/* SPDX-License-Identifier: MIT */
/*
 * ptlab: the entry point.  efi_main reads the options (the shell's command
 * line, a boot manager's LoadOptions or \ptlab.cfg), opens the report and
 * its file, starts the run (run.c), hands it to the mode the options chose
 * (core/mode.h: the firmware mode, or a hand-off mode, which returns only
 * when it could not leave boot services) and ends it: the verdict, the
 * runs variable, the end action (core/end.c) and the exit status.
 *
 * Firmware calls here (boot services, the firmware's CPU state loaded):
 * HandleProtocol (LoadedImage, the shell's parameters protocol), the file
 * protocol for \ptlab.cfg, AllocatePool/FreePool (owned.c),
 * AllocatePages/FreePages for the TSS page and SetWatchdogTimer.  sink.c
 * (console, serial, report file), runs.c (the runs variable), firmware.c
 * (the firmware's facts), end.c (the end action), gop.c, bringup.c, la57.c,
 * owned.c, run.c and the modes make their own; each file says which.
 */
#include <efi.h>
#include <efilib.h>

#include "proto/catalog.h"
#include "fw/firmware.h"
#include "report/fmt.h"
#include "fw/fsfile.h"
#include "checks/registry.h"
#include "core/end.h"
#include "core/mode.h"
#include "opts/cfgfile.h"
#include "opts/loadopts.h"
#include "opts/optcheck.h"
#include "opts/usage.h"
#include "proto/proto.h"
#include "fw/owned.h"
#include "state/state.h"
#include "report/report.h"
#include "cpu/trap.h"
#include "core/run.h"
#include "fw/runs.h"
#include "fw/sink.h"
#include "fw/verify.h"

#define REPORT_BYTES      (512u * 1024u)
#define MENU_WAIT_SECONDS 10u    /* after refusing a boot menu's options */

/*
 * The run's state: in the image, our own memory, which stays ours after
 * ExitBootServices (the firmware's stack and pool do not).
 */
static struct ptlab app;
static struct report report;   /* storage only: reached as app.rep */

/* A line outside the TAP stream (errors before the report starts). */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	fmt_vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	sink_print(buf);
}

/* ---- options ------------------------------------------------------------------ */

#define CFG_MAX    (1u << 20)     /* a larger \ptlab.cfg is refused, never cut */

/*
 * Where the options came from, for the "# options:" fact (from=...): the
 * shell's command line, a boot manager's LoadOptions (GRUB's chainloader
 * line, a systemd-boot entry's "options", a firmware boot entry's optional
 * data), \ptlab.cfg, or none of them (the defaults).
 */
enum opts_from { FROM_DEFAULTS, FROM_SHELL, FROM_BOOT_MANAGER, FROM_CFG };

/* What reading the options found besides them, for the report and a refusal. */
struct opts_source {
	enum opts_from from;
	bool shell;                  /* a shell started us (else a boot menu did) */
	bool cfg_found;              /* \ptlab.cfg was read */
	char foreign[128];           /* LoadOptions not meant for us (the report says so) */
};

static const char *opts_from_name(enum opts_from f)
{
	return f == FROM_SHELL ? "shell" : f == FROM_BOOT_MANAGER ? "boot-manager" :
	       f == FROM_CFG ? "cfg" : "defaults";
}

/* A UEFI shell started us: its parameters protocol is on our image handle. */
static bool started_by_shell(EFI_HANDLE image)
{
	static EFI_GUID params = EFI_SHELL_PARAMETERS_PROTOCOL_GUID;
	/* the EFI 1.1 shell's interface protocol */
	static EFI_GUID old_shell = { 0x47c7b223, 0xc42a, 0x11d2,
				      { 0x8e, 0x57, 0x00, 0xa0, 0xc9, 0x69, 0x72, 0x3b } };
	void *iface = NULL;

	return uefi_call_wrapper(BS->HandleProtocol, 3, image, &params, &iface) == EFI_SUCCESS ||
	       uefi_call_wrapper(BS->HandleProtocol, 3, image, &old_shell, &iface) == EFI_SUCCESS;
}

/*
 * 0 to go on; otherwise the status to return, with the reason in @err
 * (printed by the caller with the usage).
 */
static EFI_STATUS parse_options(EFI_HANDLE image, EFI_LOADED_IMAGE *li, struct opts *o,
				struct opts_source *src, char *err, size_t errlen)
{
	const struct mode *mode;
	bool shell = started_by_shell(image);
	int r = opts_parse_boot_options(li->LoadOptions, li->LoadOptionsSize, shell, o, err, errlen);

	src->shell = shell;
	if (r == OPTS_OK || r == OPTS_ERROR)
		src->from = shell ? FROM_SHELL : FROM_BOOT_MANAGER;
	if (r == OPTS_FOREIGN)
		fmt_snprintf(src->foreign, sizeof(src->foreign), "%s", err);
	if (r == OPTS_EMPTY || r == OPTS_BINARY || r == OPTS_FOREIGN) {
		UINTN len = 0;
		char *cfg = NULL;
		EFI_STATUS st = fsfile_read(li->DeviceHandle, "\\ptlab.cfg", CFG_MAX, &cfg, &len,
					    err, errlen);

		if (st != EFI_SUCCESS && st != EFI_NOT_FOUND)
			return EFI_INVALID_PARAMETER;
		if (cfg) {
			src->cfg_found = true;
			src->from = FROM_CFG;
			r = opts_parse_ascii(cfg, len, o, err, errlen);
			owned_pool_free(cfg);
		}
	}
	if (r == OPTS_ERROR)
		return EFI_INVALID_PARAMETER;
	if (o->help)
		return EFI_SUCCESS;
	if (opts_validate(o, err, errlen) || registry_accept(&ptlab_checks, o, err, errlen))
		return EFI_INVALID_PARAMETER;
	mode = mode_pick(o);
	if (mode->option_defaults)
		mode->option_defaults(o);
	return 0;
}

static void note_earlier(bool at_end);

/*
 * A run that runs nothing (the usage printed, or the options refused):
 * a boot menu redraws the screen at once, so give its user time to read
 * why; a shell keeps its screen.
 */
static void stop_wait(const struct opts *o, bool refused, const struct opts_source *src)
{
	if (opts_stop_waits(o, refused, src->shell))
		say("ptlab: back to the boot menu (%s)\n",
		    end_wait_key("to go back to the boot menu", MENU_WAIT_SECONDS) ?
		    "a key was pressed" : "no key, time is up");
}

/*
 * Options refused: nothing runs.  The reason goes to the screen, COM1 and
 * this run's report file, and into the runs variable, so the run the shell
 * may start next says that this one was refused.
 */
static void refuse(const struct opts_source *src, const char *err)
{
	char line[300];
	const char *name = runs_file_name(runs_number());
	bool filed;

	say("ptlab: %s\n", err);
	sink_print(opts_usage());
	fmt_snprintf(line, sizeof(line), "refused: %s", err);
	runs_end(line);
	filed = sink_file_open(name, false) == EFI_SUCCESS;
	if (filed) {
		fmt_snprintf(line, sizeof(line), "ptlab: %s", err);
		sink_file_write(line);
		sink_file_write("ptlab: refused: the options were not accepted, nothing was run");
		sink_file_close();
	}
	note_earlier(true);
	/* no file to point to (a network boot has no volume): the reason is on the lines above */
	if (filed)
		say("ptlab: refused: the options were not accepted, nothing was run (\\%s)\n", name);
	else
		say("ptlab: refused: the options were not accepted, nothing was run (no report "
		    "file: the reason is above, on the screen and the serial port)\n");
	stop_wait(&app.opts, true, src);
}

/* ---- the end ---------------------------------------------------------------------------- */

/*
 * Our TSS lives in a page of its own, not in the image: when the firmware had
 * no TSS ours stays loaded after we return (TR cannot go back to 0), and the
 * firmware unloads the image.  The page is then kept for good.
 */
static bool tss_page_get(EFI_PHYSICAL_ADDRESS *tss_page)
{
	uint64_t pa = 0;

	if (owned_alloc(AllocateAnyPages, EfiLoaderData, PT_PAGE_SIZE, &pa) != EFI_SUCCESS) {
		*tss_page = 0;
		return false;
	}
	*tss_page = pa;
	trap_set_tss((void *)(uintptr_t)*tss_page);
	return true;
}

static void tss_page_put(EFI_PHYSICAL_ADDRESS tss_page)
{
	if (!tss_page || trap_installed())
		return;
	if (trap_tss_left_loaded()) {
		report_note(app.rep, "tss: the firmware had no TSS; ours stays loaded at 0x%llx "
			    "(page kept allocated)", (unsigned long long)tss_page);
		return;
	}
	trap_set_tss(NULL);
	owned_free(tss_page, PT_PAGE_SIZE);
}

/* A later run of this boot names the earlier one, in its report and last on screen. */
static void note_earlier(bool at_end)
{
	const char *verdict, *file;
	unsigned n = runs_earlier(&verdict, &file);

	if (!n)
		return;
	if (!at_end) {
		report_fact(app.rep, "earlier-run", "run=%u file=%s verdict=%s", n, file, verdict);
		return;
	}
	say("ptlab: this was run %u of this boot; its report is \\%s\n", runs_number(),
		runs_file_name(runs_number()));
	say("ptlab: an earlier run of this boot (\\%s) ended: %s\n", file, verdict);
}

/* crt0-efi-x86_64.o calls efi_main with the SysV convention: no EFIAPI. */
EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	EFI_LOADED_IMAGE *li = NULL;
	EFI_STATUS st;
	char *buf, err[200], verdict[RUNS_VERDICT_MAX], line[1536];
	struct opts_source src = { .from = FROM_DEFAULTS };
	EFI_PHYSICAL_ADDRESS tss_page = 0;
	struct mode_boot boot;
	enum verdict v;

	firmware_capture_entry();
	InitializeLib(image, systab);
	sink_init(image, systab);
	if (uefi_call_wrapper(BS->HandleProtocol, 3, image, &LoadedImageProtocol, (void **)&li) !=
	    EFI_SUCCESS) {
		say("ptlab: no LoadedImage protocol on our own handle\n");
		return EFI_LOAD_ERROR;
	}
	opts_defaults(&app.opts);
	err[0] = 0;
	st = parse_options(image, li, &app.opts, &src, err, sizeof(err));
	sink_serial_mode(app.opts.serial);
	firmware_probe(systab);
	if (!st && app.opts.help) {
		sink_print(opts_usage());
		stop_wait(&app.opts, false, &src);	/* as a refusal: the usage stays until read */
		return EFI_SUCCESS;
	}
	runs_begin();
	if (st) {
		refuse(&src, err);
		return st;
	}

	/* --dump prints one line per leaf: ~10k leaves on a 256 MiB QEMU */
	buf = owned_pool(app.opts.dump || app.opts.dump_firmware ? 8 * REPORT_BYTES : REPORT_BYTES);
	if (!buf) {
		say("ptlab: no memory for the report\n");
		runs_end("aborted (no memory for the report)");
		return EFI_OUT_OF_RESOURCES;
	}
	report_init(&report, buf,
		    app.opts.dump || app.opts.dump_firmware ? 8 * REPORT_BYTES : REPORT_BYTES);
	app.rep = &report;   /* from here on the report is reached through app.rep only */
	if (!tss_page_get(&tss_page)) {
		say("ptlab: no page for the TSS\n");
		return EFI_OUT_OF_RESOURCES;
	}
	sink_file_open(runs_file_name(runs_number()), false);
	report_fact(app.rep, "run", "number=%u file=%s", runs_number(),
		    sink_file_ready() ? runs_file_name(runs_number()) : "none");
	if (fsfile_network(li->DeviceHandle, line, sizeof(line)))
		report_note(app.rep, "network boot from the %s: no boot volume, so no report file; "
			    "options %s; files named by options are read from that server",
			    line, src.from == FROM_CFG ? "from its ptlab.cfg" :
			    src.from == FROM_DEFAULTS ? "the defaults (no ptlab.cfg on it)" :
			    "from LoadOptions");
	note_earlier(false);
	/* a long run must not be cut short by the 5-minute watchdog */
	uefi_call_wrapper(BS->SetWatchdogTimer, 4, 0, 0, 0, NULL);

	boot = (struct mode_boot){ .li = li, .image = image, .t0 = rdtsc() };
	app.mode = mode_pick(&app.opts);
	app.checks = &ptlab_checks;
	opts_describe(&app.opts, line, sizeof(line));
	report_fact(app.rep, "options", "%s from=%s", line, opts_from_name(src.from));
	firmware_report(app.rep, ST);
	verify_report(app.rep);
	if (src.foreign[0])
		report_note(app.rep, "options: the boot manager's LoadOptions \"%s\" hold no --option: "
			    "ignored, %s", src.foreign,
			    src.cfg_found ? "options from \\ptlab.cfg" : "no \\ptlab.cfg, defaults");
	/* a kernel's protocol may choose the run's levels */
	if (run_start(&app, boot.t0, li, proto_table))
		app.mode->run(&app, &boot);   /* returns with boot services only */

	tss_page_put(tss_page);
	sink_close(app.rep);
	sink_file_close();
	verdict_line(app.rep, app.aborted, verdict, sizeof(verdict));
	runs_end(verdict);
	note_earlier(true);
	uefi_call_wrapper(BS->SetWatchdogTimer, 4, 300, 0, 0, NULL);
	v = verdict_of(app.rep, app.aborted);
	end_run(&app, true);
	if (app.opts.wrong_restore)
		write_cr0(read_cr0() ^ CR0_WP);   /* test only: a restore gone wrong */
	return end_status(v);
}

