#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Linux's intel_uncore as a module (CONFIG_PERF_EVENTS_INTEL_UNCORE=m), both load orders.
# With intel_uncore holding the uncore_* names, our module refuses before registering
# anything and says how to unload it. With ours loaded, intel_uncore may not load (insmod and
# modprobe fail cleanly) instead of failing in sysfs with a duplicate-name backtrace.
# Run under -cpu Skylake-Client,-hypervisor, where intel_uncore loads (TCG reads its MSRs as 0).
. /selftests/lib.sh

DEV=/sys/bus/event_source/devices
ktap_header
insmod /lib/skl/intel-uncore.ko
check "intel_uncore registered uncore_cbox_0" "yes" "$([ -e $DEV/uncore_cbox_0 ] && echo yes)"
check "intel_uncore is a loaded module (initstate)" "live" "$(cat /sys/module/intel_uncore/initstate)"
insmod /lib/skl/skl_uncore_sim.ko 2>/dev/null
# The module returns -EEXIST; the module loader reports it as EBUSY, since EEXIST means
# "already loaded" to insmod.
check "insmod refused (EEXIST from init, EBUSY to userspace)" "16" "$?"
msg="a PMU named uncore_cbox_0 is already registered by Linux's intel_uncore module: unload it first (rmmod intel_uncore) and keep it from loading at boot (blacklist intel_uncore in /etc/modprobe.d/, as make install does)"
check "the log names the clash and the module fix, exactly" "1" \
	"$(dmesg | sed 's/^\[[^]]*\] //' | grep -xF "skl_uncore_sim: $msg" | sort -u | grep -c .)"
check "nothing of ours registered" "no" "$([ -e /sys/kernel/debug/skl_uncore_sim ] && echo yes || echo no)"
# The same from a mount namespace without /sys: the names are looked up on perf's bus and in
# the module kset, not by a path under /sys.
said() { dmesg | sed 's/^\[[^]]*\] //' | grep -cxF "skl_uncore_sim: $msg"; }
before=$(said)
without_sys insmod /lib/skl/skl_uncore_sim.ko 2>/dev/null
check "insmod where /sys is not mounted: refused the same (EBUSY)" "16" "$?"
check "and the log names intel_uncore and the module fix again" "yes" \
	"$([ "$(said)" -gt "$before" ] && echo yes || echo "no ($before -> $(said))")"
rmmod intel_uncore
without_sys insmod /lib/skl/skl_uncore_sim.ko
check "loads once intel_uncore is gone, from a namespace without /sys too" "0" "$?"
rmmod skl_uncore_sim
insmod /lib/skl/skl_uncore_sim.ko
check "loads once intel_uncore is gone" "0" "$?"

# The other order: ours first.
insmod /lib/skl/intel-uncore.ko 2>/dev/null
check "insmod intel-uncore.ko while ours holds the names: EBUSY" "16" "$?"
check "intel_uncore is not loaded" "no" "$([ -e /sys/module/intel_uncore ] && echo yes || echo no)"
check "the log says why, once per attempt" "yes" \
	"$(dmesg | grep -q 'skl_uncore_sim: intel_uncore may not load while skl_uncore_sim holds the uncore_\* PMU names: rmmod skl_uncore_sim first' && echo yes)"
mkdir -p /lib/modules/$(uname -r)/kernel
cp /lib/skl/intel-uncore.ko /lib/modules/$(uname -r)/kernel/
depmod
modprobe intel_uncore 2>/dev/null
check "modprobe intel_uncore while ours holds the names: fails" "1" "$?"
check "still not loaded" "no" "$([ -e /sys/module/intel_uncore ] && echo yes || echo no)"
check "no sysfs duplicate-name backtrace, no kobject error" "0" \
	"$(dmesg | grep -cE 'Call Trace|cannot create duplicate filename|kobject_add_internal failed')"
# Ours, not some uncore_cbox_0: the simulator's debugfs and module are there.
check "our PMUs still work" "0 yes" "$(/selftests/perf_open uncore_cbox_0/0xff >/dev/null; echo $?) \
$([ -d /sys/kernel/debug/skl_uncore_sim ] && [ "$(cat /sys/module/skl_uncore_sim/initstate 2>/dev/null)" = live ] && echo yes)"
rmmod skl_uncore_sim
modprobe intel_uncore
check "modprobe intel_uncore once ours is gone" "0" "$?"
check "intel_uncore registered uncore_cbox_0 again" "yes" "$([ -e $DEV/uncore_cbox_0 ] && echo yes)"
rmmod intel_uncore

# Boot-time autoload as udev does it (modprobe of the CPU's modalias): the line make install
# writes to /etc/modprobe.d keeps intel_uncore out; without it, intel_uncore loads.
mkdir -p /etc/modprobe.d
echo 'blacklist intel_uncore' > /etc/modprobe.d/skl-uncore.conf
modprobe -a "$(cat /sys/devices/system/cpu/modalias)"
check "CPU modalias autoload with 'blacklist intel_uncore': intel_uncore stays out" "no" \
	"$([ -e /sys/module/intel_uncore ] && echo yes || echo no)"
rm /etc/modprobe.d/skl-uncore.conf
modprobe -a "$(cat /sys/devices/system/cpu/modalias)"
check "CPU modalias autoload without it: intel_uncore loads" "yes" \
	"$([ -e /sys/module/intel_uncore ] && echo yes || echo no)"
rmmod intel_uncore
check_unloads_clean 2
ktap_end
