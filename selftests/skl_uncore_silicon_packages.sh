#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# skl_uncore.ko on two packages of the emulated silicon (vm-run --silicon --cpus
# 4,sockets=2,cores=2, every rate 0): each package has its own uncore registers, the driver one
# collector per package, and each package counts its own injections, exactly. A package that
# loses its GLOBAL_CTRL is repaired by the driver's timer while the other counts on. The load's
# probe of counters 2 and 3 is checked per package from the msr tracepoint's CPU; the IMC (one
# MCHBAR for the machine) is one PMU context, so perf stat -a counts its traffic once.
. /selftests/lib.sh

PO=/selftests/perf_open
DEV=/sys/bus/event_source/devices
T=/sys/kernel/tracing
ktap_header

check "two packages of two CPUs" "0-1 2-3" \
	"$(cat /sys/devices/system/cpu/cpu0/topology/package_cpus_list) $(cat /sys/devices/system/cpu/cpu2/topology/package_cpus_list)"
check "the backdoor through CPU 2 is package 1 of 2" "package 1/2" \
	"$(SKL_SILICON_CPU=2 skl-silicon info | grep -o 'package [0-9/]*')"
msr 0 0x700 0x408f34; msr 2 0x700 0x8f22
check "a register file per package: CPU 0, 1 see package 0's PERFEVTSEL, CPU 2, 3 package 1's" \
	"0x408f34 0x408f34 0x8f22 0x8f22" "$(msr 0 0x700) $(msr 1 0x700) $(msr 2 0x700) $(msr 3 0x700)"
msr 0 0x700 0; msr 2 0x700 0

mount -t tracefs nodev $T 2>/dev/null
echo 'msr == 0x702 || msr == 0x703' > $T/events/msr/write_msr/filter &&
	echo 1 > $T/events/msr/write_msr/enable || { echo "Bail out! cannot trace msr:write_msr"; exit 1; }
echo > $T/trace; echo 1 > $T/tracing_on
insmod /lib/skl/skl_uncore.ko || { echo "Bail out! insmod skl_uncore failed"; exit 1; }
echo 0 > $T/tracing_on
check "one collector per package" "0,2" "$(cat $DEV/uncore_cbox_0/cpumask)"
# The load-time probe of counters 2 and 3, per package: the tracepoint's CPU says which
# package executed each WRMSR. "PACKAGE MSR LAST-VALUE WRITES" per package and register.
pkg_of() { cat /sys/devices/system/cpu/cpu$(echo $1 | sed 's/^0*//; s/^$/0/')/topology/physical_package_id; }
grep -E ' write_msr: 70[23],' $T/trace |
	sed 's/.*\[\([0-9]*\)\].* write_msr: \([0-9a-f]*\), value \([0-9a-f]*\).*/\1 \2 \3/' |
	while read -r cpu msr val; do echo "$(pkg_of $cpu) $msr $val"; done > /tmp/probe
probed() { awk -v p=$1 -v m=$2 '$1 == p && $2 == m { n++; last = $3 } END { printf "%s:%d", last, n }' /tmp/probe; }
for p in 0 1; do
	ok702=$(probed $p 702) ok703=$(probed $p 703)
	# Written at least once each (the probe's write and its restore), the last write 0.
	if [ "${ok702%%:*}" = 0 ] && [ "${ok703%%:*}" = 0 ] && [ "${ok702#*:}" -ge 1 ] && [ "${ok703#*:}" -ge 1 ]; then
		ok "package $p: a CPU of it probed PERFEVTSEL2 and 3 and restored 0 (last value:writes $ok702 $ok703)"
	else
		not_ok "package $p: PERFEVTSEL2 and 3 probed and restored by a CPU of the package" \
			"last value:writes $ok702 $ok703 (trace: $(cat /tmp/probe | tr '\n' ' '))"
	fi
done
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
# One MCHBAR for the machine: the IMC PMU has one CPU, and perf stat -a counts its traffic once
# (per package, it would read the same counters twice and double the count).
check "the IMC PMU has one CPU for the machine, the CBos one per package" "0 0,2" \
	"$(cat $DEV/uncore_imc/cpumask) $(cat $DEV/uncore_cbox_0/cpumask)"
perf stat -x, -o /tmp/imc.csv -a -e uncore_imc/event=0x1/ -- skl-inject imc 0 1 0 123456
check "perf stat -a counts an IMC injection of 123456 once" "123456" "$(perf_count /tmp/imc.csv)"
check "an IMC event opened on package 1's CPU 2 counts the machine's traffic once" "4321" \
	"$(counts "skl-inject imc 0 1 0 4321" uncore_imc/1/cpu=2)"
rmmod skl_uncore
check "rmmod skl_uncore" "0" "$?"
check "unload left GLOBAL_CTRL clear on both packages" "0x0 0x0" "$(msr 0 0xe01) $(msr 2 0xe01)"
ktap_end
