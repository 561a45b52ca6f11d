/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench's `alloc` table: the slab allocations each hot-path operation makes (SLUB statistics;
 * CONFIG_SLUB_STATS). Part of bench.c (after bench_access.h), in a file of its own for size.
 */
#ifndef SKL_SELFTESTS_BENCH_ALLOC_H
#define SKL_SELFTESTS_BENCH_ALLOC_H

/* One number from a SLUB statistics file ("TOTAL C0=.. C1=.."), or -1. */
static long slub_stat(const char *cache, const char *stat)
{
	char path[512];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/%s", cache, stat);
	f = fopen(path, "r");
	if (f && fscanf(f, "%ld", &v) != 1)
		v = -1;
	if (f)
		fclose(f);
	return v;
}

/*
 * Allocations from every slab cache since boot, all CPUs (CONFIG_SLUB_STATS), or -1 without
 * the statistics. Merged caches appear once as a directory and again as symlinks: only the
 * directories count. Reading the files allocates too: see alloc_table() for how that is
 * taken off.
 */
static long slab_allocs(void)
{
	DIR *d = opendir("/sys/kernel/slab");
	struct dirent *e;
	long total = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		long fast, slow;

		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		fast = slub_stat(e->d_name, "alloc_fastpath");
		slow = slub_stat(e->d_name, "alloc_slowpath");
		if (fast < 0 || slow < 0) {
			total = -1;
			break;
		}
		total += fast + slow;
	}
	closedir(d);
	return total;
}

/* Slab allocations while `op` runs n times. */
#define ALLOCS(n, op) MIN_DELTA(3, slab_allocs(), , for (long i_ = 0; i_ < (n); i_++) op, )

static void alloc_table(long n)
{
	static const struct {
		const char *pmu;
		uint64_t config, other;
	} evs[] = {
		{ "uncore_cbox_0", 0x8f34, 0x1f34 },
		{ "uncore_arb", 0x181, 0x180 },
		{ "uncore_clock", 0xff, 0xff },
		{ "uncore_imc", 1, 2 },
	};
	int sw = open_ev(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 1, 0);
	uint64_t v;
	long base;

	if (slab_allocs() < 0) {
		printf("| (no CONFIG_SLUB_STATS in this kernel: no figures) |\n");
		return;
	}
	/*
	 * A difference of two sums also counts what reading the statistics allocates between
	 * each cache's two readings (one full pass over the files): measured with nothing in
	 * between, and taken off every figure below.
	 */
	base = ALLOCS(1, (void)0);
	printf("Allocations by the counting itself, taken off every figure: %ld\n\n", base);
	printf("| operation, %ld times | event | slab allocations | same on cpu-clock (control) |\n",
	       n);
	printf("|---|---|---|---|\n");
	for (unsigned int i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		int t = pmu_type(evs[i].pmu);
		/* One more event on the PMU, so every enable reschedules an event already there. */
		int other = open_ev(t, evs[i].other, 0, 0), fd = open_ev(t, evs[i].config, 1, 0);
		long ours, ctl;

		pin(0);
		ours = ALLOCS(n, (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0),
				  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0)));
		ctl = ALLOCS(n, (ioctl(sw, PERF_EVENT_IOC_ENABLE, 0),
				 ioctl(sw, PERF_EVENT_IOC_DISABLE, 0)));
		printf("| enable + disable (add, start, stop, del, pmu_enable) | %s | %ld | %ld |\n",
		       evs[i].pmu, ours - base, ctl - base);
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		ioctl(sw, PERF_EVENT_IOC_ENABLE, 0);
		for (int cpu = 0; cpu < 2; cpu++) {
			pin(cpu);
			ours = ALLOCS(n, (void)!read(fd, &v, sizeof(v)));
			ctl = ALLOCS(n, (void)!read(sw, &v, sizeof(v)));
			printf("| read(2) from CPU %d | %s | %ld | %ld |\n", cpu, evs[i].pmu, ours - base,
			       ctl - base);
		}
		ioctl(sw, PERF_EVENT_IOC_DISABLE, 0);
		close(fd);
		close(other);
	}
	close(sw);
	/* The IMC poll timer (every 1.342 s) runs three times in 4 s; the control is 4 s idle. */
	int imc = open_ev(pmu_type("uncore_imc"), 1, 0, 0);
	long ours = ALLOCS(1, usleep(4000000));

	close(imc);
	printf("| 4 s with an IMC event open: 3 poll timer runs | uncore_imc | %ld | %ld (idle) |\n",
	       ours - base, ALLOCS(1, usleep(4000000)) - base);
}

#endif
