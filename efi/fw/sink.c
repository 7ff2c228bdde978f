/* SPDX-License-Identifier: MIT */
/*
 * Report sinks over UEFI boot services and COM1.
 *
 * Firmware calls (boot services, until sink_firmware_gone): ConOut's
 * OutputString and SetAttribute; HandleProtocol and LocateHandleBuffer
 * (device paths of the console, to tell whether it reaches a UART), FreePool;
 * the Simple File System and file protocols for the report file (OpenVolume,
 * Open, Write, Flush, SetPosition, Delete, Close).  COM1 is port I/O
 * (serial.c), the framebuffer plain memory (fbcon.c).
 */
#include <efi.h>
#include <efilib.h>

#include <stdbool.h>
#include <stddef.h>

#include "lib/efistatus.h"
#include "report/fbcon.h"
#include "report/fmt.h"
#include "report/report.h"
#include "report/serial.h"
#include "fw/fsfile.h"
#include "fw/sink.h"

#define PATH_NODES_MAX 64	/* device paths are short; stop on garbage */

static EFI_SYSTEM_TABLE *sys;
static EFI_HANDLE self;
static bool console_on;
static bool direct_serial;
static EFI_FILE_HANDLE file;

static const struct report *emit_report;
static size_t console_cursor;
static size_t file_cursor;

static bool path_has_uart(EFI_DEVICE_PATH *dp)
{
	for (int i = 0; i < PATH_NODES_MAX && !IsDevicePathEnd(dp); i++) {
		if (DevicePathType(dp) == MESSAGING_DEVICE_PATH &&
		    DevicePathSubType(dp) == MSG_UART_DP)
			return true;
		if ((size_t)DevicePathNodeLength(dp) < sizeof(EFI_DEVICE_PATH))
			break;
		dp = NextDevicePathNode(dp);
	}
	return false;
}

/* 1: path with a UART, 0: path without, -1: no device path. */
static int handle_has_uart(EFI_HANDLE h)
{
	EFI_DEVICE_PATH *dp = NULL;
	EFI_STATUS status;

	if (!h)
		return -1;
	status = uefi_call_wrapper(sys->BootServices->HandleProtocol, 3, h,
				   &DevicePathProtocol, (void **)&dp);
	if (EFI_ERROR(status) || !dp)
		return -1;
	return path_has_uart(dp);
}

static bool conout_reaches_uart(void)
{
	EFI_BOOT_SERVICES *bs = sys->BootServices;
	EFI_HANDLE *handles = NULL;
	UINTN count = 0;
	EFI_STATUS status;
	bool found = false;
	int r;

	r = handle_has_uart(sys->ConsoleOutHandle);
	if (r >= 0)
		return r;
	/* Console splitter: look at every text output device. */
	status = uefi_call_wrapper(bs->LocateHandleBuffer, 5, ByProtocol,
				   &TextOutProtocol, NULL, &count, &handles);
	if (EFI_ERROR(status))
		return false;
	for (UINTN i = 0; i < count && !found; i++)
		found = handle_has_uart(handles[i]) == 1;
	uefi_call_wrapper(bs->FreePool, 1, handles);
	return found;
}

/*
 * Firmware whose console is its serial port while ConOut's device path does
 * not say so: U-Boot's console handle has a vendor node only, and its
 * "stdout" is the serial console on every board ptlab knows of.
 */
static bool vendor_console_is_serial(void)
{
	static const CHAR16 uboot[] = L"Das U-Boot";
	const CHAR16 *v = sys->FirmwareVendor;

	if (!v)
		return false;
	for (size_t i = 0; uboot[i]; i++)
		if (v[i] != uboot[i])
			return false;
	return true;
}

static bool serial_detected;	/* ConOut reaches a UART (auto) */

void sink_init(EFI_HANDLE image, EFI_SYSTEM_TABLE *st)
{
	sys = st;
	self = image;
	console_on = st->ConOut != NULL;
	serial_detected = conout_reaches_uart() || vendor_console_is_serial();
	direct_serial = !serial_detected && serial_init();
	emit_report = NULL;
	console_cursor = 0;
	file_cursor = 0;
}

void sink_serial_mode(int mode)
{
	switch (mode) {
	case 1:		/* on */
		direct_serial = serial_init();
		break;
	case 2:		/* off */
		direct_serial = false;
		break;
	default:
		direct_serial = !serial_detected && serial_init();
		break;
	}
}

bool sink_serial_detected(void)
{
	return serial_detected;
}

bool sink_direct_serial(void)
{
	return direct_serial && serial_present();
}

