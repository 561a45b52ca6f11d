// SPDX-License-Identifier: GPL-2.0
/*
 * perf_open: opens perf events exactly as described and reports what the kernel said, so the
 * selftests can assert errnos and exact counts without perf's own fix-ups.
 *
 *   perf_open [-g] [-r CMD] EVENT...
 *
 * EVENT is PMU/CONFIG[/KEY=VAL,...]: PMU a name under /sys/bus/event_source/devices or a
 * number, CONFIG a number; keys: config1, config2, period, freq, cpu, pid, inherit,
 * exclude_user, exclude_kernel, exclude_hv, exclude_idle, disabled.
 * -g opens the events as one group (the first is the leader). If the leader does not open,
 *   the others are not opened at all ("skipped"): alone, they would not be a group.
 * -r CMD enables the events, runs `sh -c CMD`, disables them and prints each count as
 *   "count N enabled E running R".
 * -R N with -r: meanwhile N processes, pinned to CPUs 0, 1, ..., read every event in a loop
 *   (reads from CPUs other than the collector, racing the poll timer).
 * Prints one line per event ("ok" or "errno N NAME") and exits with the first errno (0 if
 * every open succeeded); exits 3 if a reader cannot be forked.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <unistd.h>

static long type_of(const char *pmu)
{
	char path[256], *end;
	long t = strtol(pmu, &end, 0);
	FILE *f;

	if (*pmu && !*end)
		return t;
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", pmu);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%ld", &t) != 1) {
		fprintf(stderr, "perf_open: no PMU %s\n", pmu);
		exit(2);
	}
	fclose(f);
	return t;
}

static void parse(char *spec, struct perf_event_attr *a, int *cpu, int *pid)
{
	char *pmu = strtok(spec, "/"), *cfg = strtok(NULL, "/"), *opts = strtok(NULL, "/");
	char *kv;

	if (!pmu || !cfg) {
		fprintf(stderr, "perf_open: bad event '%s'\n", spec);
		exit(2);
	}
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = type_of(pmu);
	a->config = strtoull(cfg, NULL, 0);
	*cpu = 0;
	*pid = -1;
	for (kv = opts ? strtok(opts, ",") : NULL; kv; kv = strtok(NULL, ",")) {
		char *eq = strchr(kv, '=');
		unsigned long long v = eq ? strtoull(eq + 1, NULL, 0) : 1;

		if (eq)
			*eq = 0;
		if (!strcmp(kv, "config1"))
			a->config1 = v;
		else if (!strcmp(kv, "config2"))
			a->config2 = v;
		else if (!strcmp(kv, "period"))
			a->sample_period = v;
		else if (!strcmp(kv, "freq"))
			a->freq = 1, a->sample_freq = v;
		else if (!strcmp(kv, "cpu"))
			*cpu = (int)strtol(eq + 1, NULL, 0);
		else if (!strcmp(kv, "pid"))
			*pid = (int)strtol(eq + 1, NULL, 0);
		else if (!strcmp(kv, "inherit"))
			a->inherit = v;
		else if (!strcmp(kv, "exclude_user"))
			a->exclude_user = v;
		else if (!strcmp(kv, "exclude_kernel"))
			a->exclude_kernel = v;
		else if (!strcmp(kv, "exclude_hv"))
			a->exclude_hv = v;
		else if (!strcmp(kv, "exclude_idle"))
			a->exclude_idle = v;
		else if (!strcmp(kv, "disabled"))
			a->disabled = v;
		else {
			fprintf(stderr, "perf_open: unknown key %s\n", kv);
			exit(2);
		}
	}
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
}

int main(int argc, char **argv)
{
	int group = 0, first_err = 0, i, n = 0, fds[64], readers = 0;
	pid_t kids[64];
	const char *cmd = NULL;
	int opt;

	while ((opt = getopt(argc, argv, "gr:R:")) != -1) {
		if (opt == 'g')
			group = 1;
		else if (opt == 'r')
			cmd = optarg;
		else if (opt == 'R')
			readers = atoi(optarg) > 64 ? 64 : atoi(optarg);
		else
			return 2;
	}
	for (i = optind; i < argc && n < 64; i++) {
		struct perf_event_attr a;
		int cpu, pid, fd;
		char *spec = strdup(argv[i]);

		if (group && i > optind && !n) {
			/* The leader failed: a member opened with group_fd -1 would be a leader. */
			printf("%s: skipped (no group leader)\n", argv[i]);
			continue;
		}
		parse(spec, &a, &cpu, &pid);
		if (cmd)
			a.disabled = 1;
		fd = syscall(SYS_perf_event_open, &a, pid, cpu, group && n ? fds[0] : -1, 0);
		if (fd < 0) {
			printf("%s: errno %d %s\n", argv[i], errno, strerrorname_np(errno));
			if (!first_err)
				first_err = errno;
			continue;
		}
		printf("%s: ok\n", argv[i]);
		fds[n++] = fd;
	}
	if (cmd && n) {
		int rc;

		for (i = 0; i < n; i++)
			ioctl(fds[i], PERF_EVENT_IOC_ENABLE, 0);
		for (i = 0; i < readers; i++) {
			kids[i] = fork();
			if (kids[i] < 0) {
				/*
				 * Never keep -1 in kids[]: kill(-1, SIGKILL) below would kill every
				 * process we may signal. Stop the readers already started and fail.
				 */
				perror("perf_open: fork");
				while (i--) {
					kill(kids[i], SIGKILL);
					waitpid(kids[i], NULL, 0);
				}
				return 3;
			}
			if (kids[i] == 0) {
				cpu_set_t set;
				uint64_t v[3];

				CPU_ZERO(&set);
				CPU_SET(i % sysconf(_SC_NPROCESSORS_ONLN), &set);
				sched_setaffinity(0, sizeof(set), &set);
				for (;;)
					for (int j = 0; j < n; j++)
						(void)!read(fds[j], v, sizeof(v));
			}
		}
		rc = system(cmd);
		for (i = 0; i < readers; i++) {
			kill(kids[i], SIGKILL);
			waitpid(kids[i], NULL, 0);
		}
		for (i = 0; i < n; i++)
			ioctl(fds[i], PERF_EVENT_IOC_DISABLE, 0);
		if (rc)
			fprintf(stderr, "perf_open: command exited %d\n", rc);
		for (i = 0; i < n; i++) {
			uint64_t v[3] = { 0 };

			if (read(fds[i], v, sizeof(v)) != sizeof(v))
				printf("read failed: errno %d\n", errno);
			else
				printf("count %llu enabled %llu running %llu\n", (unsigned long long)v[0],
				       (unsigned long long)v[1], (unsigned long long)v[2]);
		}
	}
	for (i = 0; i < n; i++)
		close(fds[i]);
	return first_err;
}
