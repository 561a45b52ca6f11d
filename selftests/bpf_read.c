// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_read: a BPF program reads perf events with bpf_perf_event_read_value() on the CPUs
 * named, as a BPF tool does, while a command runs; then prints what each event counted.
 * No libbpf: raw bpf(2) calls and a program assembled here from <linux/bpf.h>'s encodings.
 *
 *   bpf_read -c CPUS [-n PASSES] [-r CMD] PMU/CONFIG...
 *
 * Opens each event (disabled, inherit 0, on the first CPU of the PMU's cpumask, as perf does
 * for an uncore PMU), stores the fds in a BPF_MAP_TYPE_PERF_EVENT_ARRAY, loads a
 * BPF_PROG_TYPE_RAW_TRACEPOINT program that calls bpf_perf_event_read_value() on every slot
 * of the map, PASSES times over (default 1), and returns how many calls succeeded, and
 * enables the events. Then one reader
 * per CPU of CPUS (comma-separated), pinned there, runs the program in a loop with
 * BPF_PROG_TEST_RUN and BPF_F_TEST_RUN_ON_CPU (so the program runs on that CPU, whatever the
 * scheduler does), `sh -c CMD` runs (default "sleep 1"), the readers stop, the events are
 * disabled and read with read(2). Prints
 *   reader cpu C runs N reads R failed F errors E errno X
 *   count N enabled E running R          one line per event, in order
 * (reads: calls of the helper that succeeded, failed: that returned an error; errors:
 * BPF_PROG_TEST_RUN calls that failed, X the errno of the last). Exits 0; 4 after one line "bpf_read: no bpf(2) in this kernel" when bpf(2) is
 * ENOSYS; 1 on any other failure (with the errno), 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_EVENTS 16
#define MAX_CALLS 256
#define MAX_READERS 64

/* What one reader did; written by the reader alone, read by the parent after it stopped. */
struct reader_stats {
	uint64_t runs, reads, failed, errors, last_errno;
};

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

static void die(const char *what)
{
	fprintf(stderr, "bpf_read: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* The first CPU of /sys/bus/event_source/devices/PMU/cpumask: where perf opens an uncore event. */
static int pmu_cpu(const char *pmu, uint32_t *type)
{
	char path[256];
	unsigned int t;
	int cpu;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", pmu);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%u", &t) != 1)
		die(path);
	fclose(f);
	*type = t;
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/cpumask", pmu);
	f = fopen(path, "r");
	/* A PMU without a cpumask (a core one: software, msr) counts on any CPU: CPU 0. */
	if (!f)
		return 0;
	if (fscanf(f, "%d", &cpu) != 1)
		die(path);
	fclose(f);
	return cpu;
}

static int open_event(const char *spec)
{
	char pmu[128], *end;
	const char *slash = strchr(spec, '/');
	struct perf_event_attr a;
	uint32_t type;
	int cpu, fd;

	if (!slash || (size_t)(slash - spec) >= sizeof(pmu)) {
		fprintf(stderr, "bpf_read: bad event '%s' (PMU/CONFIG)\n", spec);
		exit(2);
	}
	memcpy(pmu, spec, slash - spec);
	pmu[slash - spec] = 0;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	cpu = pmu_cpu(pmu, &type);
	a.type = type;
	a.config = strtoull(slash + 1, &end, 0);
	if (!slash[1] || *end) {
		fprintf(stderr, "bpf_read: bad config in '%s'\n", spec);
		exit(2);
	}
	a.disabled = 1;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		die(spec);
	return fd;
}

/* One instruction; the register fields are 4 bits each (struct bpf_insn). */
static struct bpf_insn insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm)
{
	struct bpf_insn i = { .code = code, .dst_reg = dst, .src_reg = src, .off = off, .imm = imm };

	return i;
}

/*
 * The program, for N events (R10 is the frame pointer, R6 callee-saved):
 *	r6 = 0
 *	PASSES times, for each slot i:
 *		r1 = map (ld_imm64, BPF_PSEUDO_MAP_FD: two instructions, the second all zero but
 *			  for the upper 32 bits of the immediate, 0 here)
 *		r2 = i                      (flags: the slot's index)
 *		r3 = r10; r3 += -24         (struct bpf_perf_event_value on the stack)
 *		r4 = 24                     (its size)
 *		call bpf_perf_event_read_value
 *		if r0 != 0 goto +1
 *		r6 += 1
 *	r0 = r6
 *	exit
 */
static int assemble(struct bpf_insn *p, int map_fd, int n, int passes)
{
	int len = 0, i;

	p[len++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_6, 0, 0, 0);
	for (i = 0; i < n * passes; i++) {
		p[len++] = insn(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, map_fd);
		p[len++] = insn(0, 0, 0, 0, 0);
		p[len++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, i % n);
		p[len++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_3, BPF_REG_10, 0, 0);
		p[len++] = insn(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_3, 0, 0,
				-(int32_t)sizeof(struct bpf_perf_event_value));
		p[len++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_4, 0, 0,
				sizeof(struct bpf_perf_event_value));
		p[len++] = insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_perf_event_read_value);
		p[len++] = insn(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_0, 0, 1, 0);
		p[len++] = insn(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_6, 0, 0, 1);
	}
	p[len++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_0, BPF_REG_6, 0, 0);
	p[len++] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return len;
}

