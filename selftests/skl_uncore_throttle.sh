#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Perf's group throttling, against the simulator: an uncore event in a group with a sampling
# cpu-clock, leader or member, is stopped when the cpu-clock overflows more often in a tick
# than kernel.perf_event_max_sample_rate allows (perf_event_throttle_group(), from the
# cpu-clock's hrtimer: on the event's CPU, without its context lock, outside
# pmu_disable/pmu_enable), and started again at the next tick. Each stop and start must fold the counter: the count is the
# simulator's unwrapped total of the fixed counter, exactly.
. /selftests/lib.sh

SIM=/sys/kernel/debug/skl_uncore_sim
PO=/selftests/perf_open
MAX_RATE=/proc/sys/kernel/perf_event_max_sample_rate
ktap_header

insmod /lib/skl/skl_uncore_sim.ko || { echo "Bail out! insmod failed"; exit 1; }
# UCLK at 1 GHz: one count per nanosecond of counting.
echo "clock 0 0 1000000000" > $SIM/rate
fixed_total() { sed -n 's/^totals fixed \([0-9]*\) .*/\1/p' $SIM/regs; }

# group RATE [member]: perf allows RATE samples a second (HZ is 250: RATE / 250 a tick); a
# sampling cpu-clock, the group's leader (or with "member", its second event after
# uncore_clock), overflows every 100 us (40 a tick) for 2 s, while CPU 0 spins: an idle CPU
# stops its tick, which is where perf unthrottles. Prints each open's "ok" or "errno", then the
# uncore event's count and running time, the cpu-clock's count (its nanoseconds counted: perf
# stops and starts the whole group at once) and the model's count meanwhile.
group() {
	clock=software/0/period=100000,cpu=0 uncore=uncore_clock/0xff/cpu=0
	echo "$1" > $MAX_RATE
	t0=$(fixed_total)
	if [ "${2:-}" = member ]; then events="$uncore $clock" u=1 c=2; else events="$clock $uncore" u=2 c=1; fi
	out=$($PO -g -r "taskset -c 0 timeout 2 sh -c 'while :; do :; done'; true" $events 2>&1)
	t1=$(fixed_total)
	echo "$out" | sed 's/^/# /' >&2
	counts=$(echo "$out" | sed -n 's/^count \([0-9]*\) enabled [0-9]* running \([0-9]*\)$/\1 \2/p')
	echo $(echo "$out" | awk '/: ok$/ { print "ok" } /: errno / { print "errno" }') \
		$(echo "$counts" | sed -n ${u}p) $(echo "$counts" | sed -n ${c}p | cut -d' ' -f1) $((t1 - t0))
}

# throttled WHAT OPEN OPEN COUNT RUNNING CLOCK MODEL: both opened; exact; perf throttled the
# group (the cpu-clock counted at most 90 % of the running time); the uncore event stopped and
# started with the cpu-clock (its count nearer the cpu-clock's than both 0 and the running
# time). How much of each tick the group counts depends on the host, not on the driver (under
# TCG the cpu-clock's hrtimer comes late), so the cpu-clock, not a fixed share, is the measure.
throttled() {
	local what=$1 open="$2 $3" count=$4 running=$5 clock=$6 model=$7 d
	check "$what: the group opens" "ok ok" "$open"
	check "$what, throttled: the count is the model's total exactly (every stop and start folded)" \
		"$model" "$count"
	check "$what, throttled: perf stopped the group, whose cpu-clock counted at most 90 % of its running time" \
		"yes" "$([ $((clock * 10)) -le $((running * 9)) ] && echo yes || echo "no: $clock of $running")"
	d=$((count - clock))
	[ $d -ge 0 ] || d=$((-d))
	check "$what, throttled: the uncore event stopped and started with the cpu-clock (counts nearer than 0 or the running time)" \
		"yes" "$([ $((d * 2)) -lt $clock ] && [ $((d * 2)) -lt $((running - clock)) ] && echo yes ||
			echo "no: $count, cpu-clock $clock, running $running")"
}

# 2 samples a tick: the cpu-clock is throttled at its second overflow in a tick, and with it
# the whole group.
throttled "a sampling cpu-clock leading uncore_clock" $(group 500)
throttled "uncore_clock leading a sampling cpu-clock" $(group 500 member)

# 400 samples a tick: never throttled, the event counts all along.
set -- $(group 100000)
count=$3 running=$4 model=$6
check "not throttled: the count is the model's total exactly" "$model" "$count"
check "not throttled: the event counted 90 % to 101 % of its running time" "yes" \
	"$([ $((count * 10)) -ge $((running * 9)) ] && [ $((count * 100)) -le $((running * 101)) ] && echo yes ||
		echo "no: $count of $running")"

rmmod skl_uncore_sim
check_unloads_clean 1
ktap_end
