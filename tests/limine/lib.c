// SPDX-License-Identifier: MIT
/*
 * The test kernel's library: output, formatting, strings, SHA-256, CRC-32
 * and the page walk.  Freestanding: the compiler may call memset, memcpy
 * and memmove, so they are defined here.
 */
#include "lib.h"

#define COM1 0x3f8
#define COM1_LSR (COM1 + 5)
#define LSR_THRE 0x20
#define DEBUGCON 0xe9
#define EXIT_PORT 0xf4
#define EXIT_PASSED 0x20
#define EXIT_FAILED 0x21

static int npassed, nfailed;
static u64 hhdm_off;

/* one byte to COM1 (polling the transmitter, bounded: a missing UART
 * reads 0xff and never blocks) and to the debug console */
static void putb(char c)
{
	int spins;

	for (spins = 0; spins < 100000; spins++)
		if (inb(COM1_LSR) & LSR_THRE)
			break;
	outb(COM1, (u8)c);
	outb(DEBUGCON, (u8)c);
}

static void puts_raw(const char *s)
{
	while (*s)
		putb(*s++);
}

void vsay(const char *f, va_list ap)
{
	char line[512];

	vfmt(line, sizeof(line), f, ap);
	puts_raw("kernel: ");
	puts_raw(line);
	putb('\r');
	putb('\n');
}

void say(const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vsay(f, ap);
	va_end(ap);
}

int check(int cond, const char *f, ...)
{
	char desc[400];
	va_list ap;

	va_start(ap, f);
	vfmt(desc, sizeof(desc), f, ap);
	va_end(ap);
	if (cond)
		npassed++;
	else
		nfailed++;
	say("%s %d - %s", cond ? "ok" : "not ok", npassed + nfailed, desc);
	return cond;
}

int failures(void)
{
	return nfailed;
}

/* The hypervisor bit (CPUID.1:ECX[31]): only under one is the exit port
 * assumed to be QEMU's isa-debug-exit. */
static int hypervisor(void)
{
	u32 r[4];

	cpuid(1, 0, r);
	return (r[2] >> 31) & 1;
}

void finish(void)
{
	say("1..%d", npassed + nfailed);
	say("%d passed, %d failed", npassed, nfailed);
	if (hypervisor())
		outb(EXIT_PORT, nfailed ? EXIT_FAILED : EXIT_PASSED);
	for (;;)
		__asm__ volatile("cli; hlt");
}

void die(const char *what)
{
	check(0, "%s (cannot go on)", what);
	finish();
}

/* ---- formatting: %s %c %d %u %x %p with l/ll, width and '0' ---- */

struct out {
	char *buf;
	size_t size, n;
};

static void emit(struct out *o, char c)
{
	if (o->n + 1 < o->size)
		o->buf[o->n] = c;
	o->n++;
}

static void emit_num(struct out *o, u64 v, int base, int neg, int width, char pad)
{
	char tmp[24];
	int i = 0;

	do {
		tmp[i++] = "0123456789abcdef"[v % (u64)base];
		v /= (u64)base;
	} while (v);
	if (neg)
		tmp[i++] = '-';
	while (i < width--)
		emit(o, pad);
	while (i)
		emit(o, tmp[--i]);
}

int vfmt(char *buf, size_t size, const char *f, va_list ap)
{
	struct out o = { buf, size, 0 };

	for (; *f; f++) {
		int longs = 0, width = 0;
		char pad = ' ';

		if (*f != '%') {
			emit(&o, *f);
			continue;
		}
		f++;
		if (*f == '0')
			pad = '0';
		while (*f >= '0' && *f <= '9')
			width = width * 10 + (*f++ - '0');
		while (*f == 'l') {
			longs++;
			f++;
		}
		switch (*f) {
		case 's': {
			const char *s = va_arg(ap, const char *);

			if (!s)
				s = "(null)";
			for (; *s; s++)
				emit(&o, *s);
			break;
		}
		case 'c':
			emit(&o, (char)va_arg(ap, int));
			break;
		case 'd': {
			long long v = longs ? va_arg(ap, long long) : va_arg(ap, int);

			emit_num(&o, v < 0 ? (u64)-v : (u64)v, 10, v < 0, width, pad);
			break;
		}
		case 'u':
			emit_num(&o, longs ? va_arg(ap, unsigned long long) : va_arg(ap, unsigned),
				 10, 0, width, pad);
			break;
		case 'x':
			emit_num(&o, longs ? va_arg(ap, unsigned long long) : va_arg(ap, unsigned),
				 16, 0, width, pad);
			break;
		case 'p':
			emit(&o, '0');
			emit(&o, 'x');
			emit_num(&o, (u64)va_arg(ap, void *), 16, 0, 0, ' ');
			break;
		case '%':
			emit(&o, '%');
			break;
		default:
			emit(&o, '?');
			break;
		}
	}
	if (o.size)
		o.buf[o.n < o.size ? o.n : o.size - 1] = 0;
	return (int)o.n;
}

int fmt(char *buf, size_t size, const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = vfmt(buf, size, f, ap);
	va_end(ap);
	return n;
}

/* ---- strings and memory ---- */

void *memset(void *d, int c, size_t n)
{
	u8 *p = d;

	while (n--)
		*p++ = (u8)c;
	return d;
}

void *memcpy(void *d, const void *s, size_t n)
{
	u8 *p = d;
	const u8 *q = s;

	while (n--)
		*p++ = *q++;
	return d;
}

