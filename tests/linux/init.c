// SPDX-License-Identifier: MIT
/*
 * /init of the initramfs the Linux hand-off test boots (tests/boot/linux.sh).
 *
 * It checks, from inside the kernel ptlab handed its machine to, what only
 * that kernel can tell: that user space was reached, the command line it
 * was given, the CPUs it brought up, the paging mode it runs in, and that
 * its log holds no warning.  What ptlab reported is compared on the host:
 * this program prints what the kernel says (the command line, MemTotal,
 * the firmware memory map of /sys/firmware/memmap) as "init: ..." lines.
 *
 * Every line goes through /dev/kmsg, so the kernel prints it on its
 * console itself (polled, in order with its own messages): a tty write
 * would wait for the UART's interrupt, and "init: ..." lines are what the
 * host reads.
 *
 * Expectations arrive on the kernel command line: ptlab.cpus=N (QEMU's
 * -smp), ptlab.la57=0|1 (5-level paging expected).  Whether efifb took a
 * framebuffer is printed ("init: efifb: 1"), for the host to compare with
 * what ptlab passed.  What the kernel found through the EFI system table
 * ptlab passed in efi_info is printed for the host to compare with what
 * ptlab read before ExitBootServices: the SMBIOS manufacturer
 * (/sys/class/dmi/id/sys_vendor), the PlatformLang variable's bytes
 * and every variable of the EFI global GUID through efivarfs (runtime
 * services kept); /sys/firmware/efi/systab is
 * checked here.  The command line's length and FNV-1a hash are printed
 * too (a long one does not fit a log line), and the marker file a first
 * initrd may add (/ptlab-first-initrd).  The end: isa-debug-exit with 0x20 (all
 * passed) or 0x21, so QEMU exits with 65 or 67; without the device,
 * poweroff.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define EXIT_PORT   0xf4
#define EXIT_PASSED 0x20
#define EXIT_FAILED 0x21
#define LOG_BYTES   (1 << 20)

static int passed, failed;
static int kmsg = -1;

/* One line "init: ..." through the kernel log (stdout without /dev/kmsg). */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void say(const char *fmt, ...)
{
	char line[900];
	int n = snprintf(line, sizeof(line), "<5>init: ");
	va_list ap;

	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(line) - 1)
		n = sizeof(line) - 2;
	/* the newline ends the record: without it the kernel holds it for a continuation */
	line[n++] = '\n';
	if (kmsg < 0 || write(kmsg, line, (size_t)n) != n) {
		fwrite(line + 3, 1, (size_t)n - 3, stdout);
		fflush(stdout);
	}
}

