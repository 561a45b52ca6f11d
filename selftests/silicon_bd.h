/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The emulated silicon's backdoor MSRs (QEMU device skl-uncore; the protocol is in
 * skl_silicon.c's header), through /dev/cpu/N/msr opened as bd_fd. A failed access exits 2.
 */
#ifndef SKL_SELFTESTS_SILICON_BD_H
#define SKL_SELFTESTS_SILICON_BD_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MSR_SEL 0x534b4c00u
#define MSR_ARG 0x534b4c01u
#define MSR_CMD 0x534b4c02u
#define MAGIC 0x534b4c55u

static int bd_fd = -1;

static uint64_t rd(uint32_t msr)
{
	uint64_t v;

	if (pread(bd_fd, &v, sizeof(v), msr) != sizeof(v)) {
		perror("skl-silicon: rdmsr");
		exit(2);
	}
	return v;
}

static void wr(uint32_t msr, uint64_t v)
{
	if (pwrite(bd_fd, &v, sizeof(v), msr) != sizeof(v)) {
		perror("skl-silicon: wrmsr");
		exit(2);
	}
}

static void set_arg(int n, uint64_t v)
{
	wr(MSR_SEL, n);
	wr(MSR_ARG, v);
}

static uint64_t get_arg(int n)
{
	wr(MSR_SEL, n);
	return rd(MSR_ARG);
}

static int command(int cmd)
{
	wr(MSR_CMD, cmd);
	return rd(MSR_CMD);
}

#endif
