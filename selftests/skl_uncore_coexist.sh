#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# With Linux's intel_uncore holding the uncore_* names, our module refuses before
# registering anything and says what to do. Run under -cpu Skylake-Client,-hypervisor, where
# intel_uncore loads (TCG reads its MSRs as 0).
. /selftests/lib.sh

ktap_header
insmod /lib/skl/intel-uncore.ko
check "intel_uncore registered uncore_cbox_0" "yes" "$([ -e /sys/bus/event_source/devices/uncore_cbox_0 ] && echo yes)"
insmod /lib/skl/skl_uncore_sim.ko 2>/dev/null
# The module returns -EEXIST; the module loader reports it as EBUSY, since EEXIST means
# "already loaded" to insmod.
check "insmod refused (EEXIST from init, EBUSY to userspace)" "16" "$?"
check "the log names the clash and the fix" "1" \
	"$(dmesg | grep 'skl_uncore_sim: ' | grep 'uncore_cbox_0 is already registered' | grep -c 'rmmod intel_uncore' | sed 's/^[1-9][0-9]*$/1/')"
check "nothing of ours registered" "no" "$([ -e /sys/kernel/debug/skl_uncore_sim ] && echo yes || echo no)"
rmmod intel_uncore
insmod /lib/skl/skl_uncore_sim.ko
check "loads once intel_uncore is gone" "0" "$?"
rmmod skl_uncore_sim
ktap_end
