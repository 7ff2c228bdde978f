// SPDX-License-Identifier: MIT
/* covers: efi/limine/lmplace.c */
/*
 * Host tests for efi/limine/lmplace.c: the stack size request bounded
 * against the RAM and multiplied by the CPUs without wrapping (the
 * products that wrapped to 8 KiB in issue 45), and lm_place()'s
 * allocations through a fake seam: their sizes, their order, a kernel
 * that asks for nothing getting no response buffer (and its base revision
 * tag still answered), a refusal for lack of memory naming what.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "unit.h"

#include "../../efi/limine/limine.h"
#include "../../efi/limine/lmplace.h"

#define MIB (UINT64_C(1) << 20)
#define GIB (UINT64_C(1) << 30)

static char why[256];

/* The fake seam: pages handed out upwards from 1 MiB, at most @left of them. */
struct seam {
	uint64_t next, left;
	unsigned n;
	uint64_t pa[8], bytes[8];
	uint8_t mem[8][16384];
};

static uint64_t s_alloc(void *ctx, uint64_t bytes, uint64_t align)
{
	struct seam *s = ctx;
	uint64_t pa = (s->next + align - 1) & ~(align - 1);

	assert_true(bytes && bytes % 4096 == 0);
	if (bytes > s->left || s->n == 8)
		return 0;
	s->left -= bytes;
	s->next = pa + bytes;
	s->pa[s->n] = pa;
	s->bytes[s->n++] = bytes;
	return pa;
}

static uint8_t *s_at(void *ctx, uint64_t pa)
{
	struct seam *s = ctx;

	for (unsigned i = 0; i < s->n; i++)
		if (s->pa[i] == pa) {
			assert_true(s->bytes[i] <= sizeof(s->mem[i]));
			return s->mem[i];
		}
	fail_msg("at(0x%llx): not an allocation", (unsigned long long)pa);
	return NULL;
}

static struct lm_requests stack_req(uint64_t size)
{
	struct lm_requests r;

	memset(&r, 0, sizeof(r));
	r.have = 1u << LM_REQ_STACK_SIZE;
	r.req[LM_REQ_STACK_SIZE].extra[0] = size;
	return r;
}

static void test_limine_place_stack_bounds(void **state)
{
	struct lm_requests none, r;
	uint64_t each, total;

	(void)state;
	memset(&none, 0, sizeof(none));
	/* no request: the protocol's 64 KiB, ncpu + 1 of them */
	assert_int_equal(lm_stack_size(&none, 4, GIB, &each, &total, why, sizeof(why)), 0);
	assert_true(each == LM_STACK_DEFAULT && total == 5 * LM_STACK_DEFAULT);
	/* less than the default: the default; an odd size: rounded up to the page */
	r = stack_req(0x100);
	assert_int_equal(lm_stack_size(&r, 1, GIB, &each, &total, why, sizeof(why)), 0);
	assert_true(each == LM_STACK_DEFAULT && total == 2 * LM_STACK_DEFAULT);
	r = stack_req(0x20001);
	assert_int_equal(lm_stack_size(&r, 2, GIB, &each, &total, why, sizeof(why)), 0);
	assert_true(each == 0x21000 && total == 3 * 0x21000);
	/* the three of issue 45: each named, with its value */
	r = stack_req(0x8000000000001000);
	assert_int_equal(lm_stack_size(&r, 1, GIB, &each, &total, why, sizeof(why)), -1);
	assert_string_equal(why, "stack size request 0x8000000000001000 is larger than a quarter "
			    "of the RAM (0x10000000 bytes)");
	r = stack_req(0x5555555555556000);
	assert_int_equal(lm_stack_size(&r, 2, GIB, &each, &total, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "stack size request 0x5555555555556000 is larger"));
	r = stack_req(0x3333333333334000);
	assert_int_equal(lm_stack_size(&r, 4, GIB, &each, &total, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "stack size request 0x3333333333334000 is larger"));
	/* rounding up would wrap */
	r = stack_req(UINT64_MAX);
	assert_int_equal(lm_stack_size(&r, 1, UINT64_MAX, &each, &total, why, sizeof(why)), -1);
	/* a quarter of the RAM exactly is one stack's limit; a page more is refused */
	r = stack_req(GIB / 4);
	assert_int_equal(lm_stack_size(&r, 1, GIB, &each, &total, why, sizeof(why)), 0);
	assert_true(each == GIB / 4 && total == GIB / 2);
	r = stack_req(GIB / 4 + 1);
	assert_int_equal(lm_stack_size(&r, 1, GIB, &each, &total, why, sizeof(why)), -1);
	/* within a quarter, but the CPUs' stacks together above half */
	r = stack_req(GIB / 8);
	assert_int_equal(lm_stack_size(&r, 3, GIB, &each, &total, why, sizeof(why)), 0);
	assert_true(total == GIB / 2);
	assert_int_equal(lm_stack_size(&r, 4, GIB, &each, &total, why, sizeof(why)), -1);
	assert_string_equal(why, "stack size request 0x8000000 times 5 stacks (4 CPUs and the "
			    "BSP's own) is larger than half the RAM (0x20000000 bytes)");
	/* the product itself past 2^64 with a RAM that would allow each */
	r = stack_req(UINT64_C(1) << 60);
	assert_int_equal(lm_stack_size(&r, 64, UINT64_MAX, &each, &total, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "times 65 stacks"));
}

static struct lm_cpu_in cpus[2] = { { 0, 0 }, { 1, 1 } };

