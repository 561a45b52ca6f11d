// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz: random perf_event_open calls aimed at the uncore PMUs.
 *
 *   fuzz SEED OPENS
 *
 * Attributes are random over our PMU types (read from sysfs), the software PMU and unknown
 * types: every config bit, config1/config2, sampling period and frequency, exclude_*, inherit,
 * pinned, exclusive, read_format, CPUs -1..nr_cpus, pid -1 or self, groups mixing our PMUs and
 * software events. Accepted events are enabled, read, reset and disabled at random while up
 * to 16 stay open. Every fd is closed at the end.
 *
 * For our PMUs the only acceptable errors are the ones the driver documents (EINVAL, ENOENT,
 * ENODEV) and those perf's core gives for unsupported features (EOPNOTSUPP, EBUSY). Any other
 * errno for our PMUs is reported; the exit status is the number of such surprises (max 100).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_OPEN 16

static uint64_t state;

static uint64_t rnd(void)
{
	/* xorshift64*: reproducible from the seed. */
	state ^= state >> 12;
	state ^= state << 25;
	state ^= state >> 27;
	return state * 0x2545F4914F6CDD1DULL;
}

static int chance(int percent)
{
	return (int)(rnd() % 100) < percent;
}

static int our_types[32], nr_ours;

static void find_types(void)
{
	DIR *d = opendir("/sys/bus/event_source/devices");
	struct dirent *e;

	while (d && (e = readdir(d)) && nr_ours < 32) {
		char path[300];
		FILE *f;

		if (strncmp(e->d_name, "uncore_", 7))
			continue;
		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", e->d_name);
		f = fopen(path, "r");
		if (f && fscanf(f, "%d", &our_types[nr_ours]) == 1)
			nr_ours++;
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
}

static int is_ours(uint32_t type)
{
	for (int i = 0; i < nr_ours; i++)
		if ((uint32_t)our_types[i] == type)
			return 1;
	return 0;
}

static uint64_t random_config(void)
{
	switch (rnd() % 6) {
	case 0:
		return rnd(); /* every bit */
	case 1:
		return 0xff; /* clockticks */
	case 2:
		return 1 + rnd() % 6; /* IMC codes and just outside */
	case 3:
		return 0x400000 | (rnd() & 0xffff); /* Intel PCM style */
	case 4: /* what the format fields allow */
		return rnd() & 0x1F84FFFF;
	default:
		return (rnd() & 0xffff) | (1ULL << (rnd() % 64));
	}
}

int main(int argc, char **argv)
{
	long opens = argc > 2 ? atol(argv[2]) : 1000, ok = 0, surprises = 0;
	long errs[256] = { 0 };
	int fds[MAX_OPEN], nfd = 0, ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);

	state = (argc > 1 ? strtoull(argv[1], NULL, 0) : 0) * 2 + 1;
	find_types();
	if (!nr_ours) {
		fprintf(stderr, "fuzz: no uncore PMU registered\n");
		return 100;
	}
	for (long i = 0; i < opens; i++) {
		struct perf_event_attr a;
		int cpu, pid, group = -1, fd;

		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		if (chance(80))
			a.type = our_types[rnd() % nr_ours];
		else if (chance(50))
			a.type = PERF_TYPE_SOFTWARE, a.config = rnd() % 12;
		else
			a.type = 6 + rnd() % 64; /* no such PMU (or a dynamic one of someone else) */
		if (a.type != PERF_TYPE_SOFTWARE)
			a.config = random_config();
		if (chance(10))
			a.config1 = rnd();
		if (chance(10))
			a.config2 = rnd();
		if (chance(10))
			a.sample_period = rnd() % 100000;
		if (chance(5))
			a.freq = 1, a.sample_freq = rnd() % 1000;
		a.read_format = rnd() & 0xf;
		a.disabled = chance(30);
		a.inherit = chance(10);
		a.pinned = chance(10);
		a.exclusive = chance(5);
		a.exclude_user = chance(5);
		a.exclude_kernel = chance(5);
		a.exclude_hv = chance(5);
		a.exclude_idle = chance(5);
		cpu = (int)(rnd() % (ncpu + 2)) - 1; /* -1 .. ncpu */
		pid = chance(80) ? -1 : 0;
		if (pid == -1 && cpu == -1)
			cpu = 0;
		if (nfd && chance(30))
			group = fds[rnd() % nfd];
		fd = syscall(SYS_perf_event_open, &a, pid, cpu, group, 0);
		if (fd < 0) {
			int e = errno;

			errs[e & 0xff]++;
			if (is_ours(a.type) && e != EINVAL && e != ENOENT && e != ENODEV &&
			    e != EOPNOTSUPP && e != EBUSY) {
				surprises++;
				printf("# surprise: type %u config %#llx cpu %d pid %d group %d: errno %d %s\n",
				       a.type, (unsigned long long)a.config, cpu, pid, group, e,
				       strerrorname_np(e));
			}
			continue;
		}
		ok++;
		for (int op = rnd() % 4; op > 0; op--) {
			uint64_t buf[16];

			switch (rnd() % 4) {
			case 0:
				ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
				break;
			case 1:
				ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
				break;
			case 2:
				ioctl(fd, PERF_EVENT_IOC_RESET, 0);
				break;
			default:
				/* A failed read is no surprise: the event may be in error state. */
				(void)!read(fd, buf, sizeof(buf));
			}
		}
		if (nfd == MAX_OPEN) {
			int victim = rnd() % MAX_OPEN;

			close(fds[victim]);
			fds[victim] = fd;
		} else {
			fds[nfd++] = fd;
		}
	}
	for (int i = 0; i < nfd; i++)
		close(fds[i]);
	printf("# opens %ld accepted %ld", opens, ok);
	for (int e = 1; e < 256; e++)
		if (errs[e])
			printf(" %s %ld", strerrorname_np(e), errs[e]);
	printf(" surprises %ld\n", surprises);
	return surprises > 100 ? 100 : (int)surprises;
}
