#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Two raw perf_event_open clients (as likwid and PAPI open events: on a CPU they name, not the
# CPU the PMU's cpumask shows) on the two CPUs of package 1, asking four counters of a box
# that has two. Perf must rotate the four in one context: each runs about half the time and
# its scaled count is the simulated rate. Then the cpumask CPU goes offline: the four move
# together and keep counting. Run with two packages of two CPUs (--cpus 4,sockets=2,cores=2).
. /selftests/lib.sh

SIM=/sys/kernel/debug/skl_uncore_sim
DEV=/sys/bus/event_source/devices
PO=/selftests/perf_open
RATE=20000000
ktap_header

insmod /lib/skl/skl_uncore_sim.ko || { echo "Bail out! insmod failed"; exit 1; }
echo "clock 0 0 0" > $SIM/rate
echo "cbox 0 0 $RATE" > $SIM/rate
check "package 1's cpumask CPU is 2" "0,2" "$(cat $DEV/uncore_cbox_0/cpumask)"

# judge NAME FILE: the two events of one client's output.
judge() {
	n=0
	for line in $(sed -n 's/^count \([0-9]*\) enabled \([0-9]*\) running \([0-9]*\)$/\1:\2:\3/p' "$2"); do
		n=$((n + 1))
		c=${line%%:*} rest=${line#*:}; e=${rest%%:*} r=${rest#*:}
		echo "# $1 event $n: count $c enabled $e running $r"
		if [ "$r" -gt 0 ]; then
			share=$((r * 100 / e))
			scaled=$((c * e / r))
		else
			share=0 scaled=0
		fi
		want=$((RATE * (e / 1000) / 1000000))
		err=$(((scaled - want) * 100 / want)); err=${err#-}
		check "$1 event $n runs its share of the time (30..70 %)" "yes" \
			"$([ "$share" -ge 30 ] && [ "$share" -le 70 ] && echo yes || echo "no: $share %")"
		check "$1 event $n: scaled count is the simulated rate (within 15 %)" "yes" \
			"$([ "$err" -le 15 ] && echo yes || echo "no: $scaled against $want")"
	done
	check "$1: two counts" "2" "$n"
}

# run NAME CMD: both clients at once, the first on CPU 2, the second on CPU 3.
run() {
	$PO -r "$2" uncore_cbox_0/0x8f34/cpu=2 uncore_cbox_0/0x1134/cpu=2 > /tmp/a 2>&1 &
	a=$!
	$PO -r "$2" uncore_cbox_0/0x4134/cpu=3 uncore_cbox_0/0x2134/cpu=3 > /tmp/b 2>&1
	wait $a
	judge "$1, client on CPU 2" /tmp/a
	judge "$1, client on CPU 3" /tmp/b
}

run "one package, two clients" "sleep 4"
run "cpumask CPU offline halfway" "sleep 2; echo 0 > /sys/devices/system/cpu/cpu2/online; sleep 2"
check "cpumask moved to CPU 3" "0,3" "$(cat $DEV/uncore_cbox_0/cpumask)"
echo 1 > /sys/devices/system/cpu/cpu2/online
rmmod skl_uncore_sim
check_unloads_clean 1
ktap_end
