// SPDX-License-Identifier: GPL-2.0
/*
 * The emulated Skylake uncore's backdoor (QEMU device skl-uncore, scripts/vm-run --silicon):
 * injects events, presets counters and reads the model's per-register access counts through
 * MSRs no driver touches. Static: the guest has no C library.
 *
 *   skl-silicon info                            CBo slices, counters per CBo, UCLK, MCHBAR,
 *                                               profile, MSR_UNC_CBO_CONFIG, CBo blocks,
 *                                               package, host bridge ID
 *   skl-silicon inject UNIT BOX EVENT UMASK COUNT    prints how many counters saw it
 *   skl-silicon preset UNIT BOX COUNTER VALUE
 *   skl-silicon peek UNIT BOX COUNTER               prints a counter's value (not an access)
 *   skl-silicon tally UNIT BOX [COUNTER]        what the box's counters (or one) counted while
 *                                               enabled since tally-reset, and how often
 *                                               counting started: "SUM STARTS"
 *   skl-silicon tally-reset
 *   skl-silicon lose ctrl|counters|global|all   the package loses its PERFEVTSELs, FIXED_CTRL
 *                                               and +4 registers / its counters / its
 *                                               GLOBAL_CTRL / all of them (as S3 does)
 *   skl-silicon rate UNIT BOX PER_S             background rate of every CBo (cbox) or ARB
 *                                               counter, UCLK (clock), IMC counter BOX (imc)
 *   skl-silicon stats                           one line per register accessed since the reset
 *   skl-silicon stats-reset
 *   skl-silicon faults                          one line per MSR with a #GP raised or a
 *                                               constraint violation (an event enabled on a
 *                                               counter the manual does not allow) since boot:
 *                                               "msr 0xADDR gp N violations N"
 *   skl-silicon faults-reset                    for tests that fault on purpose (msr-probe)
 *
 * UNIT is cbox, arb, clock or imc; COUNTER is the generic counter, 0 for the clock, the IMC
 * event code 1..5 for the IMC (as the simulator's debugfs files). Commands act on the package
 * of CPU $SKL_SILICON_CPU (default 0). Exit 1 on a refused command (no such box/counter, bad
 * event), 2 on bad usage or no device.
 *
 * Backdoor MSRs, through /dev/cpu/0/msr (the guest boots with msr.allow_writes=on):
 * 0x534b4c00 read gives the magic "SKLU", write selects argument N (0..7); 0x534b4c01 reads or
 * writes argument N; 0x534b4c02 write runs a command, read gives its status (0 ok, 1 unknown
 * command, 2 no such box or counter, 3 bad event). Commands: 1 info, 2 inject (args unit box
 * event umask count -> arg0 = counters hit), 3 preset (unit box counter value), 4 stats-next
 * (arg0 = from -> next, kind, addr, reads, writes; kind 0 = end, 1 MSR, 2 MCHBAR offset,
 * 3 config offset of 0:0.0), 5 stats-reset, 6 peek (unit box counter -> arg0 = value),
 * 7 tally (unit box counter|~0 -> arg0 = sum, arg1 = starts), 8 tally-reset, 9 lose (what:
 * 1 controls, 2 counters, 3 GLOBAL_CTRL, 4 all), 10 rate (unit box rate), 11 faults-next (arg0 = from -> next, MSR (0 at the end), #GPs,
 * violations), 12 faults-reset. Units: 0 cbox, 1 arb, 2 clock, 3 imc.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "num.h"
#include "silicon_bd.h"

static int unit_code(const char *s)
{
	static const char *const units[] = { "cbox", "arb", "clock", "imc" };

	for (int i = 0; i < 4; i++)
		if (!strcmp(s, units[i]))
			return i;
	fprintf(stderr, "skl-silicon: unknown unit '%s' (cbox, arb, clock, imc)\n", s);
	exit(2);
}

static uint64_t num(const char *s)
{
	return parse_num("skl-silicon", s);
}

static int refused(const char *what, int st)
{
	static const char *const why[] = { "ok", "unknown command", "no such box or counter",
					   "bad event" };

	fprintf(stderr, "skl-silicon: %s refused: %s\n", what, st < 4 ? why[st] : "?");
	return 1;
}

int main(int argc, char **argv)
{
	int st;

	if (argc < 2) {
		fprintf(stderr, "usage: skl-silicon info|inject|preset|peek|tally|tally-reset|lose|rate|stats|stats-reset|faults|faults-reset ...\n");
		return 2;
	}
	const char *cpu = getenv("SKL_SILICON_CPU");
	char path[64];

	snprintf(path, sizeof(path), "/dev/cpu/%s/msr", cpu && *cpu ? cpu : "0");
	bd_fd = open(path, O_RDWR);
	if (bd_fd < 0) {
		fprintf(stderr, "skl-silicon: %s: %s\n", path, strerror(errno));
		return 2;
	}
	uint64_t magic;

	if (pread(bd_fd, &magic, sizeof(magic), MSR_SEL) != sizeof(magic) || magic != MAGIC) {
		fprintf(stderr, "skl-silicon: no emulated uncore (QEMU -device skl-uncore)\n");
		return 2;
	}
	if (!strcmp(argv[1], "info") && argc == 2) {
		static const char *const skus[] = { "i7-6700K", "manual", "2-core", "i7-8665U",
						    "i9-9900K", "i9-10900K" };
		command(1);
		uint64_t a7 = get_arg(7);
		unsigned int sku = (a7 >> 8) & 0xff;

		/* The device ID stays last: tests take it with sed 's/.*device //'. */
		printf("cbos %llu counters %llu uclk_hz %llu mchbar %#llx sku %s config %#llx "
		       "blocks %u package %u/%u device %#llx\n",
		       (unsigned long long)get_arg(1), (unsigned long long)get_arg(2),
		       (unsigned long long)get_arg(3), (unsigned long long)get_arg(4),
		       sku < 6 ? skus[sku] : "?", (unsigned long long)get_arg(6),
		       (unsigned int)(a7 & 0xff), (unsigned int)((a7 >> 16) & 0xff),
		       (unsigned int)((a7 >> 24) & 0xff), (unsigned long long)get_arg(5));
		return 0;
	}
	if (!strcmp(argv[1], "inject") && argc == 7) {
		set_arg(0, unit_code(argv[2]));
		for (int i = 1; i < 5; i++)
			set_arg(i, num(argv[i + 2]));
		st = command(2);
		if (st)
			return refused("inject", st);
		printf("%llu\n", (unsigned long long)get_arg(0));
		return 0;
	}
	if (!strcmp(argv[1], "preset") && argc == 6) {
		set_arg(0, unit_code(argv[2]));
		for (int i = 1; i < 4; i++)
			set_arg(i, num(argv[i + 2]));
		st = command(3);
		return st ? refused("preset", st) : 0;
	}
	if (!strcmp(argv[1], "peek") && argc == 5) {
		set_arg(0, unit_code(argv[2]));
		for (int i = 1; i < 3; i++)
			set_arg(i, num(argv[i + 2]));
		st = command(6);
		if (st)
			return refused("peek", st);
		printf("0x%llx\n", (unsigned long long)get_arg(0));
		return 0;
	}
	if (!strcmp(argv[1], "tally") && (argc == 4 || argc == 5)) {
		set_arg(0, unit_code(argv[2]));
		set_arg(1, num(argv[3]));
		set_arg(2, argc == 5 ? num(argv[4]) : ~0ull);
		st = command(7);
		if (st)
			return refused("tally", st);
		printf("%llu %llu\n", (unsigned long long)get_arg(0), (unsigned long long)get_arg(1));
		return 0;
	}
	if (!strcmp(argv[1], "tally-reset") && argc == 2) {
		command(8);
		return 0;
	}
	if (!strcmp(argv[1], "lose") && argc == 3) {
		static const char *const what[] = { "", "ctrl", "counters", "global", "all" };
		int w = 0;

		for (int i = 1; i < 5; i++)
			if (!strcmp(argv[2], what[i]))
				w = i;
		if (!w) {
			fprintf(stderr, "skl-silicon: lose ctrl|counters|global|all\n");
			return 2;
		}
		set_arg(0, w);
		st = command(9);
		return st ? refused("lose", st) : 0;
	}
	if (!strcmp(argv[1], "rate") && argc == 5) {
		set_arg(0, unit_code(argv[2]));
		set_arg(1, num(argv[3]));
		set_arg(2, num(argv[4]));
		st = command(10);
		return st ? refused("rate", st) : 0;
	}
	if (!strcmp(argv[1], "stats") && argc == 2) {
		static const char *const kind[] = { "", "msr", "mmio", "pcicfg" };
		uint64_t from = 0;

		for (;;) {
			set_arg(0, from);
			command(4);
			uint64_t k = get_arg(1);

			if (k < 1 || k > 3)
				return 0;
			printf("%s %#llx reads %llu writes %llu\n", kind[k],
			       (unsigned long long)get_arg(2), (unsigned long long)get_arg(3),
			       (unsigned long long)get_arg(4));
			from = get_arg(0);
		}
	}
	if (!strcmp(argv[1], "faults") && argc == 2) {
		uint64_t from = 0;

		for (;;) {
			set_arg(0, from);
			st = command(11);
			if (st)
				return refused("faults", st);
			uint64_t msr = get_arg(1);

			if (!msr)
				return 0;
			printf("msr %#llx gp %llu violations %llu\n", (unsigned long long)msr,
			       (unsigned long long)get_arg(2), (unsigned long long)get_arg(3));
			from = get_arg(0);
		}
	}
	if (!strcmp(argv[1], "faults-reset") && argc == 2) {
		command(12);
		return 0;
	}
	if (!strcmp(argv[1], "stats-reset") && argc == 2) {
		command(5);
		return 0;
	}
	fprintf(stderr, "skl-silicon: bad command or argument count\n");
	return 2;
}
