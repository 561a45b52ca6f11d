#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Box state under concurrency (vm-run --cpus 6,sockets=2,cores=3; package 1 is CPUs 3-5):
# events are opened, read and closed on package 1's CPUs while its collector (the cpumask CPU)
# goes offline and online again and again, moving between CPUs 3 and 4, and a long-lived IMC
# event opened on the package's other CPU, 5, counts at the assumed maximum DRAM rate (a
# 32-bit wrap every 2.7 s) through all of it, sharing the box with the events that come and go.
# Every event of the package lives in the collector's context, so each hotplug operation of
# the collector moves the long-lived event too: perf takes it off the CPU going offline and
# installs it on the next CPU an RCU grace period later; the driver carries the free-running
# counter's raw baseline across (Linux's uncore loses what it counts in between). So its count
# is exactly the model's total: never more, never less (a lost move's gap, or a lost wrap, is
# less; a doubled one is more). A second long-lived event, on CPU 3, first to start, pins the
# package's poll timer to a CPU that goes away.
. /selftests/lib.sh

SIM=/sys/kernel/debug/skl_uncore_sim
PO=/selftests/perf_open
CPU=/sys/devices/system/cpu
DEV=/sys/bus/event_source/devices
# Rounds of four hotplug operations (fewer on the KASAN kernel, where each costs seconds).
ROUNDS=${1:-6}
ktap_header

insmod /lib/skl/skl_uncore_sim.ko || { echo "Bail out! insmod failed"; exit 1; }
echo "clock 0 0 0" > $SIM/rate
for e in 1 2 3 4 5; do echo "imc 0 $e 0" > $SIM/rate; done

t0=$(imc_total)
out=$($PO -r "echo 'imc 0 1 1600000000' > $SIM/rate; start=\$(date +%s)
	( i=0; while [ ! -e /tmp/stop ]; do
		for c in 3 4 5; do
			$PO -r 'cat /proc/loadavg > /dev/null' uncore_cbox_0/0x8f34/cpu=\$c \
				uncore_arb/0x180/cpu=\$c uncore_clock/0xff/cpu=\$c uncore_imc/2/cpu=\$c \
				> /dev/null 2>&1
		done
		i=\$((i + 1))
	  done; echo \$i > /tmp/churned ) &
	for r in \$(seq $ROUNDS); do
		echo 0 > $CPU/cpu3/online; cat $DEV/uncore_imc/cpumask >> /tmp/masks; sleep 0.3
		echo 1 > $CPU/cpu3/online; sleep 0.3
		echo 0 > $CPU/cpu4/online; cat $DEV/uncore_imc/cpumask >> /tmp/masks; sleep 0.3
		echo 1 > $CPU/cpu4/online; sleep 0.3
	done
	# At least 9 s at the maximum rate: three 32-bit wraps or more.
	while [ \$((\$(date +%s) - start)) -lt 9 ]; do sleep 1; done
	touch /tmp/stop; wait
	echo 'imc 0 1 0' > $SIM/rate" uncore_imc/2/cpu=3 uncore_imc/1/cpu=5 2>&1)
t1=$(imc_total)
echo "$out" | sed 's/^/# /'
count=$(echo "$out" | sed -n 's/^count \([0-9]*\) .*/\1/p' | tail -n1)
homings=$(sed -n 's/.* homings \([0-9]*\) .*/\1/p' $SIM/regs)
echo "# churn rounds: $(cat /tmp/churned); model total $t0 -> $t1; timer taken home $homings times"
check "the IMC counter wrapped several times meanwhile" "yes" \
	"$([ $((t1 - t0)) -gt $((3 << 32)) ] && echo yes || echo "no ($((t1 - t0)))")"
total=$((t1 - t0))
check "long-lived IMC event across $((ROUNDS * 4)) migrations: never more than the model's total" \
	"yes" "$([ "$count" -le "$total" ] && echo yes || echo "no ($count > $total)")"
check "... and never less: the moves lose nothing" "yes" \
	"$([ "$count" -ge "$total" ] && echo yes || echo "no ($count of $total, $((total - count)) lost)")"
# The first event, on CPU 3, armed the package's timer there: when CPU 3 went offline the
# kernel moved the timer to package 0, and it had to come home. It comes home either by its
# IPI or, sooner, because the moved IMC event's add on the new collector restarts the timer
# there (the first IMC event of a package pulls the next poll in). Either way the exact count
# above proves it: polled from package 0, package 1's wraps would have been lost. The IPI path
# itself is asserted by skl_uncore_lifetime.sh.
echo "# the timer was taken home by IPI $homings times"
check "the collector moved between CPUs 3 and 4" "0,3 0,4" "$(sort -u /tmp/masks | tr '\n' ' ' | sed 's/ $//')"
check "the CPUs of package 1 are back" "1 1" "$(cat $CPU/cpu3/online) $(cat $CPU/cpu4/online)"
check "no register was reported changed (nothing but the driver wrote them)" "0" \
	"$(dmesg | grep -c 'changed by someone else')"
# An event closed while its CPU went offline (after the CPU left the active mask, before perf
# moved the package's events) looks like a move that never lands: its counter counts on for
# it until the package's timer finds the move overdue (2 s, then one timer period at most).
# Package 1's counters all stop within 15 s of the last close (the global enable stays).
counting() {
	sed -n '/^package 1$/,$ p' $SIM/regs |
		sed -nE 's/^MSR_UNC_(PERF_FIXED_CTRL|CBO_._PERFEVTSEL.|ARB_PERFEVTSEL.) [^=]*= (0x[0-9a-f]*).*/\1=\2/p' |
		grep -v '=0x0*$' | tr '\n' ' '
}
i=0
while [ -n "$(counting)" ] && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
echo "# package 1's counters all stopped after $((i / 10)).$((i % 10)) s"
check "nothing counts for nobody: package 1's counters stopped with the events" "" "$(counting)"
rmmod skl_uncore_sim
check_unloads_clean 1
ktap_end
