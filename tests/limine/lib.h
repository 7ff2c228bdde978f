/* SPDX-License-Identifier: MIT */
/*
 * The test kernel's small library: port and register access, the TAP
 * output on COM1 and port 0xE9, formatting, strings, SHA-256, CRC-32 and
 * the page-table walk over CR3.
 */
#ifndef LIMINE_LIB_H
#define LIMINE_LIB_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

#define PAGE 4096ULL
#define GIB (1ULL << 30)

#define CR0_PE (1ULL << 0)
#define CR0_WP (1ULL << 16)
#define CR0_PG (1ULL << 31)
#define CR4_PAE (1ULL << 5)
#define CR4_LA57 (1ULL << 12)
#define EFER_LME (1ULL << 8)
#define EFER_LMA (1ULL << 10)
#define EFER_NXE (1ULL << 11)
#define RFLAGS_IF (1ULL << 9)
#define RFLAGS_DF (1ULL << 10)
#define RFLAGS_VM (1ULL << 17)
#define MSR_EFER 0xc0000080u
#define MSR_PAT 0x277u

/* page-table entry bits */
#define PTE_P (1ULL << 0)
#define PTE_W (1ULL << 1)
#define PTE_U (1ULL << 2)
#define PTE_PWT (1ULL << 3)
#define PTE_PCD (1ULL << 4)
#define PTE_PS (1ULL << 7)
#define PTE_PAT4K (1ULL << 7)
#define PTE_PATBIG (1ULL << 12)
#define PTE_NX (1ULL << 63)
#define PTE_ADDR 0x000ffffffffff000ULL

static inline void outb(u16 port, u8 v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline u8 inb(u16 port)
{
	u8 v;

	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void cpuid(u32 leaf, u32 sub, u32 r[4])
{
	__asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
			 : "a"(leaf), "c"(sub));
}

static inline u64 rdmsr(u32 msr)
{
	u32 lo, hi;

	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((u64)hi << 32) | lo;
}

#define READ_CR(n) ({ u64 _v; __asm__ volatile("mov %%cr" #n ", %0" : "=r"(_v)); _v; })
#define READ_SEG(s) ({ u16 _v; __asm__ volatile("mov %%" #s ", %0" : "=r"(_v)); _v; })

static inline void cpu_relax(void)
{
	__asm__ volatile("pause" ::: "memory");
}

/* output: every line goes to COM1 and port 0xE9 prefixed "kernel: " */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void vsay(const char *fmt, va_list ap);
/* TAP: one test point; returns cond (non-zero when it passed) */
int check(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* the plan, the count line, the exit: never returns */
__attribute__((noreturn)) void finish(void);
/* an unrecoverable failure: the test point, then finish() */
__attribute__((noreturn)) void die(const char *what);
int failures(void);

int fmt(char *buf, size_t size, const char *f, ...) __attribute__((format(printf, 3, 4)));
int vfmt(char *buf, size_t size, const char *f, va_list ap);

void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
void *memmove(void *d, const void *s, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
const char *strstr(const char *h, const char *n);

struct sha256 {
	u32 h[8];
	u64 len;
	u8 buf[64];
	u32 fill;
};
void sha256_init(struct sha256 *s);
void sha256_add(struct sha256 *s, const void *data, size_t n);
void sha256_end(struct sha256 *s, u8 out[32]);

u32 crc32(const void *data, size_t n);

/* the page walk (lib.c): the translation of one virtual address */
struct xlate {
	u64 pa;		/* physical address va maps to */
	u64 size;	/* size of the leaf mapping: 4K, 2M or 1G */
	int writable;	/* R/W set at every level */
	int user;	/* U/S set at every level */
	int nx;		/* XD set at some level */
	int pat;	/* PAT index 0-7 of the leaf */
	u64 tables[5];	/* physical address of the table at each level used */
	int levels;	/* 4 or 5 */
};

/* walk_init: the HHDM offset through which tables are read */
void walk_init(u64 hhdm);
/* walk: translate va with the current CR3; 1 when mapped, 0 when not */
int walk(u64 va, struct xlate *x);
/* mapped: every page of [va, va+len) is mapped (readable) */
int mapped(u64 va, u64 len);

#endif
