/* SPDX-License-Identifier: MIT */
/*
 * Report sinks: ConOut (coloured), COM1 when ConOut does not reach a UART,
 * and \PTLAB.TXT on the volume the app was loaded from.
 *
 * Every function that calls firmware must run with the firmware's CR3 and
 * IDT loaded and boot services available; after sink_firmware_gone() only
 * COM1 is used.
 */
#ifndef PTLAB_EFI_SINK_H
#define PTLAB_EFI_SINK_H

#include <efi.h>

#include <stdbool.h>

#include "report/report.h"

/**
 * sink_init() - pick the sinks for this machine
 * @image: the app's image handle (for the file sink's volume)
 * @st:    system table
 *
 * Looks for a UART node (MESSAGING_DEVICE_PATH / MSG_UART_DP) in the device
 * path of ConOut's handle, or, when that handle has no device path (the
 * console splitter), in those of all Simple Text Output handles.  Only when
 * no UART is found is COM1 written directly, so each line reaches a serial
 * port once.
 */
void sink_init(EFI_HANDLE image, EFI_SYSTEM_TABLE *st);

/**
 * sink_serial_mode() - the --serial option
 * @mode: 0 auto (COM1 directly only when sink_init() found that ConOut does
 *        not reach a serial port), 1 on (always), 2 off (never)
 *
 * sink_init() detects: a UART node in a console device path, or a firmware
 * known to put ConOut on its serial port (FirmwareVendor "Das U-Boot...").
 */
void sink_serial_mode(int mode);

/** sink_serial_detected() - sink_init() found ConOut on a serial port */
bool sink_serial_detected(void);

/**
 * sink_direct_serial() - true when lines also go to COM1 by port I/O
 */
bool sink_direct_serial(void);

/**
 * sink_console_line() - one line to ConOut, coloured by its TAP kind
 * @line: NUL-terminated, without line break
 *
 * "ok" green, "ok ... # SKIP" yellow, "not ok" red; the previous attribute
 * is restored afterwards.  Does not write COM1 (see sink_print()).
 */
void sink_console_line(const char *line);

/**
 * sink_print() - text outside the report (usage, errors) to ConOut and COM1
 * @text: NUL-terminated, lines separated by '\n'
 */
void sink_print(const char *text);

/**
 * sink_file_open() - create the report file @name, replacing an existing one
 * @name:   ASCII, in the volume's root ("PTLAB.TXT", "PTLAB-2.TXT", ...)
 * @append: open the file this run wrote before and go on at its end (its
 *          cursor is kept), instead of replacing it
 *
 * The file is written on the volume the image was loaded from.  Its own
 * cursor starts at the report's first line, so it receives the whole
 * report on the next sink_emit() even if the console saw lines earlier.
 *
 * Return: EFI_SUCCESS, or the failing call's status (printed on the
 * console); the file sink then stays off.
 */
EFI_STATUS sink_file_open(const char *name, bool append);

/* Whether a report file is open (sink_file_open() succeeded, not closed since). */
bool sink_file_ready(void);

/**
 * sink_file_write() - append "<line>\n" to the report file
 *
 * Return: EFI_SUCCESS, EFI_NOT_READY when no file is open, or Write's status.
 */
EFI_STATUS sink_file_write(const char *line);

/**
 * sink_file_close() - flush and close the report file
 *
 * Return: the first failing status of Flush and Close, or EFI_SUCCESS (also
 * when no file was open).  The file sink is off afterwards in any case.
 */
EFI_STATUS sink_file_close(void);

/**
 * sink_emit() - send every report line not yet sent to each active sink
 * @r: the report; a different report than last time starts from its top
 */
void sink_emit(const struct report *r);

/**
 * sink_close() - close @r and send the rest of it to each active sink
 *
 * What is pending goes out first; then report_finish_lost() with the bytes
 * COM1 lost so far (when it is written directly), so the closing line says
 * when the serial log is incomplete; then the finish lines.  When COM1 lost
 * part of the closing line itself, the line is sent again (up to ten
 * times, each with the full budget per line).
 */
void sink_close(struct report *r);

/**
 * sink_firmware_gone() - after ExitBootServices: COM1 only
 *
 * ConOut and the file are forgotten (not closed: that needs boot services)
 * and COM1 is written directly from now on, if present.
 */
void sink_firmware_gone(void);

/**
 * sink_framebuffer() - also draw every line on a framebuffer console
 * @c: the console (its framebuffer mapped wherever lines are emitted), or
 *     NULL to stop
 */
struct fbcon;
void sink_framebuffer(struct fbcon *c);

#endif
