#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# CPU hotplug: run with two packages of two CPUs (vm-run --cpus 4,sockets=2,cores=2). The
# collector of package 1 (CPU 2) goes offline while events count: they migrate to CPU 3, keep
# counting exactly, and cpumask follows.
. /selftests/lib.sh

DEV=/sys/bus/event_source/devices
SIM=/sys/kernel/debug/skl_uncore_sim
CPU=/sys/devices/system/cpu
CPU2=$CPU/cpu2/online
ktap_header

insmod /lib/skl/skl_uncore_sim.ko || { echo "Bail out! insmod failed"; exit 1; }
echo "clock 0 0 0" > $SIM/rate
echo "imc 0 1 0" > $SIM/rate
check "one collector per package" "0,2" "$(cat $DEV/uncore_cbox_0/cpumask)"

inj() { echo "echo '$*' > $SIM/inject"; }
out=$(/selftests/perf_open -r "$(inj cbox 0 0x34 0x8f 100); $(inj clock 0 0xff 0 10); $(inj imc 0 1 0 1);
	echo 0 > $CPU2; cat $DEV/uncore_cbox_0/cpumask > /tmp/mask;
	$(inj cbox 0 0x34 0x8f 200); $(inj clock 0 0xff 0 20); $(inj imc 0 1 0 2);
	echo 1 > $CPU2; $(inj cbox 0 0x34 0x8f 400)" \
	uncore_cbox_0/0x8f34/cpu=2 uncore_clock/0xff/cpu=3 uncore_imc/1/cpu=2 2>&1)
echo "$out" | sed 's/^/# /'
check "cpumask moved to CPU 3" "0,3" "$(cat /tmp/mask)"
check "cpumask stays on CPU 3 when CPU 2 returns" "0,3" "$(cat $DEV/uncore_arb/cpumask)"
check "counts survive the migration exactly (cbox, clock, imc)" "700 30 3" \
	"$(echo $(echo "$out" | sed -n 's/^count \([0-9]*\) .*/\1/p'))"

# Repeatedly, under perf stat -I.
perf stat -I 100 -x, -o /tmp/interval.csv -a -e uncore_arb/event=0x81,umask=0x01/ -- sh -c "
	for i in 1 2 3 4 5 6 7 8 9 10; do
		echo 0 > /sys/devices/system/cpu/cpu3/online; $(inj arb 0 0x81 0x01 10)
		echo 1 > /sys/devices/system/cpu/cpu3/online; $(inj arb 0 0x81 0x01 10)
		echo 0 > $CPU2; $(inj arb 0 0x81 0x01 10); echo 1 > $CPU2; sleep 0.05
	done"
total=$(grep -v '^#' /tmp/interval.csv | grep uncore_arb | awk -F, '{ s += $2 } END { print s }')
check "perf stat -I across 40 hotplug operations: interval counts sum exactly" "600" "$total"
neg=$(grep -v '^#' /tmp/interval.csv | grep uncore_arb | awk -F, '$2 < 0 { n++ } END { print n + 0 }')
check "no negative interval" "0" "$neg"
# A hotplug storm of the collector while another CPU injects traffic without pause: each of
# the 12 moves takes the events off the CPU going offline and adds them on the other CPU of
# the package an RCU grace period later. Every event counts exactly what was injected while
# it was open: neither less (a move's gap lost) nor more (a count moved or doubled).
rm -f /tmp/stop /tmp/injected
cat > /tmp/injector.sh <<EOT
n=0
while [ ! -f /tmp/stop ]; do
	echo 'imc 0 1 0 1000' > $SIM/inject && echo 'cbox 0 0x34 0x8f 100' > $SIM/inject &&
		echo 'clock 0 0xff 0 10' > $SIM/inject && n=\$((n + 1))
done
echo \$n > /tmp/injected
EOT
CPU3=/sys/devices/system/cpu/cpu3/online
storm="sh /tmp/injector.sh & sleep 0.2
	for i in 1 2 3 4 5 6; do
		echo 0 > $CPU2; sleep 0.1; echo 1 > $CPU2; echo 0 > $CPU3; sleep 0.1; echo 1 > $CPU3
	done
	sleep 0.2; touch /tmp/stop; wait"
out=$(/selftests/perf_open -r "$storm" uncore_imc/1/cpu=2 uncore_cbox_0/0x8f34/cpu=3 uncore_clock/0xff/cpu=2 2>&1)
echo "$out" | sed 's/^/# /'
n=$(cat /tmp/injected)
echo "# $n injections of 1000 IMC reads, 100 CBo lookups and 10 UCLK cycles"
check "a hotplug storm of the collector: injections counted exactly (imc, cbox, clock)" \
	"$((n * 1000)) $((n * 100)) $((n * 10))" "$(echo $(echo "$out" | sed -n 's/^count \([0-9]*\) .*/\1/p'))"
check "some injections ran (the storm was not empty)" "yes" "$([ "$n" -gt 20 ] && echo yes)"
check "running time is sane: 0 < running <= enabled, for each event" "3" \
	"$(echo "$out" | awk '$1 == "count" && $6 > 0 && $6 <= $4 { k++ } END { print k + 0 }')"

rmmod skl_uncore_sim
check_unloads_clean 1

# Recycled events (issue 30, item 2). An event closed while its collector goes offline, after
# the CPU left the active mask and before perf moves the package's events, is taken off by a
# del there that looks like a move: its counter counts on for it. Perf frees it a grace period
# later, and the slab gives its address to the next event opened on that CPU: here one of the
# same config, on the package's other CPU, added within the 2 s a move may take. It counts only
# what was injected while it was open, and what the counter counted between the close and the
# open (1000000) reaches nobody. The module's test hook holds each CPU going offline 600 ms in
# that window (a CPU hotplug state between sched:active and perf's); the close comes while the
# CPU is in it. Closer and opener run on CPU 0, whose slab recycles (not under KASAN's
# quarantine: there the bounds alone). Then package 1's counters all stop within 2.5 s of the
# close (item 6: visible for the fixed counter, which the new event shares with the record).
insmod /lib/skl/skl_uncore_sim.ko offline_delay_ms=600 ||
	{ echo "Bail out! insmod failed"; exit 1; }
echo "clock 0 0 0" > $SIM/rate
echo "imc 0 1 0" > $SIM/rate
# The window: a CPU's hotplug state below sched:active and above perf:online (the hook's state
# is the one in between that takes time).
state_of() { awk -F': ' -v n="$1" '$2 == n { print $1 + 0 }' $CPU/hotplug/states; }
active=$(state_of sched:active)
perf=$(state_of perf:online)
in_window() { s=$(cat $CPU/cpu$1/hotplug/state); [ "$s" -lt "$active" ] && [ "$s" -gt "$perf" ]; }
hook=$(state_of skl_uncore_sim:offline_delay)
check "the offline delay is a CPU hotplug state in the window (kernel::cpuhp)" yes \
	"$([ -n "$hook" ] && [ "$hook" -gt "$perf" ] && [ "$hook" -lt "$active" ] && echo yes ||
		echo "no: '$hook' against perf:online $perf, sched:active $active")"
