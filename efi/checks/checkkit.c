/* SPDX-License-Identifier: MIT */
/* What the check modules share (see checkkit.h).  No firmware calls. */
#include "checks/checkkit.h"
#include "state/state.h"


uint64_t ptlab_pattern(uint64_t pa, uint64_t salt)
{
	uint64_t x = pa ^ (salt * UINT64_C(0x9e3779b97f4a7c15));

	x ^= x >> 31;
	x *= UINT64_C(0xbf58476d1ce4e5b9);
	return x ^ (x >> 29);
}

uint64_t ptlab_mmio_exec_bytes(const struct pt_memmap *map, uint64_t pa, uint64_t len,
			       unsigned flags)
{
	if (!(flags & PT_EXEC))
		return 0;
	return pt_memmap_class_bytes(map, pa, len, PT_MEM_SET_MMIO);
}

void ptlab_wx_judge(struct ptlab_wx_tally *t, uint64_t va, uint64_t pa, uint64_t size,
		    unsigned flags)
{
	if ((flags & PT_WRITE) && (flags & PT_EXEC)) {
		switch (t->exempt ? t->exempt(t->ctx, va, pa, size) : PTLAB_WX_FORBIDDEN) {
		case PTLAB_WX_KERNEL:
			t->wx_kernel += size;
			break;
		case PTLAB_WX_RUNTIME:
			t->wx_exempt += size;
			break;
		case PTLAB_WX_FORBIDDEN:
		default:
			if (!t->wx_bytes)
				t->wx_first = va;
			t->wx_bytes += size;
			break;
		}
	}
	t->mmio_x_bytes += ptlab_mmio_exec_bytes(t->map, pa, size, flags);
	if (va == 0)
		t->page0 = true;
}

int ptlab_wx_visit(void *arg, const struct pt_leaf *l)
{
	ptlab_wx_judge(arg, l->va, l->pa, l->size, l->flags);
	return 0;
}

static bool in_pool(void *ctx, uint64_t pa)
{
	return pt_frames_contains(ctx, pa);
}

static bool allocated(void *ctx, uint64_t pa)
{
	return pt_frames_in_use(ctx, pa);
}

int ptlab_lint(struct ptlab_build *b, bool in_use, struct pt_lint *l)
{
	return pt_lint(&b->space, b->lint_scratch, PTLAB_LINT_SCRATCH, in_use ? allocated : in_pool,
		       (void *)&b->frames, l);
}
