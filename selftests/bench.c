// SPDX-License-Identifier: GPL-2.0
/*
 * bench: the cost of perf operations on the uncore PMUs, measured in the simulator's register
 * access counts, beside what Linux's C driver costs (formulas from
 * shared/reference/linux-c-driver.md section 11), and read latency beside a software event.
 *
 *   bench access      hardware accesses per operation, k = 0, 1, 3 events already on the PMU
 *   bench access-silicon
 *                     the same on the emulated silicon, counted by its own access counts
 *                     (skl-silicon stats), for whichever driver is loaded: ours or Linux's
 *   bench latency     ns per read(2) from the collector and from another CPU
 *   bench load KO     module load time (finit_module), fastest of 5, and the simulator's own
 *                     steps (its load_us line), each the fastest of the 5 loads
 *   bench mux         accesses per multiplexing rotation (3 CBo events on 2 counters)
 *   bench migrate     accesses to move events when the collector of package 1 (CPU 2) goes
 *                     offline (needs two packages)
 *   bench alloc N     slab allocations made while repeating each hot-path operation N times
 *                     (needs CONFIG_SLUB_STATS: the KASAN test kernel has it)
 *   bench wakeups S PATTERN [PMU/CONFIG]...
 *                     opens the events on CPU 0, then for S seconds samples /proc/timer_list
 *                     every 10 ms: each new expiry of an hrtimer whose function's name holds
 *                     PATTERN is one run; prints runs per second per package (the driver's
 *                     timer wakeups, whichever driver it is: the same measure for both)
 *
 * Needs skl_uncore_sim.ko loaded (except `load` and `access-silicon`).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "silicon_bd.h"

static const char *regs = "/sys/kernel/debug/skl_uncore_sim/regs";

/* Count the emulated silicon's accesses instead of the simulator's. */
static int on_silicon;

/*
 * Reads and writes of MSRs and MMIO the emulated silicon counted (host bridge configuration
 * reads are discovery, not ops), read through its backdoor from this process (the stats-next
 * command, as `skl-silicon stats`): a helper process spawned for each reading would widen the
 * window a figure is taken over by milliseconds, and perf's multiplex rotations land in it.
 */
static long silicon_accesses(void)
{
	long total = 0;
	uint64_t from = 0;

	if (bd_fd < 0)
		bd_fd = open("/dev/cpu/0/msr", O_RDWR);
	if (bd_fd < 0) {
		perror("bench: /dev/cpu/0/msr");
		exit(2);
	}
	for (;;) {
		uint64_t kind;

		set_arg(0, from);
		command(4);
		kind = get_arg(1);
		/* 1 MSR, 2 MCHBAR offset, 3 configuration offset; 0 the end. */
		if (kind < 1 || kind > 3)
			return total;
		if (kind != 3)
			total += get_arg(3) + get_arg(4);
		from = get_arg(0);
	}
}

/* Sum of every package's "accesses rdmsr R wrmsr W mmio M pci P faults F" line. */
static long accesses(void)
{
	char line[512];
	long total = 0, r, w, m, p, f;
	FILE *fp;

	if (on_silicon)
		return silicon_accesses();
	fp = fopen(regs, "r");

	while (fp && fgets(line, sizeof(line), fp))
		if (sscanf(line, "accesses rdmsr %ld wrmsr %ld mmio %ld pci %ld faults %ld", &r, &w, &m,
			   &p, &f) == 5)
			total += r + w + m;
	if (fp)
		fclose(fp);
	return total;
}

/* The PMU's type, or -1 if no such PMU is registered. */
static int pmu_type_or_none(const char *pmu)
{
	char path[256];
	int t = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", pmu);
	f = fopen(path, "r");
	if (f && fscanf(f, "%d", &t) != 1)
		t = -1;
	if (f)
		fclose(f);
	return t;
}

static int pmu_type(const char *pmu)
{
	int t = pmu_type_or_none(pmu);

	if (t < 0)
		exit(2);
	return t;
}

static int open_ev(int type, uint64_t config, int disabled, int cpu)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.disabled = disabled;
	return syscall(SYS_perf_event_open, &a, -1, cpu, -1, 0);
}

