/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench's `access` and `access-silicon` tables: the register accesses of each perf operation,
 * best of five, beside Linux's (linux_cost), the over-committed ARB measured with and without
 * perf's rotation in the window. Part of bench.c (after accesses() and open_ev()), in a file of
 * its own for size.
 */
#ifndef SKL_SELFTESTS_BENCH_ACCESS_H
#define SKL_SELFTESTS_BENCH_ACCESS_H

struct unit {
	const char *name, *pmu;
	uint64_t probe, bg[3];
	int imc;
};

/* Linux's cost for an MSR PMU (k events already active) or the IMC. */
static long linux_cost(const char *op, int k, int imc)
{
	/* Two events out (stop, read), two in (read, start), the global enable: 2 counters. */
	if (!strcmp(op, "multiplex rotation"))
		return 9;
	if (!strcmp(op, "open"))
		return imc ? 2 * k + 1 : 4 * k + 3;
	if (!strcmp(op, "open disabled"))
		return imc ? 2 * k : 4 * k + 1;
	if (!strcmp(op, "enable"))
		return imc ? 2 * k + 1 : 4 * k + 3;
	if (!strcmp(op, "read"))
		return 1;
	return imc ? 1 : 3; /* disable, close */
}

/*
 * The smallest change of `counter` across `op`, over `tries` runs of setup, op, teardown: a
 * poll timer or a kernel thread that happens to run meanwhile is not the operation's cost.
 */
#define MIN_DELTA(tries, counter, setup, op, teardown)      \
	({                                                  \
		long best_ = 1L << 40;                      \
		for (int try_ = 0; try_ < (tries); try_++) { \
			setup;                              \
			long c0_ = (counter);               \
			op;                                 \
			long d_ = (counter) - c0_;          \
			teardown;                           \
			best_ = d_ < best_ ? d_ : best_;    \
		}                                           \
		best_;                                      \
	})

/* Register accesses of one operation. */
#define BEST(setup, op, teardown) MIN_DELTA(5, accesses(), setup, op, teardown)

/* One row: `op` (with `how` after its name) of unit `unit` with k events there. */
static void row(const char *unit, int k, const char *op, const char *how, long ours, int imc,
		const char *note)
{
	long lin = linux_cost(op, k, imc);

	printf("| %s | %d | %s%s | %ld | %ld | %.2f |%s\n", unit, k, op, how, ours, lin,
	       lin ? (double)ours / lin : 0.0, note);
}

/* The six operations on u's probe event, k events (bg, k of them) already there. */
static void op_rows(const struct unit *u, int t, int k, const char *how, const char *note)
{
	int fd;
	uint64_t v;

	row(u->name, k, "open", how, BEST(, fd = open_ev(t, u->probe, 0, 0), close(fd)), u->imc,
	    note);
	row(u->name, k, "open disabled", how, BEST(, fd = open_ev(t, u->probe, 1, 0), close(fd)),
	    u->imc, note);
	fd = open_ev(t, u->probe, 1, 0);
	row(u->name, k, "enable", how,
	    BEST(, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), ioctl(fd, PERF_EVENT_IOC_DISABLE, 0)),
	    u->imc, note);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	row(u->name, k, "read", how, BEST(, (void)!read(fd, &v, sizeof(v)), ), u->imc, note);
	row(u->name, k, "disable", how,
	    BEST(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), ),
	    u->imc, note);
	close(fd);
	row(u->name, k, "close", how, BEST(fd = open_ev(t, u->probe, 0, 0), close(fd), ), u->imc,
	    note);
}

static void write_file(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(val, f);
		fclose(f);
	}
}

/* Puts PMU `pmu`'s perf_event_mux_interval_ms at `ms` (NULL: only reads it); its value before
 * (4 if unreadable) into old[32]. */
static void mux_interval(const char *pmu, const char *ms, char *old)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/perf_event_mux_interval_ms",
		 pmu);
	f = fopen(path, "r");
	if (!f || !fgets(old, 32, f))
		snprintf(old, 32, "4");
	if (f)
		fclose(f);
	old[strcspn(old, "\n")] = 0;
	if (ms)
		write_file(path, ms);
}

/* Register accesses per multiplex rotation of an over-committed PMU: perf rotating every
 * 100 ms for 2 s. */
static double rotation_cost(const char *pmu)
{
	char old[32], was[32];
	long a0;

	mux_interval(pmu, "100", old);
	/* The rotation armed with the old interval runs once more, then every 100 ms. */
	usleep(300000);
	a0 = accesses();
	sleep(2);
	a0 = accesses() - a0;
	mux_interval(pmu, old, was);
	return a0 / 20.0;
}

/*
 * The over-committed rows (3 events on the ARB's 2 counters, then the probe). Perf rotates
 * such a PMU every perf_event_mux_interval_ms (4 ms here), so a rotation lands in the window
 * a figure is taken over at random, and adds its cost to the operation's: measured as perf
 * runs it, with the cost of one rotation beside them, then with perf's rotation held off
 * (interval 60 s): the operation's own cost. Last, because a new interval takes effect only
 * when the timer armed with the old one expires: the PMU rotates again within 60 s.
 */
static void over_committed_rows(const struct unit *u, int t, int k)
{
	char old[32], was[32], how[64];

	mux_interval(u->pmu, NULL, old);
	snprintf(how, sizeof(how), ", perf rotating every %s ms", old);
	op_rows(u, t, k, how, " the rotations that land in the window included");
	row(u->name, k, "multiplex rotation", "", (long)(rotation_cost(u->pmu) + 0.5), 0,
	    " 2 events out, 2 in; 20 rotations in 2 s, averaged");
	mux_interval(u->pmu, "60000", was);
	/* The rotation armed with the old interval runs once more, then none for 60 s. */
	usleep(200000);
	op_rows(u, t, k, "", " 3 events on 2 counters: over-committed; perf's rotation held off");
	mux_interval(u->pmu, old, was);
}

static void access_table(void)
{
	static const struct unit units[] = {
		{ "cbox", "uncore_cbox_0", 0x8f34, { 0x1f34, 0xff, 0xff }, 0 },
		{ "arb", "uncore_arb", 0x181, { 0x180, 0x281, 0x184 }, 0 },
		{ "clock", "uncore_clock", 0xff, { 0xff, 0xff, 0xff }, 0 },
		{ "imc", "uncore_imc", 1, { 2, 3, 4 }, 1 },
	};
	static const int ks[] = { 0, 1, 3 };

	printf("| unit | k | operation | accesses (ours) | Linux | ours/Linux |\n");
	printf("|---|---|---|---|---|---|\n");
	for (unsigned int ui = 0; ui < sizeof(units) / sizeof(units[0]); ui++) {
		const struct unit *u = &units[ui];
		int t = pmu_type_or_none(u->pmu);

		/* Linux's driver has no uncore_clock on this part. */
		if (t < 0) {
			printf("| %s | - | no %s PMU | - | - | - |\n", u->name, u->pmu);
			continue;
		}

		for (int ki = 0; ki < 3; ki++) {
			int k = ks[ki], bg[3];

			for (int i = 0; i < k; i++)
				bg[i] = open_ev(t, u->bg[i], 0, 0);
			if (!strcmp(u->name, "arb") && k == 3)
				over_committed_rows(u, t, k);
			else
				op_rows(u, t, k, "", "");
			for (int i = 0; i < k; i++)
				close(bg[i]);
		}
	}
}

#endif
