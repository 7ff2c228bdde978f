/* SPDX-License-Identifier: MIT */
/*
 * In-memory TAP report.  Firmware-free: only compiler headers, so the host
 * tests compile this file as is.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "cpu/trap.h"
#include "report/fmt.h"
#include "report/report.h"

void report_init(struct report *r, char *buf, size_t size)
{
	*r = (struct report){ .buf = buf, .size = size };
	if (size)
		buf[0] = '\0';
}

/* Bytes that ordinary lines may use, including their '\n' and the NUL. */
static size_t line_limit(const struct report *r)
{
	return r->size > REPORT_RESERVE ? r->size - REPORT_RESERVE : 0;
}

/* Turn line breaks inside the text just written into spaces. */
static void flatten(char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == '\n' || s[i] == '\r')
			s[i] = ' ';
}

/*
 * Append one line "<prefix><fmt...><suffix>\n" within @limit bytes of the
 * buffer; either the whole line is stored or nothing is.
 */
static int append(struct report *r, size_t limit, const char *prefix,
		  const char *suffix, const char *fmt, va_list ap)
{
	size_t start = r->len, room, n;
	char *p;
	int k;

	if (limit <= start + 1) {
		r->dropped++;
		return -1;
	}
	p = r->buf + start;
	room = limit - start;	/* NUL included */
	k = fmt_snprintf(p, room, "%s", prefix);
	n = (size_t)k;
	if (n < room) {
		k = fmt_vsnprintf(p + n, room - n, fmt, ap);
		n += (size_t)k;
	}
	if (n < room)
		n += (size_t)fmt_snprintf(p + n, room - n, "%s", suffix);
	/* Need room for the text, its '\n' and the NUL. */
	if (n + 2 > room) {
		p[0] = '\0';
		r->dropped++;
		return -1;
	}
	flatten(p, n);
	p[n] = '\n';
	p[n + 1] = '\0';
	r->len = start + n + 1;
	return 0;
}

/* "ok N - TEXT" or "not ok N - TEXT", then the reporting check's key when one is set. */
static int test_point(struct report *r, const char *word, const char *fmt, va_list ap)
{
	char prefix[32], tag[64] = "";

	r->tests++;
	fmt_snprintf(prefix, sizeof(prefix), "%s %u - ", word, r->tests);
	if (r->check)
		fmt_snprintf(tag, sizeof(tag), " # check=%s", r->check);
	return append(r, line_limit(r), prefix, tag, fmt, ap);
}

int report_vpoint(struct report *r, bool ok, const char *fmt, va_list ap)
{
	if (r->finished)
		return -1;
	if (ok)
		r->passed++;
	else
		r->failed++;
	return test_point(r, ok ? "ok" : "not ok", fmt, ap);
}

int report_todo(struct report *r, const char *name, const char *fmt, ...)
{
	char prefix[32], tag[128];
	va_list ap;
	int ret;

	if (r->finished)
		return -1;
	r->passed++;
	r->todo++;
	r->tests++;
	fmt_snprintf(prefix, sizeof(prefix), "not ok %u - ", r->tests);
	if (r->check)
		fmt_snprintf(tag, sizeof(tag), " # TODO known deviation %s # check=%s", name, r->check);
	else
		fmt_snprintf(tag, sizeof(tag), " # TODO known deviation %s", name);
	va_start(ap, fmt);
	ret = append(r, line_limit(r), prefix, tag, fmt, ap);
	va_end(ap);
	return ret;
}

int report_vkeyed(struct report *r, const char *check, bool ok, const char *fmt, va_list ap)
{
	const char *was = r->check;
	int ret;

	r->check = check;
	ret = report_vpoint(r, ok, fmt, ap);
	r->check = was;
	return ret;
}

int report_keyed(struct report *r, const char *check, bool ok, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = report_vkeyed(r, check, ok, fmt, ap);
	va_end(ap);
	return ret;
}

int report_ok(struct report *r, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = report_vpoint(r, true, fmt, ap);
	va_end(ap);
	return ret;
}

