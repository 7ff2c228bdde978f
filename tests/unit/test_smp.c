/* SPDX-License-Identifier: MIT */
/* covers: efi/smp/smpcore.c */
/*
 * efi/smp/smpcore.c: the CPU table (APIC ID to index), the judgement of a
 * probe after a shootdown, and the concurrent churn's shadow model checked
 * against a reference kept here; the hand-off trampoline's
 * placement rule and its data page (GDT, far pointers, CR3 below 4 GiB).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../efi/report/fmt.h"
#include "../../efi/smp/smpcore.h"
#include "../../efi/smp/smp_tramp.h"

static void test_table(void **state)
{
	struct smp_table t = { 0 };

	(void)state;
	assert_int_equal(smp_table_add(&t, 0), 0);
	assert_int_equal(smp_table_add(&t, 7), 1);
	assert_int_equal(smp_table_add(&t, 300), 2);      /* x2APIC IDs are 32 bits */
	assert_int_equal(smp_table_add(&t, 7), -1);       /* a repeated ID is refused */
	assert_int_equal(t.n, 3);
	assert_int_equal(smp_table_find(&t, 300), 2);
	assert_int_equal(smp_table_find(&t, 0), 0);
	assert_int_equal(smp_table_find(&t, 1), -1);
	for (uint32_t id = 1000; t.n < SMP_MAX_CPUS; id++)
		assert_true(smp_table_add(&t, id) >= 0);
	assert_int_equal(smp_table_add(&t, 5000), -1);    /* full */
	assert_int_equal(smp_table_find(&t, 5000), -1);
	assert_int_equal(smp_table_find(&t, 1000 + SMP_MAX_CPUS - 4), SMP_MAX_CPUS - 1);
}

static void test_judge(void **state)
{
	const struct smp_expect val_new = { .value = 2 }, val_old = { .value = 1 };
	const struct smp_expect pf = { .fault = true, .error = 0, .cr2 = 0x1000 };
	struct smp_obs o = { .value = 2 };

	(void)state;
	assert_int_equal(smp_judge(&o, &val_new, &val_old), SMP_SAW_NEW);
	o.value = 1;
	assert_int_equal(smp_judge(&o, &val_new, &val_old), SMP_SAW_OLD);
	o.value = 3;
	assert_int_equal(smp_judge(&o, &val_new, &val_old), SMP_SAW_OTHER);

	/* a fault must match vector, error code and CR2 exactly */
	o = (struct smp_obs){ .faulted = true, .vector = 14, .error = 0, .cr2 = 0x1000 };
	assert_int_equal(smp_judge(&o, &pf, &val_old), SMP_SAW_NEW);
	o.error = 2;
	assert_int_equal(smp_judge(&o, &pf, &val_old), SMP_SAW_OTHER);
	o.error = 0;
	o.cr2 = 0x1008;
	assert_int_equal(smp_judge(&o, &pf, &val_old), SMP_SAW_OTHER);
	o.cr2 = 0x1000;
	o.vector = 13;
	assert_int_equal(smp_judge(&o, &pf, &val_old), SMP_SAW_OTHER);
	/* a faulting read is never a value, whatever the stored bytes say */
	o = (struct smp_obs){ .faulted = true, .vector = 14, .value = 1, .cr2 = 0x1000 };
	assert_int_equal(smp_judge(&o, &val_new, &val_old), SMP_SAW_OTHER);
	/* the stale side may be the read: a fault expected, the old value seen */
	o = (struct smp_obs){ .value = 1 };
	assert_int_equal(smp_judge(&o, &pf, &val_old), SMP_SAW_OLD);
}

static void test_obs_text(void **state)
{
	char buf[64];
	struct smp_obs o = { .value = 0xabc };

	(void)state;
	smp_obs_text(&o, buf, sizeof(buf));
	assert_string_equal(buf, "read 0xabc");
	o = (struct smp_obs){ .faulted = true, .vector = 14, .error = 2, .cr2 = 0x5000 };
	smp_obs_text(&o, buf, sizeof(buf));
	assert_string_equal(buf, "#PF error=0x2 cr2=0x5000");
	o.vector = 13;
	smp_obs_text(&o, buf, sizeof(buf));
	assert_string_equal(buf, "vector 13 error=0x2");
}

