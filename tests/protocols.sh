#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/protocols.sh
# A boot protocol is one folder of efi/ and one line of efi/proto/proto.c
# (with its row in mk/layers.txt): on a private copy of the tree, a third,
# minimal protocol (efi/mini/: recognised by its bytes, refusing to load)
# is added that way and nothing else is touched.  The copy's firmware
# image must build and link with kernel_mini in it, in the protocol
# table; mk/check-layers.py and mk/check-interfaces.py must pass on it.
# Then the layers must refuse the protocol using another protocol's
# folder, and the protocol's folder left out of mk/layers.txt.  The copy
# and its objects live in a temporary directory of their own (KEEP=1
# keeps it).  Prints ok/not ok lines and "protocols: N passed, M failed".
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/refused.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/ptlab-protocols.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
t=$work/t
b=$work/b

# The tree without its build outputs and history.
mkdir -p "$t"
tar -C "$top" --exclude=./build --exclude=./.git -cf - . | tar -C "$t" -xf -

# The third protocol: its folder ...
mkdir -p "$t/efi/mini"
cat >"$t/efi/mini/mini.h" <<'EOF'
/* SPDX-License-Identifier: MIT */
/* The least boot protocol there can be (mini.c). */
#ifndef PTLAB_EFI_MINI_MINI_H
#define PTLAB_EFI_MINI_MINI_H

struct kernel_proto;

extern const struct kernel_proto kernel_mini;

#endif
EOF
cat >"$t/efi/mini/mini.c" <<'EOF'
/* SPDX-License-Identifier: MIT */
/*
 * The least boot protocol there can be: a file that begins "PTLABMIN" is
 * its, and it refuses to load it.
 */
#include <efi.h>

#include "checks/registry.h"
#include "core/kernel.h"
#include "mini/mini.h"
#include "report/report.h"

#include <ptlab/pt.h>

static const struct ptlab_check check_mini_digest = {
	"mini: the tables handed over are the checked plan built again", PTLAB_PHASE_ELSEWHERE,
	NULL, { "mini-digest", "nothing: the protocol never gets that far", PTLAB_FAULT_HOOK,
		NULL, NULL },
};

static bool is_mini(const uint8_t *b, uint64_t len)
{
	static const char magic[8] = "PTLABMIN";

	for (unsigned i = 0; i < sizeof(magic); i++)
		if (i >= len || b[i] != (uint8_t)magic[i])
			return false;
	return true;
}

static int mini_load(struct ptlab *p, const struct kernel_file *f, const struct mode_boot *b,
		     unsigned map_cap)
{
	(void)b;
	(void)map_cap;
	report_fail(p->rep, "mini: kernel %s refused: this protocol loads nothing", f->path);
	return PT_EINVAL;
}

static int mini_prepare(struct ptlab *p)
{
	(void)p;
	return PT_EINVAL;
}

static __attribute__((noreturn)) void mini_enter(struct ptlab *p)
{
	(void)p;
	for (;;)
		__asm__ volatile("cli; hlt");
}

const struct kernel_proto kernel_mini = {
	.name = "mini",
	.format = "a mini file",
	.magic = "\"PTLABMIN\"",
	.recognise = is_mini,
	.load = mini_load,
	.digest_check = &check_mini_digest,
	.prepare = mini_prepare,
	.enter = mini_enter,
};
EOF
# ... its line in the table (and the table's include of its header) ...
sed -i 's|^\tNULL,$|\t\&kernel_mini,            /* a mini file */\n\tNULL,|' "$t/efi/proto/proto.c"
sed -i 's|^#include "proto/proto.h"$|&\n#include "mini/mini.h"|' "$t/efi/proto/proto.c"
# ... and its row in the folder graph, the table's folder using it.
sed -i 's|^proto: *\(.*\)$|mini:      report checks core \| firmware\nproto:     \1 mini|' "$t/mk/layers.txt"

if grep -q '&kernel_mini,' "$t/efi/proto/proto.c" && grep -q '^mini:' "$t/mk/layers.txt" &&
	grep -q '^proto:.* mini$' "$t/mk/layers.txt"; then
	ok "the copy has the third protocol: efi/mini/, one table line, one layers row"
else
	not_ok "the copy could not be given the third protocol (proto.c or layers.txt changed shape)"
fi
changed=$(cd "$t" && diff -rq "$top/efi" efi | sed "s|$top/||")
if [ "$(echo "$changed" | sort)" = "$(printf '%s\n' 'Files efi/proto/proto.c and efi/proto/proto.c differ' 'Only in efi: mini' | sort)" ]; then
	ok "of efi/, only efi/mini/ is new and only efi/proto/proto.c changed"
else
	not_ok "the copy's efi/ differs elsewhere:"
	echo "$changed" | sed 's/^/# /'
fi

# The copy's firmware image builds, with the protocol in its table.
if make -C "$t" BUILD="$b" V=0 -j"$(nproc)" "$b/ptlab.efi" >"$work/build.out" 2>&1; then
	ok "the copy's ptlab.efi builds and links"
else
	not_ok "the copy's ptlab.efi does not build:"
	grep -E 'error|Error' "$work/build.out" | head -n 12 | sed 's/^/# /'
fi
if [ -f "$b/ptlab.so" ] && nm "$b/ptlab.so" | grep ' D kernel_mini$' >/dev/null &&
	nm "$b/ptlab.so" | grep ' proto_table$' >/dev/null; then
	ok "kernel_mini is linked into the image beside proto_table"
else
	not_ok "kernel_mini is not in the copy's image"
fi
if [ -f "$b/efi/efi/proto/proto.c.o" ] && nm "$b/efi/efi/proto/proto.c.o" | grep ' U kernel_mini$' >/dev/null; then
	ok "the protocol table refers to kernel_mini"
else
	not_ok "the copy's protocol table does not refer to kernel_mini"
fi

# The structure checks pass on it.
layers() {
	python3 "$t/mk/check-layers.py" "$t/mk/layers.txt" "$t/efi" "$b/efi/efi" "$b/efi/libptlab.a"
}
if layers >"$work/layers.out" 2>&1; then
	ok "mk/check-layers.py passes on the copy ($(tail -n 1 "$work/layers.out"))"
else
	not_ok "mk/check-layers.py fails on the copy:"
	grep -A 6 '^not ok' "$work/layers.out" | sed 's/^/# /'
fi
if python3 "$t/mk/check-interfaces.py" "$t/efi" >"$work/interfaces.out" 2>&1; then
	ok "mk/check-interfaces.py passes on the copy"
else
	not_ok "mk/check-interfaces.py fails on the copy:"
	grep -A 6 '^not ok' "$work/interfaces.out" | sed 's/^/# /'
fi

# A protocol may not use another protocol's folder ...
cp "$t/efi/mini/mini.c" "$work/mini.c"
sed -i 's|^#include "mini/mini.h"$|&\n#include "linux/linux.h"|' "$t/efi/mini/mini.c"
check_refuses "the third protocol including linux/linux.h" "mini/mini.c includes linux/linux.h" \
	"$work/layers.out" layers
cp "$work/mini.c" "$t/efi/mini/mini.c"

# ... and its folder must be in the folder graph.
sed -i '/^mini:/d; s|^\(proto:.*\) mini$|\1|' "$t/mk/layers.txt"
check_refuses "the third protocol's folder left out of mk/layers.txt" "#   mini/mini.c" \
	"$work/layers.out" layers

echo "protocols: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