#include "bench_access.h"

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* CLOCK_MONOTONIC in ns (a double holds it to well under a ns for years of uptime). */
static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static double ns_per_read(int fd, int cpu, int n)
{
	uint64_t v;
	double t0;

	pin(cpu);
	for (int i = 0; i < 1000; i++)
		(void)!read(fd, &v, sizeof(v));
	t0 = now_ns();
	for (int i = 0; i < n; i++)
		(void)!read(fd, &v, sizeof(v));
	return (now_ns() - t0) / n;
}

/* Function-call IPIs delivered so far, all CPUs (/proc/interrupts "CAL:"). */
static long call_ipis(void)
{
	char line[1024];
	long total = -1;
	FILE *f = fopen("/proc/interrupts", "r");

	while (f && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "CAL:"), *end;

		if (!p)
			continue;
		total = 0;
		for (p += 4;; p = end) {
			long v = strtol(p, &end, 10);

			if (end == p)
				break;
			total += v;
		}
	}
	if (f)
		fclose(f);
	return total;
}

/* IPIs while CPU `cpu` reads `fd` n times. */
static long ipis_per_reads(int fd, int cpu, int n)
{
	uint64_t v;
	long i0;

	pin(cpu);
	i0 = call_ipis();
	for (int i = 0; i < n; i++)
		(void)!read(fd, &v, sizeof(v));
	return call_ipis() - i0;
}

static void latency(void)
{
	int n = 5000, ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	int unc = open_ev(pmu_type("uncore_cbox_0"), 0x8f34, 0, 0);

	printf("| read(2) of | from CPU | ns per read | vs cpu-clock on that CPU |\n");
	printf("|---|---|---|---|\n");
	for (int cpu = 0; cpu < ncpu && cpu < 2; cpu++) {
		int sw = open_ev(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0, cpu);
		double u = 1e12, s = 1e12;

		/* Interleaved, best of five: emulation noise hits both alike. */
		for (int i = 0; i < 5; i++) {
			double a = ns_per_read(unc, cpu, n), b = ns_per_read(sw, cpu, n);

			u = a < u ? a : u;
			s = b < s ? b : s;
		}

		printf("| uncore_cbox_0 (collector: CPU 0) | %d | %.0f | %.2fx |\n", cpu, u, u / s);
		printf("| cpu-clock | %d | %.0f | 1.00x |\n", cpu, s);
		close(sw);
	}
	/* A cpu-clock event bound to CPU 0 is read from CPU 1 by IPI: the contrast. */
	int sw0 = open_ev(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0, 0);

	printf("\n| %d reads from CPU 1 of | function-call IPIs |\n|---|---|\n", n);
	printf("| uncore_cbox_0 (collector: CPU 0) | %ld |\n", ipis_per_reads(unc, 1, n));
	printf("| cpu-clock bound to CPU 0 | %ld |\n", ipis_per_reads(sw0, 1, n));
	close(sw0);
	close(unc);
}

static void mux(void)
{
	const char *iv = "/sys/bus/event_source/devices/uncore_cbox_0/perf_event_mux_interval_ms";
	int t = pmu_type("uncore_cbox_0"), fds[3];
	long a0, d;

	write_file(iv, "100");
	for (int i = 0; i < 3; i++)
		fds[i] = open_ev(t, 0x8f34 + (i << 8), 0, 0);
	usleep(300000);
	a0 = accesses();
	sleep(2);
	d = accesses() - a0;
	for (int i = 0; i < 3; i++)
		close(fds[i]);
	write_file(iv, "4");
	/* 2 s at one rotation per 100 ms. Linux: both active events out, two in, + 0xE01. */
	printf("| cbox | 3 on 2 counters | multiplex rotation | %.1f | 9 | %.2f |\n", d / 20.0,
	       d / 20.0 / 9);
}

