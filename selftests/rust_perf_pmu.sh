#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The patch series' sample PMU (rust_perf_pmu.ko, built out of tree from
# rust/samples/rust_perf_pmu.rs): kernel::perf apart from any uncore. Its one event counts
# what is written to debugfs, so every count here is exact.
# Usage: rust_perf_pmu.sh [builtin]: builtin, on the series kernel, where the sample is built
# in: no insmod, no rmmod.
. /selftests/lib.sh

DEV=/sys/bus/event_source/devices/rust_perf_pmu
ADD=/sys/kernel/debug/rust_perf_pmu/add
ktap_header

if [ "${1:-}" = builtin ]; then
	check "built in: its PMU registered at boot" "yes" "$([ -e $DEV ] && echo yes || echo no)"
elif insmod /lib/skl/rust_perf_pmu.ko; then
	ok "insmod rust_perf_pmu"
else
	not_ok "insmod rust_perf_pmu" "failed"
fi
check "PMU type logged" "$(cat $DEV/type 2>/dev/null || echo 'no PMU')" \
	"$(dmesg | sed -n 's/.*rust_perf_pmu: PMU type \([0-9]*\)$/\1/p')"
check "system scope: one CPU in cpumask" "0" "$(cat $DEV/cpumask)"
check "format/event" "config:0-7" "$(cat $DEV/format/event)"
check "events/tally" "event=0x00" "$(cat $DEV/events/tally)"

# tally COMMAND: what perf stat -a counts of rust_perf_pmu/tally/ over sh -c COMMAND.
tally() {
	perf stat -x, -o /tmp/tally.csv -a -e rust_perf_pmu/tally/ -- sh -c "$1" && perf_count /tmp/tally.csv
}
check "counts 5 + 7 written while enabled" "12" "$(tally "echo 5 > $ADD; echo 7 > $ADD")"
echo 1000 > $ADD
check "counts nothing written before or after it" "3" "$(tally "echo 3 > $ADD"; echo 2000 > $ADD)"
check "counts 0 when nothing is written" "0" "$(tally true)"
count=$(tally "echo abc > $ADD 2>/dev/null; echo \$? > /tmp/rc; echo 4 > $ADD")
check "a refused write (not a number) fails and adds nothing" "1 4" "$(cat /tmp/rc) $count"
# The counter wraps modulo 2^64: adding 2^64 - 1 leaves it one below where it started, and
# the count is the difference modulo 2^64 (perf_open prints it as an integer; perf stat
# would print it through a double).
check "the count wraps with the counter" "count 18446744073709551615" \
	"$(/selftests/perf_open -r "echo 18446744073709551615 > $ADD" rust_perf_pmu/0 | sed -n 's/^\(count [0-9]*\) .*/\1/p')"
check "and counts on after the wrap" "7" "$(tally "echo 7 > $ADD")"

# Two events and a group of two on CPU 0, enabled together: each counts every write. Two
# readers on CPUs 0 and 1 read(2) them all the while (perf's read, under its context lock).
out=$(/selftests/perf_open -r "for i in \$(seq 1 50); do echo \$i > $ADD; done" \
	rust_perf_pmu/0 rust_perf_pmu/0 2>&1)
check "two events count 1 + ... + 50 each" "count 1275 count 1275" \
	"$(echo "$out" | sed -n 's/^\(count [0-9]*\) .*/\1/p' | tr '\n' ' ' | sed 's/ $//')"
out=$(/selftests/perf_open -g -R 2 -r "for i in \$(seq 1 50); do echo \$i > $ADD; done" \
	rust_perf_pmu/0 rust_perf_pmu/0 2>&1)
check "a group, read from CPUs 0 and 1 meanwhile, counts 1275 each" "count 1275 count 1275" \
	"$(echo "$out" | sed -n 's/^\(count [0-9]*\) .*/\1/p' | tr '\n' ' ' | sed 's/ $//')"

