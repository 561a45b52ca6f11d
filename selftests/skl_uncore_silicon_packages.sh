#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# skl_uncore.ko on two packages of the emulated silicon (vm-run --silicon --cpus
# 4,sockets=2,cores=2, every rate 0): each package has its own uncore registers, the driver one
# collector per package, and each package counts its own injections, exactly. A package that
# loses its GLOBAL_CTRL is repaired by the driver's timer while the other counts on.
. /selftests/lib.sh

PO=/selftests/perf_open
DEV=/sys/bus/event_source/devices
ktap_header

check "two packages of two CPUs" "0-1 2-3" \
	"$(cat /sys/devices/system/cpu/cpu0/topology/package_cpus_list) $(cat /sys/devices/system/cpu/cpu2/topology/package_cpus_list)"
check "the backdoor through CPU 2 is package 1 of 2" "package 1/2" \
	"$(SKL_SILICON_CPU=2 skl-silicon info | grep -o 'package [0-9/]*')"
msr 0 0x700 0x408f34; msr 2 0x700 0x8f22
check "a register file per package: CPU 0, 1 see package 0's PERFEVTSEL, CPU 2, 3 package 1's" \
	"0x408f34 0x408f34 0x8f22 0x8f22" "$(msr 0 0x700) $(msr 1 0x700) $(msr 2 0x700) $(msr 3 0x700)"
msr 0 0x700 0; msr 2 0x700 0

skl-silicon stats-reset
insmod /lib/skl/skl_uncore.ko || { echo "Bail out! insmod skl_uncore failed"; exit 1; }
check "one collector per package" "0,2" "$(cat $DEV/uncore_cbox_0/cpumask)"
# The load-time probe of counters 2 and 3: in each package, PERFEVTSEL read, written, read
# back and zeroed (the access counts are the machine's: both packages together).
check "counters 2 and 3 of CBo 0 probed once in each package" \
	"msr 0x702 reads 4 writes 4 msr 0x703 reads 4 writes 4 " \
	"$(skl-silicon stats | grep -E '^msr 0x70[23] ' | tr '\n' ' ')"
check "both packages' PERFEVTSEL2 and 3 left at 0" "0x0 0x0 0x0 0x0" \
	"$(msr 0 0x702) $(msr 0 0x703) $(msr 2 0x702) $(msr 2 0x703)"
check "the load line: 4 counters per CBo on both packages" \
	"skl_uncore: 4 counters per CBo: MSR_UNC_CBO_0_PERFEVTSEL2 and PERFEVTSEL3 keep a written value" \
	"$(dmesg | grep -o 'skl_uncore: [0-9] counters per CBo.*')"
counts() { echo $($PO -r "$1" $2 2>/dev/null | sed -n 's/^count \([0-9]*\) .*/\1/p'); }
P1=SKL_SILICON_CPU=2
check "each package counts its own injections: cbox_0, arb, clock on package 0 then 1" \
	"100 200 300 400 500 600" \
	"$(counts "skl-inject cbox 0 0x34 0x8f 100; $P1 skl-inject cbox 0 0x34 0x8f 200;
		skl-inject arb 0 0x81 0x01 300; SKL_SILICON_CPU=3 skl-inject arb 0 0x81 0x01 400;
		skl-inject clock 0 0xff 0 500; $P1 skl-inject clock 0 0xff 0 600" \
		"uncore_cbox_0/0x8f34/cpu=0 uncore_cbox_0/0x8f34/cpu=2 uncore_arb/0x181/cpu=0
		uncore_arb/0x181/cpu=2 uncore_clock/0xff/cpu=0 uncore_clock/0xff/cpu=2")"
perf stat -x, -o /tmp/sum.csv -a -e uncore_cbox_1/event=0x34,umask=0x8f/ -- sh -c \
	"skl-inject cbox 1 0x34 0x8f 1000; $P1 skl-inject cbox 1 0x34 0x8f 20"
check "perf stat -a sums both packages" "1020" "$(perf_count /tmp/sum.csv)"
check "package 1 loses GLOBAL_CTRL: repaired within 1.5 s, both packages count exactly" "700 50" \
	"$(counts "$P1 skl-silicon lose global; sleep 1.5; skl-inject cbox 0 0x34 0x8f 50;
		$P1 skl-inject cbox 0 0x34 0x8f 700" "uncore_cbox_0/0x8f34/cpu=2 uncore_cbox_0/0x8f34/cpu=0")"
check "the log names GLOBAL_CTRL once" "1" "$(dmesg | grep -c 'MSR_UNC_PERF_GLOBAL_CTRL (0xe01) was reset or changed')"
rmmod skl_uncore
check "rmmod skl_uncore" "0" "$?"
check "unload left GLOBAL_CTRL clear on both packages" "0x0 0x0" "$(msr 0 0xe01) $(msr 2 0xe01)"
ktap_end