# Package 1's enabled counters.
counting() {
	sed -n '/^package 1$/,$ p' $SIM/regs |
		sed -nE 's/^MSR_UNC_(PERF_FIXED_CTRL|CBO_._PERFEVTSEL.) [^=]*= (0x[0-9a-f]*).*/\1=\2/p' |
		grep -v '=0x0*$' | tr '\n' ' '
}
for kind in "uncore_cbox_0/0x8f34 cbox 0 0x34 0x8f" "uncore_clock/0xff clock 0 0xff 0" \
	"uncore_imc/1 imc 0 1 0"; do
	set -- $kind
	ev=$1; shift
	col=$(cut -d, -f2 $DEV/uncore_cbox_0/cpumask)
	other=$((col == 2 ? 3 : 2))
	rm -f /tmp/close /tmp/opened
	taskset -c 0 /selftests/perf_open -r "$(inj $* 100); touch /tmp/opened
		while [ ! -e /tmp/close ]; do sleep 0.01; done" $ev/cpu=$col > /tmp/old.out 2>&1 &
	po=$!
	i=0
	while [ ! -e /tmp/opened ] && [ $i -lt 300 ]; do sleep 0.01; i=$((i + 1)); done
	echo 0 > $CPU/cpu$col/online &
	off=$!
	i=0
	while ! in_window $col && [ $i -lt 300 ]; do sleep 0.01; i=$((i + 1)); done
	touch /tmp/close
	wait $po
	closed=$(uptime_ms)
	left=$(counting)
	eval "$(inj $* 1000000)"
	wait $off
	taskset -c 0 /selftests/perf_open -r "$(inj $* 250)" $ev/cpu=$other > /tmp/new.out 2>&1
	# Polled: they stopped after the start of the last poll that found them counting ($was)
	# and before the end of the first that did not ($now).
	i=0 cur=$(uptime_ms)
	was=$cur
	while [ -n "$(counting)" ] && [ $i -lt 300 ]; do
		sleep 0.05; was=$cur cur=$(uptime_ms) i=$((i + 1))
	done
	now=$(($(uptime_ms) - closed)) was=$((was - closed))
	echo 1 > $CPU/cpu$col/online
	sed 's/^/# old: /' /tmp/old.out; sed 's/^/# new: /' /tmp/new.out
	echo "# $ev: counting after the close: '$left'; package 1 idle $was to $now ms after the close"
	check "$ev closed in the offline window counts what it saw, the recycled one its own" \
		"100 250" "$(echo $(sed -n 's/^count \([0-9]*\) .*/\1/p' /tmp/old.out /tmp/new.out))"
	check "$ev: package 1's counters all stopped within 2.5 s of the close" yes \
		"$([ -z "$(counting)" ] && [ $was -le 2500 ] && echo yes || echo "no ($was ms)")"
	[ "$1" = imc ] || check "$ev: the close left its counter counting (a departed record)" yes \
		"$([ -n "$left" ] && echo yes || echo no)"
done
rmmod skl_uncore_sim
check "rmmod removed the offline delay's CPU hotplug state" "" "$(state_of skl_uncore_sim:offline_delay)"
check_unloads_clean 2
ktap_end
