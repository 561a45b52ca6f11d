#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The KUnit doctests of kernel::perf on the series kernel (vm-run --kernel series --append
# "kunit.enable=1 kunit.filter_glob=rust_doctests_kernel.rust_doctest_kernel_perf*"): KUnit
# ran them at boot and wrote its KTAP report to the kernel log. perf.rs's example registers a
# PMU, opens a kernel counter on it, and asserts its exact counts.
. /selftests/lib.sh
ktap_header

# The doctests of rust/kernel/perf.rs and rust/kernel/perf/, by KUnit name, sorted.
want="rust_doctest_kernel_perf_counter_rs_0 rust_doctest_kernel_perf_names_rs_0 rust_doctest_kernel_perf_rs_0"
n=$(echo "$want" | wc -w)

# KUnit's report, without the log's timestamps.
dmesg | sed -n 's/^\[[^]]*\] //p' > /tmp/kunit
sed -n '/# Subtest: rust_doctests_kernel$/,/^\(not \)\{0,1\}ok [0-9]* rust_doctests_kernel$/p' /tmp/kunit |
	sed 's/^/# /'

check "KUnit ran the kernel crate's doctests once, and the suite passed" "1" \
	"$(grep -cx 'ok [0-9]* rust_doctests_kernel' /tmp/kunit)"
check "the filter kept kernel::perf's $n doctests and nothing else" "$want" \
	"$(sed -n 's/^ *\(not \)\{0,1\}ok [0-9]* \(rust_doctest_kernel_[a-z0-9_]*\)$/\2/p' /tmp/kunit | sort | tr '\n' ' ' | sed 's/ $//')"
for t in $want; do
	check "$t passed" "1" "$(grep -cxE ' +ok [0-9]+ '"$t" /tmp/kunit)"
done
check "no doctest failed" "0" "$(grep -cE '^ *not ok ' /tmp/kunit)"
check "the doctest's PMU is gone again" "0" \
	"$(ls /sys/bus/event_source/devices | grep -c '^rust_doctest')"
ktap_end
