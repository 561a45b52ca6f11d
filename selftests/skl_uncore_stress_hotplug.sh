#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Hotplug stress, with two packages of two CPUs (vm-run --cpus 4,sockets=2,cores=2): the
# collector of package 1 goes offline and online SKL_HOTPLUG_CYCLES times (10; make stress:
# 100) while perf stat -I 100 counts on every unit. Every package sees each injection, so the
# totals are exactly twice what was injected; the machine has one IMC, but the simulator's
# uncore_imc keeps a context per package (rust/engine/pmu.rs), each counting it.
. /selftests/lib.sh

SIM=/sys/kernel/debug/skl_uncore_sim
CYCLES=${SKL_HOTPLUG_CYCLES:-10}
ktap_header
insmod /lib/skl/skl_uncore_sim.ko
echo "clock 0 0 0" > $SIM/rate
for e in 1 2 3 4 5; do echo "imc 0 $e 0" > $SIM/rate; done

perf stat -I 100 -x, -o /tmp/hp.csv -a \
	-e uncore_cbox_1/event=0x34,umask=0x8f/ -e uncore_arb/event=0x81,umask=0x01/ \
	-e uncore_clock/clockticks/ -e uncore_imc/event=0x1/ -- sh -c "
	i=0
	while [ \$i -lt $CYCLES ]; do
		collector=\$(cut -d, -f2 /sys/bus/event_source/devices/uncore_arb/cpumask)
		echo 0 > /sys/devices/system/cpu/cpu\$collector/online
		echo 'cbox 1 0x34 0x8f 3' > $SIM/inject; echo 'arb 0 0x81 0x01 5' > $SIM/inject
		echo 'clock 0 0xff 0 7' > $SIM/inject; echo 'imc 0 1 0 11' > $SIM/inject
		echo 1 > /sys/devices/system/cpu/cpu\$collector/online
		sleep 0.1
		i=\$((i + 1))
	done"
sum() { grep -v '^#' /tmp/hp.csv | grep "$1" | awk -F, '{ s += $2 } END { printf "%.0f", s }'; }
check "cbox_1 across $CYCLES collector migrations" "$((2 * 3 * CYCLES))" "$(sum uncore_cbox_1)"
check "arb across $CYCLES collector migrations" "$((2 * 5 * CYCLES))" "$(sum uncore_arb)"
check "clock across $CYCLES collector migrations" "$((2 * 7 * CYCLES))" "$(sum uncore_clock)"
# The raw encoding, not the data_reads alias: perf would print the alias scaled to MiB.
check "imc across $CYCLES collector migrations" "$((2 * 11 * CYCLES))" "$(sum uncore_imc)"
neg=$(grep -v '^#' /tmp/hp.csv | grep uncore | awk -F, '$2 < 0 { n++ } END { print n + 0 }')
check "no interval went backwards" "0" "$neg"
rmmod skl_uncore_sim
check_unloads_clean 1
ktap_end