/* The churn's shadow against a reference model, step by step. */
static void test_churn_shadow(void **state)
{
	int ref[SMP_CHURN_PAGES];
	bool wr[SMP_CHURN_PAGES];
	uint64_t fv[SMP_CHURN_FRAMES];
	unsigned ops[4] = { 0 };
	struct smp_churn c;

	(void)state;
	for (unsigned j = 0; j < SMP_CHURN_FRAMES; j++)
		fv[j] = 0x1000 + j;
	for (unsigned i = 0; i < SMP_CHURN_PAGES; i++) {
		ref[i] = -1;
		wr[i] = false;
	}
	smp_churn_init(&c, 1);
	for (unsigned n = 0; n < 20000; n++) {
		struct smp_step s = smp_churn_next(&c);
		unsigned mapped = 0;

		assert_true(s.page < SMP_CHURN_PAGES);
		ops[s.op]++;
		switch (s.op) {
		case SMP_OP_MAP:
			assert_int_equal(ref[s.page], -1);
			assert_true(s.frame < SMP_CHURN_FRAMES);
			ref[s.page] = (int)s.frame;
			wr[s.page] = s.writable;
			break;
		case SMP_OP_UNMAP:
			assert_int_not_equal(ref[s.page], -1);
			ref[s.page] = -1;
			break;
		case SMP_OP_REMAP:
			assert_int_not_equal(ref[s.page], -1);
			assert_true(s.frame < SMP_CHURN_FRAMES);
			assert_int_not_equal(ref[s.page], (int)s.frame);   /* always a change */
			ref[s.page] = (int)s.frame;
			break;
		case SMP_OP_PROTECT:
			assert_int_not_equal(ref[s.page], -1);
			assert_int_equal(ref[s.page], (int)s.frame);
			assert_int_not_equal(wr[s.page], s.writable);
			wr[s.page] = s.writable;
			break;
		}
		for (unsigned i = 0; i < SMP_CHURN_PAGES; i++) {
			uint64_t va = 0x7000000 + i * 4096;
			struct smp_expect e = smp_churn_expect(&c, i, va, fv);

			assert_int_equal(c.frame[i], ref[i]);
			mapped += ref[i] >= 0;
			if (ref[i] < 0) {
				assert_true(e.fault);
				assert_int_equal(e.error, 0);
				assert_int_equal(e.cr2, va);
			} else {
				assert_false(e.fault);
				assert_int_equal(e.value, fv[ref[i]]);
			}
		}
		assert_int_equal(c.mapped, mapped);
	}
	for (unsigned k = 0; k < 4; k++)
		assert_true(ops[k] > 1000);   /* every kind of step occurs */
}

static void test_churn_seeded(void **state)
{
	struct smp_churn a, b, d;
	unsigned differ = 0;

	(void)state;
	smp_churn_init(&a, 42);
	smp_churn_init(&b, 42);
	smp_churn_init(&d, 43);
	for (unsigned n = 0; n < 500; n++) {
		struct smp_step x = smp_churn_next(&a), y = smp_churn_next(&b), z = smp_churn_next(&d);

		assert_memory_equal(&x, &y, sizeof(x));
		differ += x.page != z.page || x.op != z.op;
	}
	assert_true(differ > 100);
	/* seed 0 is a sequence too: not stuck, and not seed 1's */
	smp_churn_init(&a, 0);
	smp_churn_init(&d, 1);
	assert_int_equal(smp_churn_next(&a).op, SMP_OP_MAP);
	(void)smp_churn_next(&d);
	differ = 0;
	for (unsigned n = 0; n < 500; n++) {
		struct smp_step x = smp_churn_next(&a), z = smp_churn_next(&d);

		differ += x.page != z.page || x.op != z.op;
	}
	assert_true(differ > 100);
}

static void test_tramp_place(void **state)
{
	(void)state;
	assert_true(smp_tramp_place_ok(0x8000));
	assert_true(smp_tramp_place_ok(0x9e000));           /* both pages end at 0xa0000 */
	assert_false(smp_tramp_place_ok(0x9f000));          /* the data page would be video memory */
	assert_false(smp_tramp_place_ok(0xa0000));
	assert_false(smp_tramp_place_ok(0xbf000));
	assert_true(smp_tramp_place_ok(0xc0000));
	assert_true(smp_tramp_place_ok(0xfe000));
	assert_false(smp_tramp_place_ok(0xff000));          /* the data page above 1 MiB */
	assert_false(smp_tramp_place_ok(0x100000));
	assert_false(smp_tramp_place_ok(0x8800));           /* not page-aligned */
	assert_false(smp_tramp_place_ok(0));                /* page 0: the real-mode IVT */
}

