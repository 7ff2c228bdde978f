/* SPDX-License-Identifier: MIT */
/*
 * Freestanding snprintf subset.  Firmware-free: only compiler headers, so
 * the host tests compile this file as is.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/fmt.h"

/* Output cursor: counts every byte, stores those that fit. */
struct fmt_out {
	char *buf;
	size_t size;
	size_t len;
};

static void out_char(struct fmt_out *o, char c)
{
	if (o->size && o->len < o->size - 1)
		o->buf[o->len] = c;
	o->len++;
}

static void out_repeat(struct fmt_out *o, char c, size_t n)
{
	while (n--)
		out_char(o, c);
}

enum {
	FL_LEFT = 1,	/* '-' */
	FL_ZERO = 2,	/* '0' */
};

static void out_str(struct fmt_out *o, const char *s, int flags, int width,
		    int prec)
{
	size_t n = 0, pad;

	if (!s)
		s = "(null)";
	while (s[n] && (prec < 0 || n < (size_t)prec))
		n++;
	pad = width > 0 && (size_t)width > n ? (size_t)width - n : 0;
	if (!(flags & FL_LEFT))
		out_repeat(o, ' ', pad);
	for (size_t i = 0; i < n; i++)
		out_char(o, s[i]);
	if (flags & FL_LEFT)
		out_repeat(o, ' ', pad);
}

/*
 * One integer conversion.  @prefix is "-", "0x" or "" and goes before the
 * zero padding, as in C.
 */
static void out_num(struct fmt_out *o, uint64_t v, unsigned base, bool upper,
		    const char *prefix, int flags, int width, int prec)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	size_t nd = 0, np = 0, zeros = 0, total, pad = 0;

	/* C: precision 0 with value 0 prints no digits. */
	if (!(v == 0 && prec == 0)) {
		do {
			tmp[nd++] = digits[v % base];
			v /= base;
		} while (v);
	}
	while (prefix[np])
		np++;
	if (prec >= 0 && (size_t)prec > nd)
		zeros = (size_t)prec - nd;
	total = np + zeros + nd;
	if (width > 0 && (size_t)width > total)
		pad = (size_t)width - total;
	/* '0' is ignored with '-' or with a precision. */
	if ((flags & FL_ZERO) && !(flags & FL_LEFT) && prec < 0) {
		zeros += pad;
		pad = 0;
	}
	if (!(flags & FL_LEFT))
		out_repeat(o, ' ', pad);
	for (size_t i = 0; i < np; i++)
		out_char(o, prefix[i]);
	out_repeat(o, '0', zeros);
	while (nd)
		out_char(o, tmp[--nd]);
	if (flags & FL_LEFT)
		out_repeat(o, ' ', pad);
}

enum len_mod { LEN_HH, LEN_H, LEN_NONE, LEN_L, LEN_LL, LEN_Z };

static int64_t get_signed(va_list *ap, enum len_mod lm)
{
	switch (lm) {
	case LEN_HH:
		return (signed char)va_arg(*ap, int);
	case LEN_H:
		return (short)va_arg(*ap, int);
	case LEN_L:
		return va_arg(*ap, long);
	case LEN_LL:
		return va_arg(*ap, long long);
	case LEN_Z:
		/* Signed counterpart of size_t: ptrdiff_t has the same size. */
		return va_arg(*ap, ptrdiff_t);
	default:
		return va_arg(*ap, int);
	}
}

static uint64_t get_unsigned(va_list *ap, enum len_mod lm)
{
	switch (lm) {
	case LEN_HH:
		return (unsigned char)va_arg(*ap, unsigned int);
	case LEN_H:
		return (unsigned short)va_arg(*ap, unsigned int);
	case LEN_L:
		return va_arg(*ap, unsigned long);
	case LEN_LL:
		return va_arg(*ap, unsigned long long);
	case LEN_Z:
		return va_arg(*ap, size_t);
	default:
		return va_arg(*ap, unsigned int);
	}
}

/* Decimal digits at *@p, clamped to a sane field size. */
static int parse_int(const char **p)
{
	int v = 0;

	while (**p >= '0' && **p <= '9') {
		if (v < 100000)
			v = v * 10 + (**p - '0');
		(*p)++;
	}
	return v;
}

/* A conversion's flags, width, precision and length modifier. */
struct fmt_spec {
	int flags, width, prec;
	enum len_mod lm;
};

