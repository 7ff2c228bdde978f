/* SPDX-License-Identifier: MIT */
/*
 * In-memory TAP report.
 *
 * Filled while no firmware service may be called (our CR3 loaded, interrupts
 * off): every function here only writes into the caller's buffer.  Sinks copy
 * the lines out later through report_next_line() whenever firmware is
 * reachable again.
 *
 * Buffer layout: complete lines, each ending in '\n', then a NUL.  Lines are
 * only ever appended, so a cursor (a byte offset) stays valid.
 */
#ifndef PTLAB_EFI_REPORT_H
#define PTLAB_EFI_REPORT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trap_fault;

/*
 * Space kept back for the lines report_finish() writes: the truncation note,
 * the plan line and the closing line, with 10-digit counters and a serial
 * loss of 20 digits.
 */
#define REPORT_RESERVE 192

struct report {
	char *buf;
	size_t size;
	size_t len;		/* bytes of complete lines in buf */
	unsigned int tests;	/* test points numbered so far */
	unsigned int passed;
	unsigned int failed;
	unsigned int skipped;
	unsigned int todo;	/* TODO points (report_todo), counted in passed too */
	unsigned int dropped;	/* lines that did not fit */
	bool finished;
	/*
	 * The check now reporting, by its registry key (its fault's name),
	 * or NULL: its "ok" and "not ok" lines end in " # check=KEY", so a
	 * reader finds a check's test points by that key, not by their
	 * words.  The check registry sets and clears it (registry.h).
	 */
	const char *check;
};

/**
 * report_init() - start an empty report in @buf
 * @r:    report
 * @buf:  storage for the lines; should be larger than REPORT_RESERVE
 * @size: bytes in @buf
 *
 * A buffer smaller than REPORT_RESERVE holds no line but the finish lines,
 * and those only as far as they fit.
 */
void report_init(struct report *r, char *buf, size_t size);

/**
 * report_ok() - record a passing test point: "ok N - <name>"
 *
 * Return: 0 when the line was stored, -1 when it was dropped for lack of
 * space (the test point is still counted) or the report is finished (not
 * counted).  Newlines in the text become spaces.
 */
int report_ok(struct report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * report_fail() - record a failing test point: "not ok N - <name: reason>"
 *
 * The caller writes name and reason into the one format, "name: reason".
 * Return: as report_ok().
 */
int report_fail(struct report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * report_vpoint() - report_ok() (@ok) or report_fail() with a va_list
 *
 * Return: as report_ok().
 */
int report_vpoint(struct report *r, bool ok, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/**
 * report_vkeyed() - report_vpoint() with the line keyed by @check
 *
 * The test point ends in " # check=@check" as the lines of a check the
 * registry runs do; the key in force before is back after.
 * Return: as report_ok().
 */
int report_vkeyed(struct report *r, const char *check, bool ok, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

/** report_keyed() - report_vkeyed() with its arguments. */
int report_keyed(struct report *r, const char *check, bool ok, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/**
 * report_skip() - record a skipped test point: "ok N - <name> # SKIP <reason>"
 *
 * Return: as report_ok().
 */
int report_skip(struct report *r, const char *name, const char *reason_fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * report_todo() - record a known deviation: "not ok N - <text> # TODO known
 *                 deviation <name>" (TAP's TODO: reported, never hidden, and
 *                 not a failure; counted with the passed points and in todo)
 *
 * Return: as report_ok().
 */
int report_todo(struct report *r, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * report_fact() - record a measured fact: "# <key>: <text>"
 *
 * For key=value lists, e.g. report_fact(r, "cpu", "la57=%d nx=%d", 0, 1).
 * Return: 0 when stored, -1 when dropped or finished.
 */
int report_fact(struct report *r, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * report_note() - record a free comment or progress line: "# <text>"
 *
 * Return: 0 when stored, -1 when dropped or finished.
 */
int report_note(struct report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* "#PF", "#GP", ... for exception vector @v; "interrupt" from 22 on. */
const char *report_vector_name(uint32_t v);

/*
 * How report_exception() words its line around the fault: "<who>:
 * unexpected exception<where> vector=V (NAME) rip=0x.. cr2=0x.. error=0x.."
 * then " rsp=0x.." when @rsp, then "; <then>" when @then is not NULL.
 */
struct report_exc {
	const char *who;        /* who took it: a live phase's name, "smp cpu 1 (apic 1)" */
	const char *where;      /* words after "unexpected exception", or NULL */
	bool rsp;               /* the stack pointer too */
	const char *then;       /* what became of the CPU, or NULL */
};

/**
 * report_exception() - the failing test point for an exception nothing expected
 * @r:   report
 * @how: the words around it (struct report_exc)
 * @f:   the exception as the trap code recorded it
 *
 * The one place such a line is written.  Return: as report_fail().
 */
int report_exception(struct report *r, const struct report_exc *how, const struct trap_fault *f);

/**
 * report_finish() - close the report
 *
 * Appends "# report truncated: N lines dropped" when lines were dropped, the
 * plan "1..N" and "ptlab: P passed, F failed, S skipped" - or, when not one
 * test point passed or failed, "ptlab: nothing checked (0 passed, 0 failed,
 * S skipped)", which no reader may take for a pass.  These use the
 * reserved space, so they are written even when the report is full.  Later
 * calls to the recording functions are ignored; calling it twice does
 * nothing the second time.
 */
void report_finish(struct report *r);

/**
 * report_finish_lost() - report_finish(), saying what the serial port lost
 * @serial_lost: bytes of the report COM1 could not send (0: none)
 *
 * When @serial_lost is not 0 the closing line ends in " (serial lost N
 * bytes)": the serial log is incomplete, and the closing line says so.
 */
void report_finish_lost(struct report *r, uint64_t serial_lost);

/**
 * report_next_line() - next line not yet seen through @cursor
 * @r:      report
 * @cursor: consumer's position, 0 to start from the first line
 * @line:   set to the line's first byte (not NUL-terminated)
 * @len:    set to the line's length without its '\n'
 *
 * Each consumer keeps its own cursor; every line is delivered to it once.
 * Return: true and advances @cursor when a line was available, false when
 * the consumer has seen every line stored so far.
 */
bool report_next_line(const struct report *r, size_t *cursor,
		      const char **line, size_t *len);

#endif