static void test_tramp_fill(void **state)
{
	struct smp_tramp_data d, before;
	const uint64_t base = 0x8000;

	(void)state;
	memset(&d, 0xa5, sizeof(d));
	assert_true(smp_tramp_fill(&d, base, 0x24, 0x5c, 0x7d900000, 0x20, 0x123450000,
				   0xabc000, 0xffff0000));
	/* the SIPI vector and the far pointers land in the trampoline's code page */
	assert_int_equal(base >> 12, 8);
	assert_int_equal(d.far32_off, base + 0x24);
	assert_int_equal(d.far32_sel, TRAMP_SEL_CODE32);
	assert_int_equal(d.far64_off, base + 0x5c);
	assert_int_equal(d.far64_sel, TRAMP_SEL_CODE64);
	assert_int_equal(d.gdtr_base, base + TD_PAGE_OFF + TD_GDT);
	assert_int_equal(d.gdtr_limit, 8 * TRAMP_GDT_ENTRIES - 1);
	/* the park IDT's code selector: 64-bit code, as in the Limine protocol's GDT */
	assert_int_equal(TRAMP_SEL_PARK_CODE, 0x28);
	assert_int_equal(d.gdt[TRAMP_SEL_PARK_CODE / 8], d.gdt[TRAMP_SEL_CODE64 / 8]);
	assert_int_equal((d.gdt[TRAMP_SEL_PARK_DATA / 8] >> 40) & 0xff, 0x92);
	/* no TSS and an empty IDT until smp_tramp_park() */
	assert_int_equal(d.gdt[TRAMP_SEL_TSS / 8], 0);
	assert_int_equal(d.idtr_limit, 0);
	smp_tramp_park(&d, UINT64_C(0x12345678abcd), 103, UINT64_C(0xffff800012345000), 4095);
	/* base 15:0 at 16, 23:16 at 32, 31:24 at 56, 63:32 in the next word; type 9, P */
	assert_int_equal(d.gdt[TRAMP_SEL_TSS / 8], UINT64_C(0x56008978abcd0067));
	assert_int_equal(d.gdt[TRAMP_SEL_TSS / 8 + 1], 0x1234);
	assert_int_equal(d.idtr_limit, 4095);
	assert_int_equal(d.idtr_base, UINT64_C(0xffff800012345000));
	/* descriptors: 32-bit code D=1 L=0, data writable, 64-bit code L=1 D=0, all present DPL 0 */
	assert_int_equal((d.gdt[1] >> 53) & 3, 2);          /* L=0, D=1 */
	assert_int_equal((d.gdt[3] >> 53) & 3, 1);          /* L=1, D=0 */
	assert_int_equal((d.gdt[1] >> 40) & 0xff, 0x9a);
	assert_int_equal((d.gdt[2] >> 40) & 0xff, 0x92);
	assert_int_equal((d.gdt[3] >> 40) & 0xff, 0x9a);
	assert_int_equal(d.gdt[0], 0);
	assert_int_equal(d.cr3, 0x7d900000);
	assert_int_equal(d.cr4, 0x20);
	assert_int_equal(d.stack_top, 0x123450000);
	assert_int_equal(d.cpu, 0xabc000);
	assert_int_equal(d.entry, 0xffff0000);

	/* refused: nothing written */
	before = d;
	assert_false(smp_tramp_fill(&d, base, 0x24, 0x5c, UINT64_C(0x100000000), 0x20, 1, 2, 3));
	assert_false(smp_tramp_fill(&d, base, 0x24, 0x5c, 0x7d900800, 0x20, 1, 2, 3));
	assert_false(smp_tramp_fill(&d, 0xa0000, 0x24, 0x5c, 0x1000, 0x20, 1, 2, 3));
	assert_false(smp_tramp_fill(&d, base, 0x1000, 0x5c, 0x1000, 0x20, 1, 2, 3));
	assert_memory_equal(&d, &before, sizeof(d));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_judge),
		cmocka_unit_test(test_obs_text),
		cmocka_unit_test(test_churn_shadow),
		cmocka_unit_test(test_churn_seeded),
		cmocka_unit_test(test_tramp_place),
		cmocka_unit_test(test_tramp_fill),
	};

	return cmocka_run_group_tests_name("smp", tests, NULL, NULL);
}