/*
 * Read the flags, width, precision and length modifier at *@p (just after
 * the '%'), taking '*' arguments from @ap; *@p is left at the conversion.
 */
static void parse_spec(const char **p, va_list *ap, struct fmt_spec *sp)
{
	*sp = (struct fmt_spec){ .prec = -1, .lm = LEN_NONE };
	for (;; (*p)++) {
		if (**p == '-')
			sp->flags |= FL_LEFT;
		else if (**p == '0')
			sp->flags |= FL_ZERO;
		else
			break;
	}
	if (**p == '*') {
		sp->width = va_arg(*ap, int);
		if (sp->width > 100000)
			sp->width = 100000;
		if (sp->width < 0) {
			sp->flags |= FL_LEFT;
			sp->width = sp->width < -100000 ? 100000 : -sp->width;
		}
		(*p)++;
	} else {
		sp->width = parse_int(p);
	}
	if (**p == '.') {
		(*p)++;
		if (**p == '*') {
			sp->prec = va_arg(*ap, int);
			if (sp->prec < 0)
				sp->prec = -1;	/* C: as if omitted */
			(*p)++;
		} else {
			sp->prec = parse_int(p);
		}
	}
	/* h, hh, l, ll: the second letter doubles the first */
	if (**p == 'h' || **p == 'l') {
		char c = *(*p)++;
		bool twice = **p == c;

		*p += twice;
		sp->lm = c == 'h' ? (twice ? LEN_HH : LEN_H) : (twice ? LEN_LL : LEN_L);
	} else if (**p == 'z') {
		(*p)++;
		sp->lm = LEN_Z;
	}
}

/* %c: through out_str when it can, by hand when c is NUL (out_str would stop at it). */
static void out_chr(struct fmt_out *o, char c, const struct fmt_spec *sp)
{
	char s[2] = { c, 0 };
	size_t pad = sp->width > 1 ? (size_t)sp->width - 1 : 0;

	if (c) {
		out_str(o, s, sp->flags, sp->width, -1);
		return;
	}
	if (!(sp->flags & FL_LEFT))
		out_repeat(o, ' ', pad);
	out_char(o, 0);
	if (sp->flags & FL_LEFT)
		out_repeat(o, ' ', pad);
}

/* Conversion @conv with @sp, its argument from @ap; false when @conv is none we know. */
static bool out_conv(struct fmt_out *o, char conv, const struct fmt_spec *sp, va_list *ap)
{
	int64_t v;

	switch (conv) {
	case 'd':
	case 'i':
		v = get_signed(ap, sp->lm);
		out_num(o, v < 0 ? -(uint64_t)v : (uint64_t)v, 10, false, v < 0 ? "-" : "",
			sp->flags, sp->width, sp->prec);
		return true;
	case 'u':
		out_num(o, get_unsigned(ap, sp->lm), 10, false, "", sp->flags, sp->width,
			sp->prec);
		return true;
	case 'x':
	case 'X':
		out_num(o, get_unsigned(ap, sp->lm), 16, conv == 'X', "", sp->flags, sp->width,
			sp->prec);
		return true;
	case 'p':
		out_num(o, (uintptr_t)va_arg(*ap, void *), 16, false, "0x", sp->flags, sp->width,
			sp->prec);
		return true;
	case 'c':
		out_chr(o, (char)va_arg(*ap, int), sp);
		return true;
	case 's':
		out_str(o, va_arg(*ap, const char *), sp->flags, sp->width, sp->prec);
		return true;
	case '%':
		out_char(o, '%');
		return true;
	default:
		return false;
	}
}

int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap_in)
{
	struct fmt_out o = { .buf = buf, .size = size, .len = 0 };
	const char *p = fmt;
	va_list ap;

	va_copy(ap, ap_in);
	while (*p) {
		const char *start = p;
		struct fmt_spec sp;

		if (*p != '%') {
			out_char(&o, *p++);
			continue;
		}
		p++;
		parse_spec(&p, &ap, &sp);
		if (!out_conv(&o, *p, &sp, &ap)) {
			/* Unknown or truncated conversion: copy it literally. */
			while (start < p)
				out_char(&o, *start++);
			if (!*p)
				continue;
			out_char(&o, *p);
		}
		p++;
	}
	va_end(ap);

	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return o.len > INT32_MAX ? INT32_MAX : (int)o.len;
}

int fmt_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = fmt_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

size_t fmt_strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}
