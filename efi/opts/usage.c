/* SPDX-License-Identifier: MIT */
/*
 * The usage text --help prints.  Every option of opts.c's table has its
 * line here with its choices; tests/unit/test_opts.c holds the two to each
 * other through opts_option().  Firmware-free.
 */
#include "opts/usage.h"

const char *opts_usage(void)
{
	return "usage: BOOTX64.EFI [options]   (or the same options in \\ptlab.cfg)\n"
	       "  --help                 this text\n"
	       "  --seed=N               random seed, decimal or 0x hex (default 1)\n"
	       "  --iterations=N         random operations per run (default 20000;\n"
	       "                         50000 in hand-off mode)\n"
	       "  --end=wait|return|shutdown|reboot|halt|qemu\n"
	       "                         what to do at the end (default wait)\n"
	       "  --mode=firmware|handoff\n"
	       "                         keep boot services, or exit them first\n"
	       "                         (handoff: --end defaults to shutdown)\n"
	       "  --dump-memmap          print the firmware's raw memory-map descriptors\n"
	       "  --dump[=leaves|ranges] print the plan and the built tables: every leaf\n"
	       "                         (leaves, the default) or ptdump-style runs (ranges)\n"
	       "  --dump-firmware=leaves|ranges\n"
	       "                         the same for the firmware's own tables (leaves capped)\n"
	       "  --hold                 after the checks, halt with our tables loaded\n"
	       "                         (interrupts off: inspect with the QEMU monitor)\n"
	       "  --inject=wrong-frame|nx-cleared|missing-invlpg|freed-table|\n"
	       "           missing-shootdown\n"
	       "                         plant a fault the checks must catch\n"
	       "  --inject=FAULT[,FAULT...]\n"
	       "                         (test) per-check faults, each making its check\n"
	       "                         fail (docs/faults.md)\n"
	       "  --fail-alloc=N         fail the Nth frame allocation\n"
	       "  --timeout=SECONDS      give up after this long (default none)\n"
	       "  --fragment             (test) scatter runtime pages through free memory\n"
	       "                         so the memory map is fragmented\n"
	       "  --raise=gp|badstack|timeout|la57-window|la57-root-high|ap-fault\n"
	       "                         (test) raise an exception, fault inside the\n"
	       "                         LA57 switch, refuse it (root above 4 GiB), or\n"
	       "                         fault on one AP (ap-fault)\n"
	       "  --levels=4|5           paging levels of the built tables (default: the\n"
	       "                         firmware's own mode); 5 switches the CPU to LA57\n"
	       "  --serial=auto|on|off   write COM1 directly: unless the console already\n"
	       "                         reaches a serial port (auto), always, never\n"
	       "  --wrong-restore        (test) return with CR0.WP flipped, for the\n"
	       "                         entry-state test to catch\n"
	       "  --kernel=PATH          with --mode=handoff: after the checks, boot the\n"
	       "                         Linux bzImage PATH (boot volume) on the tables\n"
	       "  --initrd=PATH          an initial ramdisk; repeatable: concatenated in\n"
	       "                         order (microcode first, then the initramfs)\n"
	       "  --cmdline=TEXT         its command line, up to the kernel's cmdline_size;\n"
	       "                         quote it when it has blanks, \\\" is a quote inside:\n"
	       "                         \"--cmdline=acpi_osi=\\\"!Windows 2015\\\"\"\n"
	       "  --module=PATH[,TEXT]   a Limine-protocol kernel's module (up to 16), with\n"
	       "                         its string\n"
	       "  --kaslr                a random slide for a relocatable Limine kernel\n";
}
