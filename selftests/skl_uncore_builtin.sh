#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Linux's intel_uncore built in (CONFIG_PERF_EVENTS_INTEL_UNCORE=y, the KASAN test kernel),
# under -cpu Skylake-Client,-hypervisor, where it registers its PMUs at boot. scripts/load is
# /add/load.
#   skl_uncore_builtin.sh held          booted as is: insmod and make load refuse, and give
#                                       the fix that works for a built-in
#   skl_uncore_builtin.sh blacklisted   booted with initcall_blacklist=intel_uncore_init: make
#                                       load loads, and the PMUs count
. /selftests/lib.sh

DEV=/sys/bus/event_source/devices
SIM=/sys/kernel/debug/skl_uncore_sim
PO=/selftests/perf_open
ktap_header
check "intel_uncore is not a loadable module here (no /sys/module/intel_uncore)" "no" \
	"$([ -e /sys/module/intel_uncore ] && echo yes || echo no)"
check "the CPU has no hypervisor bit (the built-in refuses only under one)" "0" \
	"$(grep -c '^flags.* hypervisor' /proc/cpuinfo)"

case "$1" in
held)
	check "built-in intel_uncore registered uncore_cbox_0 at boot" "yes" \
		"$([ -e $DEV/uncore_cbox_0 ] && echo yes)"
	insmod /lib/skl/skl_uncore_sim.ko 2>/dev/null
	check "insmod refused (EEXIST from init, EBUSY to userspace)" "16" "$?"
	# The same from a mount namespace without /sys: no path lookup decides it.
	without_sys "insmod /lib/skl/skl_uncore_sim.ko 2>/dev/null"
	check "insmod where /sys is not mounted: refused the same (EBUSY)" "16" "$?"
	msg="a PMU named uncore_cbox_0 is already registered by Linux's intel_uncore, built into this kernel (CONFIG_PERF_EVENTS_INTEL_UNCORE=y; rmmod cannot unload it): boot with initcall_blacklist=intel_uncore_init, or rebuild the kernel with CONFIG_PERF_EVENTS_INTEL_UNCORE=m and blacklist intel_uncore"
	# busybox insmod retries with init_module: each attempt (of both) logs the same line.
	check "the log gives the built-in fix, exactly, as its only distinct line" "1 1" \
		"$(dmesg | grep 'skl_uncore_sim: ' | grep -v -e 'taints kernel' -e 'unload:' |
			sed 's/^\[[^]]*\] //' | sort -u | grep -c .) $(dmesg | sed 's/^\[[^]]*\] //' |
			grep -xF "skl_uncore_sim: $msg" | sort -u | grep -c .)"
	check "nothing of ours registered" "no" "$([ -e $SIM ] && echo yes || echo no)"
	out=$(sh /add/load /lib/skl/skl_uncore_sim.ko)
	rc=$?
	echo "$out" | sed 's/^/# /'
	check "make load refuses" "1" "$rc"
	check "make load names the built-in" "1" "$(echo "$out" | grep -c "intel_uncore.*built into this kernel")"
	check "make load gives initcall_blacklist=intel_uncore_init" "1" \
		"$(echo "$out" | grep -c 'boot with initcall_blacklist=intel_uncore_init')"
	check "make load gives the rebuild with =m and the blacklist" "1 1" \
		"$(echo "$out" | grep -c 'rebuild the kernel with CONFIG_PERF_EVENTS_INTEL_UNCORE=m') $(echo "$out" | grep -c "echo 'blacklist intel_uncore'")"
	check "make load does not advise rmmod intel_uncore" "0" "$(echo "$out" | grep -c 'rmmod intel_uncore')"
	;;
blacklisted)
	check "booted with initcall_blacklist=intel_uncore_init" "1" \
		"$(grep -c 'initcall_blacklist=intel_uncore_init' /proc/cmdline)"
	# The kernel logs the skipped initcall only with pr_debug: the missing PMUs show it.
	check "no uncore_* PMU at boot" "0" "$(ls $DEV | grep -c '^uncore_')"
	out=$(sh /add/load /lib/skl/skl_uncore_sim.ko)
	check "make load loads the module" "0" "$?"
	echo "clock 0 0 0" > $SIM/rate
	c=$($PO -r "echo 'clock 0 0xff 0 5000' > $SIM/inject; echo 'cbox 1 0x34 0x8f 77' > $SIM/inject" \
		uncore_clock/0xff uncore_cbox_0/0xff uncore_arb/0x100 uncore_cbox_1/0x8f34 2>/dev/null |
		sed -n 's/^count \([0-9]*\) .*/\1/p' | tr '\n' ' ' | sed 's/ $//')
	check "clockticks (3 spellings) and a CBo event count exactly" "5000 5000 5000 77" "$c"
	rmmod skl_uncore_sim
	check_unloads_clean 1
	;;
*)
	not_ok "usage" "skl_uncore_builtin.sh held|blacklisted"
	;;
esac
ktap_end
