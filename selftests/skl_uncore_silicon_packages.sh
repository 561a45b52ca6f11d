#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# skl_uncore.ko on two packages of the emulated silicon (vm-run --silicon --cpus
# 4,sockets=2,cores=2, every rate 0): each package has its own uncore registers, probed at load
# on a CPU of its own with another tool's values left as they were; the driver has one
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

# --- the probe, with another tool at work in both packages ----------------------------------
# The other tool has the uncore on (GLOBAL_CTRL.EN) and background traffic counting; in
# package 0 it programmed counter 2 without enabling it, in package 1 it counts on counter 2.
# Counter 3's count is its own. The module must find the part's 4 counters, and leave every
# value as it was: package 0's counts exactly (the probe's enabled event counted into them),
# package 1's counter 2 never written. The kernel's msr tracepoints say which CPU made each
# access: each package is probed on a CPU of its own, in one sequence.
mount -t tracefs nodev $T 2>/dev/null
P="0x3b2 0x702 0x703 0x708 0x709"
F=$(for a in $P; do printf 'msr == %s || ' $a; done | sed 's/ || $//')
echo 1024 > $T/buffer_size_kb
for e in read_msr write_msr; do
	echo "$F" > $T/events/msr/$e/filter && echo 1 > $T/events/msr/$e/enable ||
		{ echo "Bail out! cannot trace msr:$e"; exit 1; }
done
for cpu in 0 2; do
	msr $cpu 0xe01 0x20000000
	SKL_SILICON_CPU=$cpu skl-silicon rate cbox 0 1000000000
done
msr 0 0x702 0x1134; msr 0 0x708 0x123456; msr 0 0x709 0xabcdef
msr 2 0x702 0x401134; msr 2 0x709 0xfedcba
other() { echo $(msr 0 0x702) $(msr 0 0x708) $(msr 0 0x703) $(msr 0 0x709) / $(msr 2 0x702) $(msr 2 0x703) $(msr 2 0x709); }
dmesg -c >/dev/null
echo > $T/trace
echo 1 > $T/tracing_on
insmod /lib/skl/skl_uncore.ko || { echo "Bail out! insmod skl_uncore failed"; exit 1; }
echo 0 > $T/tracing_on
check "another tool's values: the load line still says 4 counters per CBo" \
	"skl_uncore: 4 counters per CBo: MSR_UNC_CBO_0_PERFEVTSEL2 and PERFEVTSEL3 take an event with EN set" \
	"$(dmesg | grep -o 'skl_uncore: [0-9] counters per CBo.*')"
check "another tool's values left exactly: package 0's events and counts, package 1's counter 2 event and counter 3 count" \
	"0x1134 0x123456 0x0 0xabcdef / 0x401134 0x0 0xfedcba" "$(other)"
# One line per access, in order: PACKAGE r|w ADDR (hex, no 0x) [VALUE]: CPUs 0, 1 are
# package 0, CPUs 2, 3 package 1.
grep -E ' (read|write)_msr: ' $T/trace |
	sed 's/.*\[0*\([0-9]\)\].* \(read\|write\)_msr: \([0-9a-f]*\), value \([0-9a-f]*\).*/\1 \2 \3 \4/' |
	while read cpu op a v; do
		[ $op = write ] && w=" $v" || w=
		echo "$((cpu / 2)) $(echo $op | cut -c1)$a$w"
	done > /tmp/probe
seq_of() { echo $(sed -n "s/^$1 //p" /tmp/probe); }
# The ARB check (written, read back, 0 put back), then per counter: PERFEVTSEL and PERFCTR
# read, the event written with EN, read back, both put back; a PERFEVTSEL with EN set only read.
arb="r3b2 w3b2 181 r3b2 w3b2 0"
check "package 0 probed on its own CPUs, once: ARB, counter 2 (put back 0x1134 and its count), counter 3" \
	"$arb r702 r708 w702 408f34 r702 w702 1134 w708 123456 r703 r709 w703 408f34 r703 w703 0 w709 abcdef" \
	"$(seq_of 0)"
check "package 1 probed on its own CPUs, once: ARB, counter 2 (another tool counts there: never written), counter 3" \
	"$arb r702 r708 r703 r709 w703 408f34 r703 w703 0 w709 fedcba" "$(seq_of 1)"
rmmod skl_uncore
for e in read_msr write_msr; do echo 0 > $T/events/msr/$e/enable; done
for cpu in 0 2; do
	for a in 0xe01 0x702 0x703 0x708 0x709; do msr $cpu $a 0; done
	SKL_SILICON_CPU=$cpu skl-silicon rate cbox 0 0
done

# --- the driver on two packages --------------------------------------------------------------
dmesg -c >/dev/null
skl-silicon stats-reset
echo 'msr == 0x702 || msr == 0x703' > $T/events/msr/write_msr/filter &&
	echo 1 > $T/events/msr/write_msr/enable || { echo "Bail out! cannot trace msr:write_msr"; exit 1; }
echo > $T/trace; echo 1 > $T/tracing_on
insmod /lib/skl/skl_uncore.ko || { echo "Bail out! insmod skl_uncore failed"; exit 1; }
echo 0 > $T/tracing_on
check "one collector per package" "0,2" "$(cat $DEV/uncore_cbox_0/cpumask)"
# The load-time probe of counters 2 and 3 on free registers: in each package, PERFEVTSEL
# read, written, read back and put back, PERFCTR read and put back (the model's access counts
# are the machine's: both packages together; the trace above tells the packages apart).
check "counters 2 and 3 of CBo 0 probed once in each package" \
	"msr 0x702 reads 4 writes 4 msr 0x703 reads 4 writes 4 msr 0x708 reads 2 writes 2 msr 0x709 reads 2 writes 2 " \
	"$(skl-silicon stats | grep -E '^msr 0x70[2389] ' | tr '\n' ' ')"
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
	"skl_uncore: 4 counters per CBo: MSR_UNC_CBO_0_PERFEVTSEL2 and PERFEVTSEL3 take an event with EN set" \
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
# The watchdog runs every 10 s with 2.5 s of slack while only MSR events are open.
check "package 1 loses GLOBAL_CTRL: repaired within 13 s, both packages count exactly" "700 50" \
	"$(counts "$P1 skl-silicon lose global; sleep 13; skl-inject cbox 0 0x34 0x8f 50;
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