int report_fail(struct report *r, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = report_vpoint(r, false, fmt, ap);
	va_end(ap);
	return ret;
}

const char *report_vector_name(uint32_t v)
{
	static const char *const names[] = {
		"#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM", "#DF", "CSO",
		"#TS", "#NP", "#SS", "#GP", "#PF", "-", "#MF", "#AC", "#MC", "#XM",
		"#VE", "#CP",
	};

	return v < sizeof(names) / sizeof(names[0]) ? names[v] : "interrupt";
}

int report_exception(struct report *r, const struct report_exc *how, const struct trap_fault *f)
{
	char rsp[32] = "";

	if (how->rsp)
		fmt_snprintf(rsp, sizeof(rsp), " rsp=0x%llx", (unsigned long long)f->rsp);
	return report_fail(r, "%s: unexpected exception%s vector=%u (%s) rip=0x%llx cr2=0x%llx "
			   "error=0x%llx%s%s%s", how->who, how->where ? how->where : "", f->vector,
			   report_vector_name(f->vector), (unsigned long long)f->rip,
			   (unsigned long long)f->cr2, (unsigned long long)f->error, rsp,
			   how->then ? "; " : "", how->then ? how->then : "");
}

/* Builds "<name> # SKIP " as the second half of the prefix. */
static int skip_line(struct report *r, const char *name, const char *fmt,
		     va_list ap)
{
	char prefix[160];

	r->tests++;
	fmt_snprintf(prefix, sizeof(prefix), "ok %u - %s # SKIP ", r->tests,
		     name ? name : "");
	return append(r, line_limit(r), prefix, "", fmt, ap);
}

int report_skip(struct report *r, const char *name, const char *reason_fmt, ...)
{
	va_list ap;
	int ret;

	if (r->finished)
		return -1;
	r->skipped++;
	va_start(ap, reason_fmt);
	ret = skip_line(r, name, reason_fmt, ap);
	va_end(ap);
	return ret;
}

int report_fact(struct report *r, const char *key, const char *fmt, ...)
{
	char prefix[64];
	va_list ap;
	int ret;

	if (r->finished)
		return -1;
	fmt_snprintf(prefix, sizeof(prefix), "# %s: ", key);
	va_start(ap, fmt);
	ret = append(r, line_limit(r), prefix, "", fmt, ap);
	va_end(ap);
	return ret;
}

int report_note(struct report *r, const char *fmt, ...)
{
	va_list ap;
	int ret;

	if (r->finished)
		return -1;
	va_start(ap, fmt);
	ret = append(r, line_limit(r), "# ", "", fmt, ap);
	va_end(ap);
	return ret;
}

/* A finish line into the whole buffer, reserve included. */
static void finish_line(struct report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void finish_line(struct report *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (append(r, r->size, "", "", fmt, ap))
		r->dropped--;	/* only ordinary lines count as dropped */
	va_end(ap);
}

void report_finish_lost(struct report *r, uint64_t serial_lost)
{
	char tail[48] = "";

	if (r->finished)
		return;
	r->finished = true;
	if (serial_lost)
		fmt_snprintf(tail, sizeof(tail), " (serial lost %llu bytes)",
			     (unsigned long long)serial_lost);
	if (r->dropped)
		finish_line(r, "# report truncated: %u lines dropped", r->dropped);
	finish_line(r, "1..%u", r->tests);
	if (!r->passed && !r->failed)
		finish_line(r, "ptlab: nothing checked (0 passed, 0 failed, %u skipped)%s",
			    r->skipped, tail);
	else
		finish_line(r, "ptlab: %u passed, %u failed, %u skipped%s", r->passed,
			    r->failed, r->skipped, tail);
}

void report_finish(struct report *r)
{
	report_finish_lost(r, 0);
}

bool report_next_line(const struct report *r, size_t *cursor,
		      const char **line, size_t *len)
{
	size_t i = *cursor, end;

	if (i >= r->len)
		return false;
	for (end = i; end < r->len && r->buf[end] != '\n'; end++)
		;
	*line = r->buf + i;
	*len = end - i;
	*cursor = end < r->len ? end + 1 : end;
	return true;
}