# A group with a sampling cpu-clock, leader or member, overflowing every 100 us (40 times a
# tick) where perf allows 4 a tick (kernel.perf_event_max_sample_rate 1000, HZ 250): perf
# throttles the group, stopping the tally event without removing it, and starts it again at
# a later tick. CPU 0, where the group counts, spins between the writes, so its tick runs and
# the writes span many throttled stretches: every one counts, none twice.
MAX_RATE=/proc/sys/kernel/perf_event_max_sample_rate
echo 1000 > $MAX_RATE
writes="for i in \$(seq 1 50); do echo \$i > $ADD; j=0; while [ \$j -lt 300 ]; do j=\$((j + 1)); done; done"
clock=software/0/period=100000,cpu=0
# throttled_group N EVENT...: the group's opens ("ok" or the error) and its Nth event's count.
throttled_group() {
	n=$1
	shift
	out=$(/selftests/perf_open -g -r "taskset -c 0 sh -c '$writes'" "$@" 2>&1)
	echo "$out" | sed 's/^/# /' >&2
	echo $(echo "$out" | awk '/: ok$/ { print "ok" } /: errno / { print $0 }'; echo "$out" |
		sed -n 's/^count \([0-9]*\) .*/\1/p' | sed -n ${n}p)
}
check "a group led by a sampling cpu-clock, throttled, counts 1 + ... + 50" "ok ok 1275" \
	"$(throttled_group 2 $clock rust_perf_pmu/0/cpu=0)"
check "a group with a sampling cpu-clock member, throttled, counts 1 + ... + 50" "ok ok 1275" \
	"$(throttled_group 1 rust_perf_pmu/0/cpu=0 $clock)"
echo 100000 > $MAX_RATE

# What the PMU refuses, with perf's errno.
check "config 1 is no event (EINVAL)" "rust_perf_pmu/1: errno 22 EINVAL" \
	"$(/selftests/perf_open rust_perf_pmu/1 2>&1)"
check "sampling is refused (EOPNOTSUPP)" "rust_perf_pmu/0/period=1000: errno 95 EOPNOTSUPP" \
	"$(/selftests/perf_open rust_perf_pmu/0/period=1000 2>&1)"
check "exclude_user is refused by perf (Capability::NoExclude)" \
	"rust_perf_pmu/0/exclude_user: errno 22 EINVAL" "$(/selftests/perf_open rust_perf_pmu/0/exclude_user 2>&1)"
check "a task event is refused (no task context)" "rust_perf_pmu/0/cpu=-1,pid=0: errno 22 EINVAL" \
	"$(/selftests/perf_open rust_perf_pmu/0/cpu=-1,pid=0 2>&1)"

# Reads without perf's lock, in NMI (nmi_read.ko, vm-run --add): perf_event_read_local() on
# CPUs 0 and 1 in turn, all the while 1 + ... + 100 are written; then the final count.
CTL=/sys/kernel/debug/nmi_read/ctl
RES=/sys/kernel/debug/nmi_read/results
addr=$(awk '$3 == "perf_event_read_local" { print $1; exit }' /proc/kallsyms)
if insmod /add/nmi_read.ko read_local=0x$addr; then
	echo "open 0 $(cat $DEV/type) 0" > $CTL || not_ok "nmi_read opens a kernel counter" "refused"
	sh -c "(while [ ! -e /tmp/written ]; do echo 'loop 100' > $CTL || exit 1; done) & reader=\$!
		for i in \$(seq 1 100); do echo \$i > $ADD; done; touch /tmp/written; wait \$reader"
	check "writes with the NMI reader looping exit 0" "0" "$?"
	echo close > $CTL
	grep -E '^(loop|final)' $RES | sed 's/^/# /'
	check "NMI reads: every one in NMI on its CPU, on both CPUs, no error, never backwards" \
		"0 0 0; 0x3 0x0 0 0" \
		"$(awk '/^loop rounds/ { printf "%s %s %s; ", $5, $7, $9 } /^loop ev/ { print $5, $7, $9, $11 }' $RES)"
	check "the kernel counter read in NMI counts 5050 exactly" "5050" "$(awk '/^final/ { print $5 }' $RES)"
	rmmod nmi_read
else
	not_ok "insmod nmi_read" "failed (read_local=0x$addr)"
fi

[ "${1:-}" = builtin ] && ktap_end
if rmmod rust_perf_pmu; then ok "rmmod rust_perf_pmu"; else not_ok "rmmod rust_perf_pmu" "failed"; fi
check "PMU and debugfs directory gone" "no no" \
	"$([ -e $DEV ] && echo yes || echo no) $([ -e ${ADD%/add} ] && echo yes || echo no)"
ktap_end