static UINTN line_attr(const char *s, size_t n)
{
	static const char skip[] = " # SKIP ";

	if (n >= 3 && s[0] == 'o' && s[1] == 'k' && s[2] == ' ') {
		for (size_t i = 0; i + sizeof(skip) - 1 <= n; i++) {
			size_t k = 0;

			while (k < sizeof(skip) - 1 && s[i + k] == skip[k])
				k++;
			if (k == sizeof(skip) - 1)
				return EFI_TEXT_ATTR(EFI_YELLOW, EFI_BLACK);
		}
		return EFI_TEXT_ATTR(EFI_LIGHTGREEN, EFI_BLACK);
	}
	if (n >= 7 && s[0] == 'n' && s[1] == 'o' && s[2] == 't' && s[3] == ' ' &&
	    s[4] == 'o' && s[5] == 'k' && s[6] == ' ')
		return EFI_TEXT_ATTR(EFI_LIGHTRED, EFI_BLACK);
	return 0;	/* keep the current attribute */
}

/* ASCII to ConOut in chunks, then "\r\n"; bytes outside ASCII become '?'. */
static void console_write(const char *s, size_t n)
{
	SIMPLE_TEXT_OUTPUT_INTERFACE *out = sys->ConOut;
	CHAR16 wbuf[128];
	UINTN attr = line_attr(s, n), saved = 0;
	bool colour = attr && out->Mode;

	if (colour) {
		saved = (UINTN)out->Mode->Attribute;
		uefi_call_wrapper(out->SetAttribute, 2, out, attr);
	}
	while (n) {
		size_t k = 0;

		for (; k < n && k < sizeof(wbuf) / sizeof(wbuf[0]) - 1; k++) {
			unsigned char c = (unsigned char)s[k];

			wbuf[k] = c >= 0x20 && c < 0x7f ? c : '?';
		}
		wbuf[k] = 0;
		uefi_call_wrapper(out->OutputString, 2, out, wbuf);
		s += k;
		n -= k;
	}
	if (colour)
		uefi_call_wrapper(out->SetAttribute, 2, out, saved);
	uefi_call_wrapper(out->OutputString, 2, out, L"\r\n");
}

void sink_console_line(const char *line)
{
	if (console_on)
		console_write(line, fmt_strlen(line));
}

/* One line to ConOut and, when enabled, COM1. */
static struct fbcon *fb;

static void fb_line(const char *s, size_t n)
{
	char buf[256];

	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	for (size_t i = 0; i < n; i++)
		buf[i] = s[i];
	buf[n] = 0;
	fbcon_write_line(fb, buf);
}

static void line_out(const char *s, size_t n)
{
	if (console_on)
		console_write(s, n);
	if (fb)
		fb_line(s, n);
	if (direct_serial) {
		serial_write(s, n);
		serial_write("\n", 1);
	}
}

void sink_print(const char *text)
{
	while (*text) {
		size_t n = 0;

		while (text[n] && text[n] != '\n')
			n++;
		line_out(text, n);
		text += n;
		if (*text == '\n')
			text++;
	}
}

/* Log a failed firmware call where it happened, with its status. */
static void fail_msg(const char *what, EFI_STATUS status)
{
	char buf[128];

	fmt_snprintf(buf, sizeof(buf), "ptlab: %s failed: status 0x%llx (%s)", what,
		     (unsigned long long)status, efi_status_name(status));
	line_out(buf, fmt_strlen(buf));
}

static EFI_STATUS file_put(const void *data, UINTN n)
{
	UINTN len = n;
	EFI_STATUS status;

	status = uefi_call_wrapper(file->Write, 3, file, &len, (void *)data);
	if (!EFI_ERROR(status) && len != n)
		status = EFI_DEVICE_ERROR;
	return status;
}

static CHAR16 file_name[32];

/* "\\NAME" in UCS-2 from ASCII. */
static void set_file_name(const char *ascii)
{
	size_t i = 0;

	file_name[0] = '\\';
	for (; ascii[i] && i + 2 < sizeof(file_name) / sizeof(file_name[0]); i++)
		file_name[i + 1] = (unsigned char)ascii[i];
	file_name[i + 1] = 0;
}

