#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# skl_uncore.ko and the host bridge as firmware leaves it (vm-run --silicon, every rate 0):
#   disabled        mchbar-en=off: MCHBAREN clear, the base programmed
#   unknown-bridge  host-bridge-id=0x1234: not a Skylake-family memory controller
#   high            mchbar=0x1000000000: MCHBAR above 4 GiB (high dword 0x10)
#   q35             vm-run --machine q35: the q35 MCH as host bridge
# The module loads in every case; without a usable MCHBAR it registers the MSR units only and
# says why in one line, with it uncore_imc counts injected DRAM reads exactly.
. /selftests/lib.sh

CFG=/sys/bus/pci/devices/0000:00:00.0/config
DEV=/sys/bus/event_source/devices
ktap_header
cfg_dword() { od -An -tx4 -j "$1" -N 4 $CFG | tr -d ' '; }
pmus() { (cd $DEV && ls -d uncore_* 2>/dev/null | tr '\n' ' '); }
MSR_PMUS="uncore_arb uncore_cbox_0 uncore_cbox_1 uncore_clock "

case $1 in
disabled) bar="fed10000 00000000" id=0x191f
	line="no uncore_imc: MCHBAR reads 0xfed10000: the firmware left the window disabled (MCHBAREN clear or base 0)" ;;
unknown-bridge) bar="fed10001 00000000" id=0x1234
	line="no uncore_imc: host bridge 8086:1234 is not a Skylake-family memory controller" ;;
high) bar="00000001 00000010" id=0x191f line= ;;
q35) bar="fed10001 00000000" id=0x191f line= ;;
*) echo "Bail out! usage: skl_uncore_silicon_imc.sh disabled|unknown-bridge|high|q35"; exit 1 ;;
esac

check "$1: host bridge 0:0.0 is 8086:${id#0x}" "0x8086 $id" \
	"$(cat /sys/bus/pci/devices/0000:00:00.0/vendor) $(cat /sys/bus/pci/devices/0000:00:00.0/device)"
check "$1: MCHBAR dwords 0x48 0x4c" "$bar" "$(cfg_dword 72) $(cfg_dword 76)"
if [ "$1" = q35 ]; then
	check "q35: the ICH9 LPC at 0:1f.0 (the firmware set up the q35 chipset)" "0x8086 0x2918" \
		"$(cat /sys/bus/pci/devices/0000:00:1f.0/vendor) $(cat /sys/bus/pci/devices/0000:00:1f.0/device)"
fi
dmesg -c >/dev/null
insmod /lib/skl/skl_uncore.ko
check "$1: skl_uncore loads" "0" "$?"
if [ -n "$line" ]; then
	check "$1: the MSR units only" "$MSR_PMUS" "$(pmus)"
	check "$1: one line says why there is no uncore_imc" "skl_uncore: $line" \
		"$(dmesg | grep uncore_imc | sed 's/^\[[^]]*\] //')"
else
	check "$1: every unit, uncore_imc too" "${MSR_PMUS}uncore_imc " "$(pmus)"
	check "$1: no line about uncore_imc" "" "$(dmesg | grep uncore_imc)"
	check "$1: uncore_imc data_reads counts the 6000 injected" "6000" \
		"$(/selftests/perf_open -r "skl-inject imc 0 1 0 6000" uncore_imc/1 2>/dev/null | sed -n 's/^count \([0-9]*\) .*/\1/p')"
fi
rmmod skl_uncore
check "$1: rmmod skl_uncore" "0" "$?"
ktap_end