static int load(int map_fd, int n, int passes)
{
	static struct bpf_insn prog[3 + 9 * MAX_CALLS];
	static char log[65536];
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_RAW_TRACEPOINT;
	a.insn_cnt = assemble(prog, map_fd, n, passes);
	a.insns = (uintptr_t)prog;
	/* bpf_perf_event_read_value() is GPL-only. */
	a.license = (uintptr_t)"GPL";
	a.log_buf = (uintptr_t)log;
	a.log_size = sizeof(log);
	a.log_level = 1;
	fd = sys_bpf(BPF_PROG_LOAD, &a);
	if (fd < 0) {
		fprintf(stderr, "bpf_read: the verifier said:\n%s\n", log);
		die("BPF_PROG_LOAD");
	}
	return fd;
}

/* Runs the program (@n reads a run) on @cpu until killed. */
static void reader(int prog_fd, int cpu, int n, struct reader_stats *st)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
	for (;;) {
		union bpf_attr a;

		memset(&a, 0, sizeof(a));
		a.test.prog_fd = prog_fd;
		a.test.flags = BPF_F_TEST_RUN_ON_CPU;
		a.test.cpu = cpu;
		if (sys_bpf(BPF_PROG_TEST_RUN, &a)) {
			st->last_errno = errno;
			st->errors++;
			continue;
		}
		st->reads += a.test.retval;
		st->failed += n - a.test.retval;
		st->runs++;
	}
}

int main(int argc, char **argv)
{
	int fds[MAX_EVENTS], cpus[MAX_READERS], nr = 0, n = 0, passes = 1, map_fd, prog_fd, opt, i, rc;
	pid_t kids[MAX_READERS];
	const char *cmd = "sleep 1";
	struct reader_stats *st;
	union bpf_attr a;
	char *c;

	while ((opt = getopt(argc, argv, "c:n:r:")) != -1) {
		if (opt == 'c') {
			for (c = strtok(optarg, ","); c && nr < MAX_READERS; c = strtok(NULL, ","))
				cpus[nr++] = atoi(c);
		} else if (opt == 'n') {
			passes = atoi(optarg);
		} else if (opt == 'r') {
			cmd = optarg;
		} else {
			return 2;
		}
	}
	if (!nr || optind == argc || argc - optind > MAX_EVENTS || passes < 1 ||
	    passes * (argc - optind) > MAX_CALLS) {
		fprintf(stderr, "usage: bpf_read -c CPUS [-n PASSES] [-r CMD] PMU/CONFIG... "
			"(up to %d events, %d reads a run)\n", MAX_EVENTS, MAX_CALLS);
		return 2;
	}

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_PERF_EVENT_ARRAY;
	a.key_size = sizeof(uint32_t);
	a.value_size = sizeof(uint32_t);
	a.max_entries = argc - optind;
	map_fd = sys_bpf(BPF_MAP_CREATE, &a);
	if (map_fd < 0 && errno == ENOSYS) {
		printf("bpf_read: no bpf(2) in this kernel\n");
		return 4;
	}
	if (map_fd < 0)
		die("BPF_MAP_CREATE");
	for (i = optind; i < argc; i++, n++) {
		uint32_t key = n, val;

		fds[n] = open_event(argv[i]);
		val = fds[n];
		memset(&a, 0, sizeof(a));
		a.map_fd = map_fd;
		a.key = (uintptr_t)&key;
		a.value = (uintptr_t)&val;
		if (sys_bpf(BPF_MAP_UPDATE_ELEM, &a))
			die("BPF_MAP_UPDATE_ELEM");
	}
	prog_fd = load(map_fd, n, passes);

	st = mmap(NULL, sizeof(*st) * nr, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st == MAP_FAILED)
		die("mmap");
	for (i = 0; i < n; i++)
		if (ioctl(fds[i], PERF_EVENT_IOC_ENABLE, 0))
			die("PERF_EVENT_IOC_ENABLE");
	for (i = 0; i < nr; i++) {
		kids[i] = fork();
		if (kids[i] < 0) {
			/* Never keep -1 in kids[]: kill(-1, ...) would signal every process. */
			while (i--)
				kill(kids[i], SIGKILL);
			die("fork");
		}
		if (!kids[i])
			reader(prog_fd, cpus[i], n * passes, &st[i]);
	}
	/* Every reader runs before the command starts. */
	for (i = 0; i < nr; i++) {
		struct timespec ms = { 0, 1000000 };
		int waited = 0;

		while (!*(volatile uint64_t *)&st[i].runs && !*(volatile uint64_t *)&st[i].errors &&
		       waited++ < 10000)
			nanosleep(&ms, NULL);
	}
	rc = system(cmd);
	for (i = 0; i < nr; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
	for (i = 0; i < n; i++)
		if (ioctl(fds[i], PERF_EVENT_IOC_DISABLE, 0))
			die("PERF_EVENT_IOC_DISABLE");
	if (rc)
		fprintf(stderr, "bpf_read: command exited %d\n", rc);
	for (i = 0; i < nr; i++)
		printf("reader cpu %d runs %llu reads %llu failed %llu errors %llu errno %llu\n",
		       cpus[i], (unsigned long long)st[i].runs, (unsigned long long)st[i].reads,
		       (unsigned long long)st[i].failed, (unsigned long long)st[i].errors,
		       (unsigned long long)st[i].last_errno);
	for (i = 0; i < n; i++) {
		uint64_t v[3];

		if (read(fds[i], v, sizeof(v)) != sizeof(v))
			die("read");
		printf("count %llu enabled %llu running %llu\n", (unsigned long long)v[0],
		       (unsigned long long)v[1], (unsigned long long)v[2]);
	}
	return 0;
}
