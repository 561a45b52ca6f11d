#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The production module must refuse this VM with ENODEV and one clear line in the log.
# Usage: skl_uncore_refuse.sh EXPECTED_MESSAGE_FRAGMENT
. /selftests/lib.sh

ktap_header
out=$(insmod /lib/skl/skl_uncore.ko 2>&1)
rc=$?
check "insmod skl_uncore fails with ENODEV (19)" "19" "$rc"
case "$out" in
*"No such device"*) ok "insmod error is ENODEV" ;;
*) not_ok "insmod error is ENODEV" "$out" ;;
esac
# busybox insmod retries a failed finit_module with init_module: each attempt must log the
# same single line.
msgs=$(dmesg | grep 'skl_uncore: ' | grep -v 'taints kernel' | sed 's/^\[[^]]*\] //' | sort -u)
check "exactly one distinct log line, saying '$1'" "1 1" \
	"$(printf '%s\n' "$msgs" | grep -c .) $(printf '%s\n' "$msgs" | grep -c "$1")"
ktap_end
