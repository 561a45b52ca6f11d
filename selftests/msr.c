// SPDX-License-Identifier: GPL-2.0
/*
 * Reads or writes one MSR through /dev/cpu/N/msr, for tests that poke registers without a
 * driver. Static: the guest has no C library.
 *
 *   msr CPU ADDR          prints the value as 0x%llx (0 as 0x0)
 *   msr CPU ADDR VALUE    writes it
 *
 * On a failed access it prints "EIO" (or the errno's name) on stdout and exits 1: a #GP
 * reaches user space as EIO.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "num.h"

static uint64_t num(const char *s)
{
	return parse_num("msr", s);
}

static int fail(void)
{
	printf("%s\n", errno == EIO ? "EIO" : strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	char path[64];
	uint64_t v;
	off_t addr;
	int fd;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: msr CPU ADDR [VALUE]\n");
		return 2;
	}
	snprintf(path, sizeof(path), "/dev/cpu/%llu/msr", (unsigned long long)num(argv[1]));
	addr = num(argv[2]);
	fd = open(path, argc == 4 ? O_WRONLY : O_RDONLY);
	if (fd < 0) {
		perror(path);
		return 2;
	}
	if (argc == 4) {
		v = num(argv[3]);
		if (pwrite(fd, &v, sizeof(v), addr) != sizeof(v))
			return fail();
		return 0;
	}
	if (pread(fd, &v, sizeof(v), addr) != sizeof(v))
		return fail();
	printf("0x%llx\n", (unsigned long long)v);
	return 0;
}
