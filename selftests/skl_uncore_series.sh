#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The kernel of the patch series (vm-run --kernel series): that the suites run after it on
# this kernel test the series' code. Patch 1's function is perf's; the driver is built in and
# refuses the VM (a hypervisor) in one line; the simulator and the sample in /lib/skl/ are
# the tree's own modules, which taint nothing (an out-of-tree module taints O).
. /selftests/lib.sh
ktap_header

check "patch 1: perf_pmu_scope_cpu is perf's, in the kernel's symbols" "1" \
	"$(grep -c ' T perf_pmu_scope_cpu$' /proc/kallsyms)"
check "the driver is built in: no skl_uncore.ko, no module to unload" "no no" \
	"$([ -e /lib/skl/skl_uncore.ko ] && echo yes || echo no) $([ -e /sys/module/skl_uncore/refcnt ] && echo yes || echo no)"
check "the built-in driver refused the VM in one line" "1" \
	"$(dmesg | grep -c 'skl_uncore: .* under a hypervisor: the uncore PMU is not virtualised, not loading$')"
check "no uncore PMU registered at boot" "0" "$(ls /sys/bus/event_source/devices | grep -c '^uncore_')"
for m in skl_uncore_sim rust_perf_pmu; do
	insmod /lib/skl/$m.ko
	check "$m.ko, the tree's, loads and taints nothing" "0 ." "$? $(cat /sys/module/$m/taint)."
	rmmod $m
done
check_unloads_clean 1
ktap_end