EFI_STATUS sink_file_open(const char *name, bool append)
{
	EFI_BOOT_SERVICES *bs = sys->BootServices;
	EFI_LOADED_IMAGE *li = NULL;
	EFI_FILE_IO_INTERFACE *fs = NULL;
	EFI_FILE_HANDLE root = NULL, f = NULL;
	EFI_STATUS status;

	if (file)
		return EFI_SUCCESS;
	set_file_name(name);
	status = uefi_call_wrapper(bs->HandleProtocol, 3, self,
				   &LoadedImageProtocol, (void **)&li);
	if (EFI_ERROR(status)) {
		fail_msg("HandleProtocol(LoadedImage)", status);
		return status;
	}
	status = uefi_call_wrapper(bs->HandleProtocol, 3, li->DeviceHandle,
				   &FileSystemProtocol, (void **)&fs);
	if (EFI_ERROR(status)) {
		char net[200], buf[320];

		/* a network boot has no volume: not a failure, said once */
		if (!fsfile_network(li->DeviceHandle, net, sizeof(net)))
			fmt_snprintf(net, sizeof(net), "a device without a file system, status 0x%llx "
				     "(%s)", (unsigned long long)status, efi_status_name(status));
		fmt_snprintf(buf, sizeof(buf), "ptlab: no boot volume (loaded from the %s): "
			     "no report file, the report goes to the console and the serial port", net);
		line_out(buf, fmt_strlen(buf));
		return EFI_NOT_FOUND;
	}
	status = uefi_call_wrapper(fs->OpenVolume, 2, fs, &root);
	if (EFI_ERROR(status)) {
		fail_msg("OpenVolume", status);
		return status;
	}
	status = uefi_call_wrapper(root->Open, 5, root, &f, file_name,
				   EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE, 0ULL);
	if (!EFI_ERROR(status) && append) {
		/* this run's own file, written before: go on at its end */
		status = uefi_call_wrapper(f->SetPosition, 2, f, 0xFFFFFFFFFFFFFFFFULL);
		uefi_call_wrapper(root->Close, 1, root);
		if (EFI_ERROR(status)) {
			fail_msg("SetPosition(report file)", status);
			uefi_call_wrapper(f->Close, 1, f);
			return status;
		}
		file = f;
		return EFI_SUCCESS;
	}
	/* An old report is deleted rather than overwritten: no stale tail. */
	if (!EFI_ERROR(status)) {
		status = uefi_call_wrapper(f->Delete, 1, f);
		if (status != EFI_SUCCESS) {
			fail_msg("Delete(report file)", status);
			uefi_call_wrapper(root->Close, 1, root);
			return EFI_ERROR(status) ? status : EFI_ACCESS_DENIED;
		}
	}
	status = uefi_call_wrapper(root->Open, 5, root, &f, file_name,
				   EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE |
				   EFI_FILE_MODE_CREATE, 0ULL);
	uefi_call_wrapper(root->Close, 1, root);
	if (EFI_ERROR(status)) {
		fail_msg("Open(report file)", status);
		return status;
	}
	file = f;
	file_cursor = 0;
	return EFI_SUCCESS;
}

bool sink_file_ready(void)
{
	return file != NULL;
}

static EFI_STATUS file_line(const char *s, size_t n)
{
	EFI_STATUS status;

	if (!file)
		return EFI_NOT_READY;
	status = file_put(s, n);
	if (!EFI_ERROR(status))
		status = file_put("\n", 1);
	return status;
}

EFI_STATUS sink_file_write(const char *line)
{
	return file_line(line, fmt_strlen(line));
}

EFI_STATUS sink_file_close(void)
{
	EFI_STATUS status, s2;

	if (!file)
		return EFI_SUCCESS;
	status = uefi_call_wrapper(file->Flush, 1, file);
	if (EFI_ERROR(status))
		fail_msg("Flush(report file)", status);
	s2 = uefi_call_wrapper(file->Close, 1, file);
	if (EFI_ERROR(s2))
		fail_msg("Close(report file)", s2);
	file = NULL;
	return EFI_ERROR(status) ? status : s2;
}

void sink_emit(const struct report *r)
{
	const char *line;
	size_t len;

	if (r != emit_report) {
		emit_report = r;
		console_cursor = 0;
		file_cursor = 0;
	}
	while (report_next_line(r, &console_cursor, &line, &len))
		line_out(line, len);
	while (file && report_next_line(r, &file_cursor, &line, &len)) {
		EFI_STATUS status = file_line(line, len);

		if (EFI_ERROR(status)) {
			fail_msg("Write(report file)", status);
			file = NULL;	/* stop trying; the handle stays open */
		}
	}
}

/*
 * Times the closing line is sent again when COM1 lost part of it, each with
 * the full budget per line: the verdict is worth waiting for (at most ten
 * budgets) when no other line is.
 */
#define CLOSING_TRIES 10u

void sink_close(struct report *r)
{
	const char *line = NULL;
	size_t len = 0;
	uint64_t lost = 0;

	sink_emit(r);   /* also makes @r the report the cursors follow */
	report_finish_lost(r, direct_serial ? serial_lost() : 0);
	/* the finish lines, the closing line last: what COM1 lost of it is known */
	while (report_next_line(r, &console_cursor, &line, &len)) {
		uint64_t before = serial_lost();

		line_out(line, len);
		lost = serial_lost() - before;
	}
	for (unsigned t = 0; direct_serial && line && lost && t < CLOSING_TRIES; t++)
		lost = serial_write_line_again(line, len);
	sink_emit(r);   /* the file */
}

void sink_framebuffer(struct fbcon *c)
{
	fb = c;
}

void sink_firmware_gone(void)
{
	console_on = false;
	file = NULL;
	if (!direct_serial)
		direct_serial = serial_init();
}