static void migrate(void)
{
	const char *online = "/sys/devices/system/cpu/cpu2/online";
	int fds[3] = { open_ev(pmu_type("uncore_cbox_0"), 0x8f34, 0, 2),
		       open_ev(pmu_type("uncore_clock"), 0xff, 0, 2),
		       open_ev(pmu_type("uncore_imc"), 1, 0, 2) };
	long a0 = accesses(), d;

	write_file(online, "0");
	d = accesses() - a0;
	write_file(online, "1");
	for (int i = 0; i < 3; i++)
		close(fds[i]);
	/* Linux: each MSR event costs a close (3) on the old CPU and an open (3, 7, ...) on the
	 * new one; the IMC event 1 + 1. */
	printf("| cbox + clock + imc | 1 each | collector migration | %ld | %d | %.2f |\n", d,
	       3 + 3 + 3 + 7 + 2, d / 18.0);
}

#include "bench_alloc.h"
#include "bench_wakeups.h"

#define LOAD_TRIES 5
#define LOAD_STEPS 8

/*
 * Loads KO LOAD_TRIES times (finit_module, the kernel's loader and the module's init; no
 * insmod process to time), unloading it after each, and prints the fastest load and, for each
 * of the module's own steps (the simulator's load_us line), its fastest: TCG and a busy host
 * only ever add time.
 */
static int load_times(const char *ko)
{
	char name[64], line[512], step[LOAD_STEPS][32];
	double best = -1, step_us[LOAD_STEPS];
	const char *base = strrchr(ko, '/') ? strrchr(ko, '/') + 1 : ko;
	int nsteps = 0;

	snprintf(name, sizeof(name), "%.*s", (int)strcspn(base, "."), base);
	for (int i = 0; i < LOAD_TRIES; i++) {
		int fd = open(ko, O_RDONLY | O_CLOEXEC);
		double t0, t;
		FILE *f;

		if (fd < 0) {
			perror(ko);
			return -1;
		}
		t0 = now_ns() / 1e6;
		if (syscall(SYS_finit_module, fd, "", 0)) {
			perror("finit_module");
			close(fd);
			return -1;
		}
		t = now_ns() / 1e6 - t0;
		close(fd);
		best = best < 0 || t < best ? t : best;
		f = fopen(regs, "r");
		while (f && fgets(line, sizeof(line), f)) {
			char *tok, *save;
			int k = 0;

			if (strncmp(line, "load_us ", 8))
				continue;
			strtok_r(line, " \n", &save);
			while (k < LOAD_STEPS && (tok = strtok_r(NULL, " \n", &save))) {
				char *us = strtok_r(NULL, " \n", &save);

				if (!us)
					break;
				snprintf(step[k], sizeof(step[k]), "%s", tok);
				if (i == 0 || atof(us) < step_us[k])
					step_us[k] = atof(us);
				k++;
			}
			nsteps = k;
		}
		if (f)
			fclose(f);
		if (syscall(SYS_delete_module, name, O_NONBLOCK)) {
			perror("delete_module");
			return -1;
		}
	}
	printf("| %s load time (ms, in the VM: finit_module, fastest of %d) | %.1f |\n", base,
	       LOAD_TRIES, best);
	printf("|---|---|\n");
	for (int k = 0; k < nsteps; k++)
		printf("| of which %s (ms, fastest) | %.1f |\n", step[k], step_us[k] / 1000);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 3 && !strcmp(argv[1], "wakeups")) {
		wakeups(atof(argv[2]), argv[3], argc - 4, argv + 4);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "mux")) {
		mux();
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "migrate")) {
		migrate();
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "alloc")) {
		alloc_table(atol(argv[2]));
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "access"))
		access_table();
	else if (argc > 1 && !strcmp(argv[1], "access-silicon")) {
		on_silicon = 1;
		access_table();
	}
	else if (argc > 1 && !strcmp(argv[1], "latency"))
		latency();
	else if (argc > 2 && !strcmp(argv[1], "load")) {
		return load_times(argv[2]) ? 1 : 0;
	} else {
		fprintf(stderr, "usage: bench access | access-silicon | latency | mux | migrate | "
				"alloc N | load KO | wakeups S PATTERN [PMU/CONFIG]...\n");
		return 2;
	}
	return 0;
}
