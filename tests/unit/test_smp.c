/* SPDX-License-Identifier: MIT */
/*
 * efi/smpcore.c: the CPU table (APIC ID to index), the judgement of a
 * probe after a shootdown, and the concurrent churn's shadow model checked
 * against a reference kept here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../efi/fmt.c"
#include "../../efi/smpcore.c"

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
	/* seed 0 is a sequence too */
	smp_churn_init(&a, 0);
	assert_true(a.rng != 0);
	assert_int_equal(smp_churn_next(&a).op, SMP_OP_MAP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_judge),
		cmocka_unit_test(test_obs_text),
		cmocka_unit_test(test_churn_shadow),
		cmocka_unit_test(test_churn_seeded),
	};

	return cmocka_run_group_tests_name("smp", tests, NULL, NULL);
}
