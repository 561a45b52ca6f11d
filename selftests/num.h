/* SPDX-License-Identifier: GPL-2.0 */
/* A whole command-line number (decimal, 0x hex or 0 octal), or exit 2 naming the tool. */
#ifndef SKL_SELFTESTS_NUM_H
#define SKL_SELFTESTS_NUM_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t parse_num(const char *tool, const char *s)
{
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || !*s || *end) {
		fprintf(stderr, "%s: bad number '%s'\n", tool, s);
		exit(2);
	}
	return v;
}

#endif