void *memmove(void *d, const void *s, size_t n)
{
	u8 *p = d;
	const u8 *q = s;

	if (p < q)
		return memcpy(d, s, n);
	while (n--)
		p[n] = q[n];
	return d;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const u8 *p = a, *q = b;

	for (; n; n--, p++, q++)
		if (*p != *q)
			return *p < *q ? -1 : 1;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return (u8)*a - (u8)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (u8)*a - (u8)*b;
		if (!*a)
			return 0;
	}
	return 0;
}

const char *strstr(const char *h, const char *n)
{
	size_t len = strlen(n);

	for (; *h; h++)
		if (!strncmp(h, n, len))
			return h;
	return len ? NULL : h;
}

/* ---- SHA-256 (FIPS 180-4) ---- */

static const u32 sha_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static u32 ror(u32 x, int n)
{
	return (x >> n) | (x << (32 - n));
}

static void sha256_block(struct sha256 *s, const u8 *p)
{
	u32 w[64], v[8], t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (u32)p[4 * i] << 24 | (u32)p[4 * i + 1] << 16 |
		       (u32)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (i = 16; i < 64; i++)
		w[i] = w[i - 16] + (ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3)) +
		       w[i - 7] + (ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10));
	for (i = 0; i < 8; i++)
		v[i] = s->h[i];
	for (i = 0; i < 64; i++) {
		t1 = v[7] + (ror(v[4], 6) ^ ror(v[4], 11) ^ ror(v[4], 25)) +
		     ((v[4] & v[5]) ^ (~v[4] & v[6])) + sha_k[i] + w[i];
		t2 = (ror(v[0], 2) ^ ror(v[0], 13) ^ ror(v[0], 22)) +
		     ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
		v[7] = v[6];
		v[6] = v[5];
		v[5] = v[4];
		v[4] = v[3] + t1;
		v[3] = v[2];
		v[2] = v[1];
		v[1] = v[0];
		v[0] = t1 + t2;
	}
	for (i = 0; i < 8; i++)
		s->h[i] += v[i];
}

void sha256_init(struct sha256 *s)
{
	static const u32 iv[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(s->h, iv, sizeof(iv));
	s->len = 0;
	s->fill = 0;
}

void sha256_add(struct sha256 *s, const void *data, size_t n)
{
	const u8 *p = data;

	s->len += n;
	while (n) {
		if (!s->fill && n >= 64) {
			sha256_block(s, p);
			p += 64;
			n -= 64;
			continue;
		}
		s->buf[s->fill++] = *p++;
		n--;
		if (s->fill == 64) {
			sha256_block(s, s->buf);
			s->fill = 0;
		}
	}
}

void sha256_end(struct sha256 *s, u8 out[32])
{
	u64 bits = s->len * 8;
	u8 pad = 0x80, len[8];
	int i;

	for (i = 0; i < 8; i++)
		len[i] = (u8)(bits >> (56 - 8 * i));
	sha256_add(s, &pad, 1);
	pad = 0;
	while (s->fill != 56)
		sha256_add(s, &pad, 1);
	sha256_add(s, len, 8);
	for (i = 0; i < 32; i++)
		out[i] = (u8)(s->h[i / 4] >> (24 - 8 * (i % 4)));
}

/* ---- CRC-32 (IEEE 802.3, reflected), as the UEFI table headers use ---- */

u32 crc32(const void *data, size_t n)
{
	const u8 *p = data;
	u32 c = 0xffffffffu;
	int k;

	while (n--) {
		c ^= *p++;
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
	}
	return ~c;
}

/* ---- the page walk ---- */

void walk_init(u64 hhdm)
{
	hhdm_off = hhdm;
}

int walk(u64 va, struct xlate *x)
{
	u64 cr4 = READ_CR(4), table = READ_CR(3) & PTE_ADDR;
	int levels = (cr4 & CR4_LA57) ? 5 : 4, lvl;
	int w = 1, u = 1, nx = 0;

	memset(x, 0, sizeof(*x));
	x->levels = levels;
	/* non-canonical addresses translate to nothing */
	if (levels == 4 && (u64)((int64_t)(va << 16) >> 16) != va)
		return 0;
	if (levels == 5 && (u64)((int64_t)(va << 7) >> 7) != va)
		return 0;
	for (lvl = levels; lvl >= 1; lvl--) {
		int shift = 12 + 9 * (lvl - 1);
		u64 e = ((volatile u64 *)(hhdm_off + table))[(va >> shift) & 511];

		x->tables[lvl - 1] = table;
		if (!(e & PTE_P))
			return 0;
		w &= !!(e & PTE_W);
		u &= !!(e & PTE_U);
		nx |= !!(e & PTE_NX);
		if (lvl == 1 || ((lvl == 2 || lvl == 3) && (e & PTE_PS))) {
			u64 size = 1ULL << shift;

			x->size = size;
			x->pa = (e & PTE_ADDR & ~(size - 1)) + (va & (size - 1));
			x->writable = w;
			x->user = u;
			x->nx = nx;
			x->pat = ((e & PTE_PWT) ? 1 : 0) | ((e & PTE_PCD) ? 2 : 0) |
				 ((e & (lvl == 1 ? PTE_PAT4K : PTE_PATBIG)) ? 4 : 0);
			return 1;
		}
		table = e & PTE_ADDR;
	}
	return 0;
}

int mapped(u64 va, u64 len)
{
	struct xlate x;
	u64 p, end = va + len;

	if (end < va)
		return 0;
	for (p = va & ~(PAGE - 1); p < end; p += PAGE)
		if (!walk(p, &x))
			return 0;
	return 1;
}
