#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# CPU hotplug: run with two packages of two CPUs (vm-run --cpus 4,sockets=2,cores=2). The
# collector of package 1 (CPU 2) goes offline while events count: they migrate to CPU 3, keep
# counting exactly, and cpumask follows.
. /selftests/lib.sh

DEV=/sys/bus/event_source/devices
SIM=/sys/kernel/debug/skl_uncore_sim
CPU2=/sys/devices/system/cpu/cpu2/online
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
ktap_end
