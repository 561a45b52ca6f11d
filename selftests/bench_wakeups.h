/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench's `wakeups`: a driver's hrtimer runs per second per package, from /proc/timer_list.
 * Part of bench.c (after open_ev() and now_ns()), in a file of its own for size.
 */
#ifndef SKL_SELFTESTS_BENCH_WAKEUPS_H
#define SKL_SELFTESTS_BENCH_WAKEUPS_H

#define MAX_TIMERS 64

/* One driver hrtimer seen in /proc/timer_list: its address, CPU and last soft expiry. */
struct seen_timer {
	char addr[40];
	int cpu;
	long long soft;
	long runs;
};

static int package_of(int cpu)
{
	char path[96];
	FILE *f;
	int p = 0;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%d", &p) != 1)
			p = 0;
		fclose(f);
	}
	return p;
}

/* One pass over /proc/timer_list: updates `t` (n entries) with the timers matching `pat`. */
static int sample_timers(const char *pat, struct seen_timer *t, int n)
{
	char line[512], addr[40] = "";
	FILE *f = fopen("/proc/timer_list", "r");
	int cpu = -1, want = 0;

	if (!f)
		return n;
	while (fgets(line, sizeof(line), f)) {
		long long soft, hard;
		char *lt, *gt;

		if (sscanf(line, "cpu: %d", &cpu) == 1)
			continue;
		lt = strchr(line, '<');
		gt = lt ? strchr(lt, '>') : NULL;
		if (!strncmp(line, " #", 2) && lt && gt && gt - lt < (long)sizeof(addr)) {
			want = strstr(gt, pat) != NULL;
			memcpy(addr, lt + 1, gt - lt - 1);
			addr[gt - lt - 1] = 0;
			continue;
		}
		if (want && sscanf(line, " # expires at %lld-%lld", &soft, &hard) == 2) {
			int i;

			want = 0;
			for (i = 0; i < n; i++)
				if (!strcmp(t[i].addr, addr))
					break;
			if (i == n) {
				if (n == MAX_TIMERS)
					continue;
				snprintf(t[n].addr, sizeof(t[n].addr), "%s", addr);
				t[n].cpu = cpu;
				t[n].soft = soft;
				t[n].runs = 0;
				n++;
			} else if (t[i].soft != soft) {
				t[i].soft = soft;
				t[i].cpu = cpu;
				t[i].runs++;
			}
		}
	}
	fclose(f);
	return n;
}

/* `bench wakeups`: see the header. */
static void wakeups(double secs, const char *pat, int nev, char **evs)
{
	struct seen_timer t[MAX_TIMERS];
	long runs[8] = { 0 };
	int i, n = 0, fds[16], npkg = 1;
	double t0;

	for (i = 0; i < nev && i < 16; i++) {
		char pmu[64];
		unsigned long long config;

		if (sscanf(evs[i], "%63[^/]/%lli", pmu, &config) != 2) {
			fprintf(stderr, "bench: bad event %s\n", evs[i]);
			exit(2);
		}
		fds[i] = open_ev(pmu_type(pmu), config, 0, 0);
		if (fds[i] < 0) {
			perror(evs[i]);
			exit(1);
		}
	}
	/* The first sample records where each timer stands; each later change is one run. */
	n = sample_timers(pat, t, n);
	t0 = now_ns();
	do {
		usleep(10000);
		n = sample_timers(pat, t, n);
	} while (now_ns() - t0 < secs * 1e9);
	for (i = 0; i < n; i++) {
		int p = package_of(t[i].cpu) & 7;

		runs[p] += t[i].runs;
		if (p + 1 > npkg)
			npkg = p + 1;
	}
	for (i = 0; i < npkg; i++)
		printf("%spackage %d %.3f", i ? ", " : "", i, runs[i] / secs);
	printf("\n");
	for (i = 0; i < nev && i < 16; i++)
		close(fds[i]);
}

#endif
