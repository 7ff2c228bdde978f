/* SPDX-License-Identifier: MIT */
/*
 * The machine seams the check catalog's modules link against, for host
 * programs that walk the registry and run no check (tests/unit/
 * test_catalog.c, tools/listchecks.c): each one fails through the
 * includer's UNREACHED(name) if it is ever called.  Included once, in the
 * program's one file that defines UNREACHED.
 */
#ifndef UNREACHED
#error "define UNREACHED(what) before including catalog_seams.h"
#endif

int ptlab_live_phase(struct ptlab *p, const struct ptlab_live_phase *ph)
{
	(void)p;
	(void)ph;
	UNREACHED("ptlab_live_phase");
	return -1;
}

void ptlab_flush(const struct pt_flushlist *fl)
{
	(void)fl;
	UNREACHED("ptlab_flush");
}

uint64_t ptlab_us(const struct ptlab_time *t, uint64_t ticks)
{
	(void)t;
	(void)ticks;
	UNREACHED("ptlab_us");
	return 0;
}

bool ptlab_deadline_passed(const struct ptlab_time *t, const struct opts *o, struct report *rep,
			   bool *aborted)
{
	(void)t;
	(void)o;
	(void)rep;
	(void)aborted;
	UNREACHED("ptlab_deadline_passed");
	return true;
}

bool la57_is_code_page(const struct ptlab_live *live, uint64_t pa)
{
	(void)live;
	(void)pa;
	UNREACHED("la57_is_code_page");
	return false;
}

int trap_install(void)
{
	UNREACHED("trap_install");
	return -1;
}

int trap_uninstall(void)
{
	UNREACHED("trap_uninstall");
	return -1;
}

bool trap_installed(void)
{
	UNREACHED("trap_installed");
	return false;
}

uint64_t trap_tss_base(void)
{
	UNREACHED("trap_tss_base");
	return 0;
}

int probe_read64(uint64_t va, uint64_t *out, struct trap_fault *f)
{
	(void)va;
	(void)out;
	(void)f;
	UNREACHED("probe_read64");
	return -1;
}

int probe_write64(uint64_t va, uint64_t val, struct trap_fault *f)
{
	(void)va;
	(void)val;
	(void)f;
	UNREACHED("probe_write64");
	return -1;
}

int probe_exec(uint64_t va, struct trap_fault *f)
{
	(void)va;
	(void)f;
	UNREACHED("probe_exec");
	return -1;
}

int probe_read8(uint64_t va, uint64_t *out, struct trap_fault *f)
{
	(void)va;
	(void)out;
	(void)f;
	UNREACHED("probe_read8");
	return -1;
}

int probe_write8(uint64_t va, uint64_t val, struct trap_fault *f)
{
	(void)va;
	(void)val;
	(void)f;
	UNREACHED("probe_write8");
	return -1;
}

int user_enable(const char **why)
{
	(void)why;
	UNREACHED("user_enable");
	return -1;
}

void user_disable(void)
{
	UNREACHED("user_disable");
}

int user_run(uint64_t rip, uint64_t rsp, uint64_t rdi, uint64_t rflags, struct trap_fault *f)
{
	(void)rip;
	(void)rsp;
	(void)rdi;
	(void)rflags;
	(void)f;
	UNREACHED("user_run");
	return -1;
}
