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
# uncore event's count, its running time and the model's count meanwhile.
group() {
	clock=software/0/period=100000,cpu=0 uncore=uncore_clock/0xff/cpu=0
	echo "$1" > $MAX_RATE
	t0=$(fixed_total)
	if [ "${2:-}" = member ]; then events="$uncore $clock" n=1; else events="$clock $uncore" n=2; fi
	out=$($PO -g -r "taskset -c 0 timeout 2 sh -c 'while :; do :; done'; true" $events 2>&1)
	t1=$(fixed_total)
	echo "$out" | sed 's/^/# /' >&2
	echo $(echo "$out" | awk '/: ok$/ { print "ok" } /: errno / { print "errno" }') \
		$(echo "$out" | sed -n 's/^count \([0-9]*\) enabled [0-9]* running \([0-9]*\)$/\1 \2/p' |
			sed -n ${n}p) $((t1 - t0))
}

# throttled WHAT OPEN OPEN COUNT RUNNING MODEL: both opened; exact; counted 2 % to 50 % of the
# running time (4 periods of 100 us in every 4 ms tick are a tenth).
throttled() {
	check "$1: the group opens" "ok ok" "$2 $3"
	check "$1, throttled: the count is the model's total exactly (every stop and start folded)" \
		"$6" "$4"
	check "$1, throttled: perf stopped the event, which counted 2 % to 50 % of its running time" \
		"yes" "$([ $(($4 * 50)) -gt "$5" ] && [ $(($4 * 2)) -lt "$5" ] && echo yes || echo "no: $4 of $5")"
}

# 4 samples a tick: the cpu-clock is throttled after 0.4 ms of every 4 ms tick, and with it the
# whole group.
throttled "a sampling cpu-clock leading uncore_clock" $(group 1000)
throttled "uncore_clock leading a sampling cpu-clock" $(group 1000 member)

# 400 samples a tick: never throttled, the event counts all along.
set -- $(group 100000)
shift 2
check "not throttled: the count is the model's total exactly" "$3" "$1"
check "not throttled: the event counted 90 % to 101 % of its running time" "yes" \
	"$([ $(($1 * 10)) -ge $(($2 * 9)) ] && [ $(($1 * 100)) -le $(($2 * 101)) ] && echo yes ||
		echo "no: $1 of $2")"

rmmod skl_uncore_sim
check_unloads_clean 1
ktap_end
