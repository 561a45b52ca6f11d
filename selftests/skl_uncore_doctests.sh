#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The KUnit doctests of the series' kernel crate on the series kernel, one module's per boot
# (vm-run --kernel series --append "kunit.enable=1 kunit.filter_glob=GLOB"): KUnit ran them at
# boot and wrote its KTAP report to the kernel log. perf.rs's example registers a PMU, opens a
# kernel counter on it, and asserts its exact counts; time/fast.rs's reads both clocks across
# a sleep; pci.rs's third looks up the VM's host bridge, bound to a driver or not, and reads its
# IDs from its configuration space; io/mem.rs's second has UnboundIoMem refuse a window smaller
# than its type's minimum; pm.rs's registers a platform driver and device pair, has the driver
# core refuse a second of the name (its one error line, which this checks) and registers again
# once the first is dropped.
#
# Usage: skl_uncore_doctests.sh WHAT NAME...   WHAT: the module (kernel::perf); NAME: the
# doctests GLOB must keep, by KUnit name, sorted.
[ $# -ge 2 ] || { echo "usage: skl_uncore_doctests.sh WHAT NAME..." >&2; exit 2; }
. /selftests/lib.sh
ktap_header

what=$1
shift
want="$*"
n=$(echo "$want" | wc -w)

# KUnit's report, without the log's timestamps.
dmesg | sed -n 's/^\[[^]]*\] //p' > /tmp/kunit
sed -n '/# Subtest: rust_doctests_kernel$/,/^\(not \)\{0,1\}ok [0-9]* rust_doctests_kernel$/p' /tmp/kunit |
	sed 's/^/# /'

check "KUnit ran the kernel crate's doctests once, and the suite passed" "1" \
	"$(grep -cx 'ok [0-9]* rust_doctests_kernel' /tmp/kunit)"
check "the filter kept $what's doctests ($n) and nothing else" "$want" \
	"$(sed -n 's/^ *\(not \)\{0,1\}ok [0-9]* \(rust_doctest_kernel_[a-z0-9_]*\)$/\2/p' /tmp/kunit | sort | tr '\n' ' ' | sed 's/ $//')"
for t in $want; do
	check "$t passed" "1" "$(grep -cxE ' +ok [0-9]+ '"$t" /tmp/kunit)"
done
check "no doctest failed" "0" "$(grep -cE '^ *not ok ' /tmp/kunit)"
if [ "$what" = kernel::perf ]; then
	check "the doctest's PMU is gone again" "0" \
		"$(ls /sys/bus/event_source/devices | grep -c '^rust_doctest')"
fi
if [ "$what" = kernel::pm ]; then
	check "the driver core refused the doctest's second driver of the name, once" "1" \
		"$(grep -c "Driver 'rust_doctest_pm' is already registered, aborting" /tmp/kunit)"
	check "the doctest's platform driver and device are gone again" "0 0" \
		"$(ls /sys/bus/platform/drivers | grep -c '^rust_doctest') $(ls /sys/bus/platform/devices | grep -c '^rust_doctest')"
fi
ktap_end