static struct seam s;
static const struct lm_pages pg = { &s, s_alloc, s_at };

static struct lm_place pl;
static struct lm_machine m;

/* The placement of @ncpu CPUs, its machine, and the seam's RAM fresh: 1 GiB from 1 MiB. */
static void fresh(unsigned ncpu, uint64_t kfile_len, unsigned map_cap)
{
	pl = (struct lm_place){ .ram = GIB, .ncpu = ncpu, .kfile_len = kfile_len,
				.gdt_head = 120, .park_bytes = 64, .map_cap = map_cap };
	m = (struct lm_machine){ .name = "ptlab", .version = "1", .hhdm = 0xffff800000000000,
				 .cpu = cpus, .ncpu = ncpu, .kernel = { .path = "/k" } };
	s = (struct seam){ .next = MIB, .left = GIB };
}

/* lm_place of @r on the placement and machine above */
static int place(const struct lm_requests *r)
{
	return lm_place(&pg, r, &m, &pl, why, sizeof(why));
}

static void test_limine_place_allocations(void **state)
{
	struct lm_requests r = stack_req(0x20000);

	(void)state;
	fresh(2, 0x1234, 100);
	r.have |= 1u << LM_REQ_HHDM | 1u << LM_REQ_MEMMAP;
	assert_int_equal(place(&r), LM_PLACE_OK);
	/* the file's copy, the stacks, the GDT, the map, the responses: in that order, each its size */
	assert_int_equal(s.n, 5);
	assert_true(pl.kfile_pa == s.pa[0] && s.bytes[0] == 0x2000);
	assert_true(pl.stack_bytes == 0x20000 && pl.stacks_len == 3 * 0x20000);
	assert_true(pl.stacks_pa == s.pa[1] && s.bytes[1] == pl.stacks_len);
	assert_true(pl.gdt_len == 120 + 2 * 64 && pl.gdt_pa == s.pa[2] && s.bytes[2] == 0x1000);
	assert_true(pl.map_len == 100 * sizeof(struct lm_memmap_entry) && pl.map_pa == s.pa[3]);
	assert_true(s.bytes[3] == ((pl.map_len + 4095) & ~UINT64_C(4095)));
	assert_true(pl.resp_pa == s.pa[4] && pl.resp_len == pl.answer.used && pl.resp_len);
	assert_true(pl.answer.answered == r.have);
	/* the map the responses were counted with is the one allocated, at its capacity */
	assert_ptr_equal(m.map, s.mem[3]);
	assert_int_equal(m.nmap, 100);
}

static void test_limine_place_no_request_no_buffer(void **state)
{
	static uint8_t img[0x100];
	struct lm_requests r;
	struct lm_answer a;

	(void)state;
	fresh(1, 0x1000, 16);
	memset(&r, 0, sizeof(r));
	assert_int_equal(place(&r), LM_PLACE_OK);
	assert_int_equal(s.n, 4);
	assert_true(pl.resp_len == 0 && pl.resp_pa == 0 && pl.answer.used == 0);
	assert_true(pl.stack_bytes == LM_STACK_DEFAULT && pl.stacks_len == 2 * LM_STACK_DEFAULT);
	/* only a base revision tag: answered with no buffer at all */
	r.tag = true;
	r.tag_off = 0x40;
	r.honoured = true;
	memset(img, 0xee, sizeof(img));
	assert_int_equal(lm_respond(&m, &r, img, NULL, 0, 0, &a, why, sizeof(why)), 0);
	assert_int_equal(img[0x40 + 16], 0);
	assert_int_equal(img[0x40 + 23], 0);
	assert_int_equal(img[0x40 + 15], 0xee);
	assert_int_equal(img[0x40 + 24], 0xee);
	/* a response to give and no buffer: refused, the image untouched */
	r.have = 1u << LM_REQ_HHDM;
	r.req[LM_REQ_HHDM].off = 0x80;
	memset(img, 0xee, sizeof(img));
	assert_int_equal(lm_respond(&m, &r, img, NULL, 0, 0, &a, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "no buffer"));
	assert_int_equal(img[0x40 + 16], 0xee);
}

static void test_limine_place_refusals(void **state)
{
	struct lm_requests r = stack_req(0x8000000000001000);

	(void)state;
	/* a stack beyond the bounds: refused before any page is taken */
	fresh(1, 0x1000, 16);
	assert_int_equal(place(&r), LM_PLACE_REFUSED);
	assert_int_equal(s.n, 0);
	assert_non_null(strstr(why, "stack size request 0x8000000000001000"));
	/* no CPU, or more than the protocol's responses hold */
	r = stack_req(0);
	pl.ncpu = 0;
	assert_int_equal(place(&r), LM_PLACE_REFUSED);
	pl.ncpu = LM_MAX_CPUS + 1;
	assert_int_equal(place(&r), LM_PLACE_REFUSED);
	assert_int_equal(s.n, 0);
	/* legal, but the RAM has room for the file's copy and not the stacks: named */
	pl.ncpu = 1;
	s = (struct seam){ .next = MIB, .left = 0x1000 + LM_STACK_DEFAULT };
	assert_int_equal(place(&r), LM_PLACE_NOMEM);
	assert_string_equal(why, "no memory for the stacks (0x20000 bytes)");
}

UNIT_MAIN(
	cmocka_unit_test(test_limine_place_stack_bounds),
	cmocka_unit_test(test_limine_place_allocations),
	cmocka_unit_test(test_limine_place_no_request_no_buffer),
	cmocka_unit_test(test_limine_place_refusals))
