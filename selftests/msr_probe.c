// SPDX-License-Identifier: GPL-2.0
/*
 * msr-probe CPU FIRST LAST: for every MSR from FIRST to LAST on CPU, through /dev/cpu/CPU/msr
 * (the guest boots with msr.allow_writes=on), one line as VirtualBox's CPU report tool
 * records a part: "0xADDR absent" if RDMSR faults, else "0xADDR gp 0xGP ignore 0xIGN": GP
 * holds every bit whose write (that bit alone set) faults, IGN every bit whose write is
 * accepted but does not read back (ignored, read only as 0, or write-1-to-clear). Each write
 * is read back, then the value read first is written back. Static: the guest has no C
 * library.
 *
 * Only for a machine whose MSRs in that range are harmless to write (the emulated silicon).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "num.h"

int main(int argc, char **argv)
{
	char path[64];
	uint64_t first, last;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: msr-probe CPU FIRST LAST\n");
		return 2;
	}
	snprintf(path, sizeof(path), "/dev/cpu/%s/msr", argv[1]);
	fd = open(path, O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "msr-probe: %s: %s\n", path, strerror(errno));
		return 2;
	}
	first = parse_num("msr-probe", argv[2]);
	last = parse_num("msr-probe", argv[3]);
	for (uint64_t msr = first; msr <= last; msr++) {
		uint64_t orig, back, gp = 0, ign = 0;

		if (pread(fd, &orig, sizeof(orig), msr) != sizeof(orig)) {
			printf("%#llx absent\n", (unsigned long long)msr);
			continue;
		}
		for (int bit = 0; bit < 64; bit++) {
			uint64_t v = 1ull << bit;

			if (pwrite(fd, &v, sizeof(v), msr) != sizeof(v))
				gp |= v;
			else if (pread(fd, &back, sizeof(back), msr) != sizeof(back) || !(back & v))
				ign |= v;
			/* Restore (a read-only register refuses this too). */
			ssize_t r = pwrite(fd, &orig, sizeof(orig), msr);

			(void)r;
		}
		printf("%#llx gp %#llx ignore %#llx\n", (unsigned long long)msr, (unsigned long long)gp,
		       (unsigned long long)ign);
	}
	return 0;
}
