#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Which driver takes the uncore PMUs at boot, as udev loads them: kmod's modprobe of the CPU's
# modalias (the x86cpu alias both skl_uncore and intel_uncore match), with the modprobe
# configuration and modules of a Debian root (scripts/test-life collects them into
# /add/modroot: kmod, its libraries, modprobe.d, the kernel's modules). Booted with the
# emulated silicon, every rate 0: the owner then counts an injection exactly.
# Usage: skl_uncore_modprobe.sh OWNER   (skl_uncore or intel_uncore: the only one loaded)
. /selftests/lib.sh
OWNER=$1
M=/add/modroot
DEV=/sys/bus/event_source/devices
ktap_header

for d in proc sys dev; do mount --bind /$d $M/$d; done
alias=$(cat /sys/devices/system/cpu/modalias)
echo "# modalias: $alias"
chroot $M /sbin/modprobe -b "$alias" 2>&1 | sed 's/^/# modprobe: /'
loaded=
for m in skl_uncore intel_uncore; do
	[ -e /sys/module/$m/initstate ] && loaded="$loaded $m"
done
check "modprobe of the CPU's modalias loads $OWNER, and only it" " $OWNER" "$loaded"
check "the uncore PMUs on the 2-core silicon" "uncore_arb uncore_cbox_0 uncore_cbox_1 uncore_imc" \
	"$(cd $DEV && ls -d uncore_* | grep -v '^uncore_clock$' | tr '\n' ' ' | sed 's/ $//')"
n=$(/selftests/perf_open -r "skl-inject cbox 0 0x34 0x8f 4242" uncore_cbox_0/0x8f34 2>/dev/null |
	sed -n 's/^count \([0-9]*\) .*/\1/p')
check "$OWNER counts 4242 injected CBo 0 lookups exactly" "4242" "$n"
rmmod "$OWNER"
check "$OWNER unloads" "0" "$?"
for d in proc sys dev; do umount $M/$d; done
ktap_end