static void check(int ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void check(int ok, const char *fmt, ...)
{
	char text[800];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	say("%s - %s", ok ? "ok" : "not ok", text);
	if (ok)
		passed++;
	else
		failed++;
}

/* The whole of a small file, NUL-terminated, trailing newline removed; NULL if unreadable. */
static char *slurp(const char *path)
{
	static char buf[8192];
	int fd = open(path, O_RDONLY);
	ssize_t n, len = 0;

	if (fd < 0)
		return NULL;
	while (len < (ssize_t)sizeof(buf) - 1 &&
	       (n = read(fd, buf + len, sizeof(buf) - 1 - (size_t)len)) > 0)
		len += n;
	close(fd);
	while (len > 0 && buf[len - 1] == '\n')
		len--;
	buf[len] = '\0';
	return buf;
}

/* The value of "key=" on the command line @cmd as a number; -1 when absent. */
static long param(const char *cmd, const char *key)
{
	size_t k = strlen(key);

	for (const char *p = cmd; (p = strstr(p, key)); p += k)
		if ((p == cmd || p[-1] == ' ') && p[k] == '=')
			return strtol(p + k + 1, NULL, 0);
	return -1;
}

/* CPUs in a list like "0-3,5". */
static long count_cpus(const char *list)
{
	long n = 0;

	while (*list) {
		char *end;
		long a = strtol(list, &end, 10), b = a;

		if (end == list)
			return -1;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		n += b - a + 1;
		list = *end == ',' ? end + 1 : end;
	}
	return n;
}

struct range {
	unsigned long long start, end;
	char type[64];
};

static int by_start(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* /sys/firmware/memmap/N/{start,end,type}, in address order. */
static void print_memmap(void)
{
	static struct range r[1024];
	char path[320];
	int n = 0;
	DIR *d = opendir("/sys/firmware/memmap");
	struct dirent *e;

	if (!d) {
		check(0, "/sys/firmware/memmap is readable");
		return;
	}
	while ((e = readdir(d)) && n < 1024) {
		char *v;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/firmware/memmap/%s/start", e->d_name);
		if (!(v = slurp(path)))
			continue;
		r[n].start = strtoull(v, NULL, 0);
		snprintf(path, sizeof(path), "/sys/firmware/memmap/%s/end", e->d_name);
		r[n].end = (v = slurp(path)) ? strtoull(v, NULL, 0) : 0;
		snprintf(path, sizeof(path), "/sys/firmware/memmap/%s/type", e->d_name);
		snprintf(r[n].type, sizeof(r[n].type), "%s", (v = slurp(path)) ? v : "?");
		n++;
	}
	closedir(d);
	qsort(r, (size_t)n, sizeof(r[0]), by_start);
	for (int i = 0; i < n; i++)
		say("memmap: 0x%llx-0x%llx %s", r[i].start, r[i].end, r[i].type);
	say("memmap-entries: %d", n);
}

/* Run busybox with @arg; its first output line in @out. */
static int busybox(const char *arg, char *out, size_t size)
{
	int fd[2], status = -1;
	pid_t pid;
	ssize_t n;

	if (pipe(fd))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], 1);
		execl("/bin/busybox", "busybox", "cat", arg, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	n = read(fd[0], out, size - 1);
	out[n > 0 ? n : 0] = '\0';
	close(fd[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void check_log(void)
{
	static char log[LOG_BYTES + 1];
	static const char *const bad[] = { "WARNING:", "BUG:", "Call Trace" };
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, LOG_BYTES);

	if (n < 0) {
		check(0, "the kernel log is readable");
		return;
	}
	log[n] = '\0';
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *at = strstr(log, bad[i]);

		if (at) {
			const char *s = at, *e = strchr(at, '\n');

			while (s > log && s[-1] != '\n')
				s--;
			check(0, "the kernel log has no '%s' (found: %.*s)", bad[i],
			      (int)(e ? e - s : (long)strlen(s)), s);
		} else {
			check(1, "the kernel log has no '%s'", bad[i]);
		}
	}
	say("efifb: %d", strstr(log, "efifb: framebuffer at") != NULL);
}

/* FNV-1a, 64 bits, of @s: the host computes the same of what ptlab passed. */
static unsigned long long fnv1a(const char *s)
{
	unsigned long long h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

#define EFI_GLOBAL "-8be4df61-93ca-11d2-aa0d-00e098032b8c"
#define EFIVARS "/sys/firmware/efi/efivars"
#define EFIVAR_PIECE 256

/*
 * Every variable of the EFI global GUID efivarfs lists, each file's bytes
 * (4 of attributes, then the data) as "efivar: NAME OFFSET HEX" lines of
 * up to EFIVAR_PIECE bytes, then "efivar-end: COUNT": the host compares
 * them with the firmware's variable store and with the EFI stub's boot
 * (tests/boot/efivars.py).
 */
static void print_efivars(void)
{
	static unsigned char b[65536];
	char hex[2 * EFIVAR_PIECE + 1], path[300];
	size_t g = strlen(EFI_GLOBAL);
	struct dirent *e;
	int count = 0;
	DIR *d = opendir(EFIVARS);

	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		ssize_t len = 0, r;
		int fd;

		if (n <= g || n > 200 || strcmp(e->d_name + n - g, EFI_GLOBAL))
			continue;
		snprintf(path, sizeof(path), EFIVARS "/%s", e->d_name);
		fd = open(path, O_RDONLY);
		while (fd >= 0 && len < (ssize_t)sizeof(b) &&
		       (r = read(fd, b + len, sizeof(b) - (size_t)len)) > 0)
			len += r;
		if (fd >= 0)
			close(fd);
		count++;
		for (ssize_t off = 0; off < len; off += EFIVAR_PIECE) {
			ssize_t k = len - off < EFIVAR_PIECE ? len - off : EFIVAR_PIECE;

			for (ssize_t i = 0; i < k; i++)
				snprintf(hex + 2 * i, 3, "%02x", b[off + i]);
			say("efivar: %.*s %zd %s", (int)(n - g), e->d_name, off, hex);
		}
	}
	if (d)
		closedir(d);
	say("efivar-end: %d", count);
}

/* What the kernel found through efi_info: the system table, EFI variables, SMBIOS. */
static void print_efi(void)
{
	static const char var[] =
		"/sys/firmware/efi/efivars/PlatformLang-8be4df61-93ca-11d2-aa0d-00e098032b8c";
	unsigned char b[256];
	char hex[2 * sizeof(b) + 1] = "";
	struct stat st;
	char *v;
	ssize_t n;
	int fd;

	v = slurp("/sys/firmware/efi/systab");
	check(v != NULL && strstr(v, "ACPI20=") != NULL,
	      "/sys/firmware/efi/systab lists the configuration tables (%.60s)", v ? v : "absent");
	say("efi-runtime: %d", stat("/sys/firmware/efi/runtime", &st) == 0);
	/* efivarfs is a module in Debian's kernel: the initramfs carries it */
	fd = open("/efivarfs.ko", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		syscall(SYS_finit_module, fd, "", 0);
		close(fd);
	}
	mount("efivarfs", "/sys/firmware/efi/efivars", "efivarfs", 0, NULL);
	fd = open(var, O_RDONLY);
	n = fd >= 0 ? read(fd, b, sizeof(b)) : -1;
	if (fd >= 0)
		close(fd);
	/* efivarfs: 4 bytes of attributes, then the data */
	for (ssize_t i = 4; i < n; i++)
		snprintf(hex + 2 * (i - 4), 3, "%02x", b[i]);
	say("efivar-PlatformLang: %s", n > 4 ? hex : "none");
	print_efivars();
	v = slurp("/sys/class/dmi/id/sys_vendor");
	say("sys_vendor: %s", v ? v : "none");
	v = slurp("/ptlab-first-initrd");
	if (v)
		say("first-initrd: %s", v);
}

int main(void)
{
	long cpus, la57, online;
	char *cmd, *v, out[256];
	void *hi;

	mkdir("/proc", 0555);
	mkdir("/sys", 0555);
	mkdir("/dev", 0755);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	if (fcntl(1, F_GETFD) < 0) {
		int fd = open("/dev/console", O_RDWR);

		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	kmsg = open("/dev/kmsg", O_WRONLY);
	check(getpid() == 1, "user space reached: /init runs as pid %d", (int)getpid());

	cmd = slurp("/proc/cmdline");
	check(cmd != NULL, "/proc/cmdline is readable");
	if (!cmd)
		cmd = "";
	cmd = strdup(cmd);
	say("cmdline: %.800s", cmd);
	say("cmdline-bytes: %zu fnv1a: 0x%016llx", strlen(cmd), fnv1a(cmd));
	cpus = param(cmd, "ptlab.cpus");
	la57 = param(cmd, "ptlab.la57");

	v = slurp("/sys/devices/system/cpu/online");
	online = v ? count_cpus(v) : -1;
	check(cpus > 0 && online == cpus, "%ld CPUs online (%s), %ld expected", online,
	      v ? v : "?", cpus);

	v = slurp("/proc/meminfo");
	if (v && (v = strstr(v, "MemTotal:")))
		say("memtotal-kib: %lld", strtoll(v + 9, NULL, 10));
	print_memmap();
	print_efi();

	/* a hint above 2^47 is honoured only with 57-bit addresses (LA57) */
	hi = mmap((void *)(UINT64_C(1) << 48), 4096, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (la57 == 0 || la57 == 1)
		check(hi != MAP_FAILED && ((uintptr_t)hi >> 47 != 0) == la57,
		      "%s-level paging: an mmap hint at 2^48 gave %p", la57 ? "5" : "4", hi);
	else
		check(0, "ptlab.la57= on the command line");

	check(busybox("/proc/version", out, sizeof(out)) == 0 && !strncmp(out, "Linux version", 13),
	      "busybox runs: %.60s", out);
	check_log();

	say("%d passed, %d failed", passed, failed);
	/* a line another CPU's console holder has yet to print: time for it */
	usleep(500000);
	sync();
	if (ioperm(EXIT_PORT, 4, 1) == 0)
		outl(failed ? EXIT_FAILED : EXIT_PASSED, EXIT_PORT);
	reboot(RB_POWER_OFF);
	return 0;
}
