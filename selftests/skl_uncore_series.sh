#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The kernel of the patch series (vm-run --kernel series): that the suites run after it on
# this kernel test the series' code. Patch 1's function is perf's; the sample is built in and
# registered its PMU at boot; the driver and its simulator in /lib/skl/ are the tree's own
# modules, which taint nothing (an out-of-tree module taints O), and the driver refuses the
# VM (a hypervisor) in one line.
. /selftests/lib.sh
ktap_header

check "patch 1: perf_pmu_scope_cpu is perf's, in the kernel's symbols" "1" \
	"$(grep -c ' T perf_pmu_scope_cpu$' /proc/kallsyms)"
check "the sample is built in: its PMU is there at boot, no module to unload" "yes no no" \
	"$([ -e /sys/bus/event_source/devices/rust_perf_pmu ] && echo yes || echo no) $([ -e /lib/skl/rust_perf_pmu.ko ] && echo yes || echo no) $([ -e /sys/module/rust_perf_pmu/refcnt ] && echo yes || echo no)"
check "no uncore PMU registered at boot" "0" "$(ls /sys/bus/event_source/devices | grep -c '^uncore_')"
out=$(insmod /lib/skl/skl_uncore.ko 2>&1)
rc=$?
check "skl_uncore.ko, the tree's, refuses the VM with ENODEV" "19 1" \
	"$rc $(echo "$out" | grep -c 'No such device')"
# Distinct lines: busybox insmod retries a failed finit_module with init_module, and each
# attempt logs the same line (as in skl_uncore_refuse.sh).
msgs=$(dmesg | grep 'skl_uncore: ' | sed 's/^\[[^]]*\] //' | sort -u)
check "in one line, saying so, and it taints nothing" "1 1 0" \
	"$(printf '%s\n' "$msgs" | grep -c .) $(printf '%s\n' "$msgs" | grep -c 'under a hypervisor: the uncore PMU is not virtualised, not loading$') $(dmesg | grep -c 'taints kernel')"
insmod /lib/skl/skl_uncore_sim.ko
check "skl_uncore_sim.ko, the tree's, loads and taints nothing" "0 ." "$? $(cat /sys/module/skl_uncore_sim/taint)."
rmmod skl_uncore_sim
check_unloads_clean 1
ktap_end
