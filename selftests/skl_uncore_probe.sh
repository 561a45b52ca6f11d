#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The load-time write probe against CPU hotplug, on two packages of two CPUs (vm-run --cpus
# 4,sockets=2,cores=2). Each package is probed in one call on one of its own CPUs with hotplug
# held off: a CPU going offline around or during the probe is never taken for a missing
# counter, and never leaves a probe value behind.
#
#   skl_uncore_probe.sh sim       skl_uncore_sim.ko (cbo_counters=4): each package's register
#                                 file probed once, by a CPU of its own, also with CPU 2
#                                 offline; a package without an online CPU is not probed;
#                                 then loads under a hotplug loop
#   skl_uncore_probe.sh silicon   skl_uncore.ko on the emulated i7-6700K (vm-run --silicon,
#                                 quiet): loads under a hotplug loop, with another tool's
#                                 values in counters 2 and 3 of both packages
#   skl_uncore_probe.sh profile N LINE
#                                 skl_uncore.ko on a fault profile of the silicon (vm-run
#                                 --silicon --silicon-opt faults=..., quiet, any CPUs): the one
#                                 line is "N counters per CBo: LINE", a group of N events on
#                                 uncore_cbox_0 counts each its injection exactly, and a group
#                                 of N + 1 is refused at open (never a fault at add)
#   skl_uncore_probe.sh packages N LINE LINE0 LINE1
#                                 skl_uncore.ko on two packages that differ (vm-run --silicon
#                                 --cpus 4,sockets=2,cores=2, faults=...@1, quiet): the line
#                                 "N counters per CBo: LINE" (the fewest, and where), then one
#                                 line per package, "package P: LINEP"; on each package every
#                                 CBo takes a group of N events, exactly, and refuses N + 1
#   skl_uncore_probe.sh late LINE0 LINE1
#                                 as packages, with package 1 (CPUs 2 and 3) offline at load:
#                                 the load finds package 0's "LINE0" and leaves package 1 for
#                                 its first event, which probes it ("package 1: LINE1"); its
#                                 CBos then count a group of 2 exactly, refuse 3 and never
#                                 fault (vm-run's tally allows the probe's one #GP); package 0
#                                 keeps its 4
. /selftests/lib.sh

SIM=/sys/kernel/debug/skl_uncore_sim
ONLINE=/sys/devices/system/cpu/cpu%d/online
LOADS=${LOADS:-10}
ktap_header

online() { printf "$ONLINE" "$1"; }
# The distinct "N counters per CBo" lines of the last load.
line() { dmesg | grep -o 'skl_uncore[_a-z]*: [0-9] counters per CBo.*' | sort -u; }

# hotplug_loop: CPUs 2 and 3 (package 1) and CPU 1 (package 0) in turn offline and back,
# until /tmp/stop exists; at most one of them offline at a time.
hotplug_loop() {
	rm -f /tmp/stop
	(
		while [ ! -e /tmp/stop ]; do
			for c in 2 3 1; do
				echo 0 > "$(online $c)" 2>/dev/null
				echo 1 > "$(online $c)" 2>/dev/null
			done
		done
	) &
	loop=$!
}
stop_hotplug() {
	touch /tmp/stop
	wait $loop
	for c in 1 2 3; do echo 1 > "$(online $c)" 2>/dev/null; done
}

# group PMU BOX N [CPU]: $evs, the first N of four events that never count each other's
# injections (parts.sh has the same four) on PMU, opened on CPU when given; $cmd injects into
# each on CBo BOX (of CPU's package); $want, the counts that gives.
group() {
	evs= cmd= want= g=0
	for e in "0x8134 0x34 0x81 11" "0x1634 0x34 0x16 22" "0x4122 0x22 0x41 33" "0x4822 0x22 0x48 44"; do
		[ $g -lt $3 ] || break
		set -- "$1" "$2" "$3" "$4" $e
		evs="$evs $1/$5${4:+/cpu=$4}" want="$want $8"
		cmd="$cmd ${4:+SKL_SILICON_CPU=$4 }skl-inject cbox $2 $6 $7 $8;"
		g=$((g + 1))
	done
}
# counted: group()'s events opened as a group, each its injection: their counts.
counted() { echo $(/selftests/perf_open -g -r "$cmd" $evs 2>&1 | sed -n 's/^count \([0-9]*\) .*/\1/p'); }
# refused PMU [CPU]: group()'s events and one more, PMU/0x8f34 (on CPU), opened as a group: the
# errno name the last member gets.
refused() {
	ev=$1/0x8f34${2:+/cpu=$2}
	/selftests/perf_open -g $evs $ev 2>&1 | sed -n "s|^$ev: errno [0-9]* ||p"
}

if [ "$1" = profile ] || [ "$1" = packages ]; then
	n=$2
	dmesg -c >/dev/null
	insmod /lib/skl/skl_uncore.ko
	check "insmod skl_uncore" "0" "$?"
	check "the line: $n counters per CBo, and why" "skl_uncore: $n counters per CBo: $3" "$(line)"
	if [ "$1" = profile ]; then
		group uncore_cbox_0 0 $n
		check "a group of $n events counts each its injection, exactly" "$(echo $want)" "$(counted)"
		check "a group of $((n + 1)) is refused at open: its last member EINVAL" "EINVAL" \
			"$(refused uncore_cbox_0)"
	else
		check "then one line per package, each as it answered" \
			"skl_uncore: package 0: $4 / skl_uncore: package 1: $5" \
			"$(dmesg | grep -o 'skl_uncore: package [0-9]*: .*' | awk 'NR > 1 { printf " / " } { printf "%s", $0 }')"
		cboxes=$(ls /sys/bus/event_source/devices | grep '^uncore_cbox_' | sort)
		check "CBo PMUs (2 cores a package)" "uncore_cbox_0 uncore_cbox_1" "$(echo $cboxes)"
		# Package P through its first CPU (the backdoor too).
		for cpu in 0 2; do
			for pmu in $cboxes; do
				group $pmu ${pmu#uncore_cbox_} $n $cpu
				check "package $((cpu / 2)), $pmu: a group of $n events counts each its injection, exactly" \
					"$(echo $want)" "$(counted)"
				check "package $((cpu / 2)), $pmu: a group of $((n + 1)) is refused at open: EINVAL" "EINVAL" \
					"$(refused $pmu $cpu)"
			done
		done
	fi
	rmmod skl_uncore
	check "rmmod skl_uncore" "0" "$?"
	ktap_end
fi

if [ "$1" = late ]; then
	PO=/selftests/perf_open
	# pkg1: the lines about package 1 since the load.
	pkg1() { dmesg | grep -o 'skl_uncore: package 1: .*'; }
	# counts PMU N CPU: a group of N of group()'s events on CPU, each its injection.
	counts() {
		group $1 ${1#uncore_cbox_} $2 $3
		check "CPU $3, $1: a group of $2 events counts each its injection, exactly" "$(echo $want)" \
			"$(counted)"
	}
	for c in 2 3; do echo 0 > "$(online $c)"; done
	dmesg -c >/dev/null
	insmod /lib/skl/skl_uncore.ko
	check "insmod skl_uncore, package 1 offline" "0" "$?"
	check "the load's line is package 0's" "skl_uncore: $2" "$(line)"
	check "package 1 is left for its first event" \
		"skl_uncore: package 1: no CPU online: probed at its first event" "$(pkg1)"
	for c in 2 3; do echo 1 > "$(online $c)"; done
	check "CPUs 2 and 3 online: nothing probed yet" "1" "$(pkg1 | wc -l)"
	counts uncore_cbox_0 2 2
	check "the first event probed package 1: its line" "skl_uncore: package 1: $3" "$(pkg1 | tail -n 1)"
	for pmu in uncore_cbox_0 uncore_cbox_1; do
		counts $pmu 2 2
		check "CPU 2, $pmu: a group of 3 is refused at open: EINVAL" "EINVAL" "$(refused $pmu 2)"
		counts $pmu 4 0
	done
	# Four single events on one CBo of package 1: perf rotates them over its 2 counters; none
	# is given counter 2 or 3 (vm-run fails the run on a #GP beyond the probe's).
	$PO -r "sleep 0.2" uncore_cbox_0/0x8134/cpu=2 uncore_cbox_0/0x1634/cpu=2 \
		uncore_cbox_0/0x4122/cpu=2 uncore_cbox_0/0x4822/cpu=2 >/tmp/four 2>&1
	check "CPU 2: four single events open and are read" "4" "$(grep -c '^count ' /tmp/four)"
	check "package 1 probed once" "2" "$(pkg1 | wc -l)"
	rmmod skl_uncore
	check "rmmod skl_uncore" "0" "$?"
	ktap_end
fi

if [ "$1" = sim ]; then
	KO="/lib/skl/skl_uncore_sim.ko nr_cbox=2" MOD=skl_uncore_sim
	# probe_faults: each package's faults the probe took, "P0 P1".
	probe_faults() { echo $(sed -n 's/^probe_faults //p' $SIM/regs); }
	# load PARAMS OFFLINE WANT: with CPUs OFFLINE offline, the probe's faults per package.
	load() {
		for c in $2; do echo 0 > "$(online $c)"; done
		dmesg -c >/dev/null
		insmod $KO $1
		check "insmod $1, CPUs '$2' offline" "0" "$?"
		check "$1, CPUs '$2' offline: the probe's faults, package 0 then 1" "$3" "$(probe_faults)"
		check "$1, CPUs '$2' offline: one line, the part's count" "1" "$(line | grep -c ': 2 counters per CBo: ')"
		rmmod skl_uncore_sim
		for c in $2; do echo 1 > "$(online $c)"; done
	}
	# cbo_counters=2: PERFEVTSEL2 faults once in each package's register file.
	load "" "" "1 1"
	load "" "2" "1 1"
	load "" "1 3" "1 1"
	# No CPU of package 1 online: not probed, not a missing counter; its first event probes it.
	load "" "2 3" "1 0"
	echo 0 > "$(online 2)"; echo 0 > "$(online 3)"
	insmod $KO
	echo 1 > "$(online 2)"; echo 1 > "$(online 3)"
	check "package 1 online after load: not probed before its first event" "1 0" "$(probe_faults)"
	/selftests/perf_open -r true uncore_cbox_0/0x8f34/cpu=3 >/dev/null 2>&1
	check "its first event probed it, once" "1 1" "$(probe_faults)"
	/selftests/perf_open -r true uncore_cbox_1/0x8f34/cpu=2 >/dev/null 2>&1
	check "and no later event again" "1 1" "$(probe_faults)"
	# The count below is not always a yes: no CPU was moving during these probes.
	check "no probe counted as during CPU hotplug while none ran" "0" \
		"$(sed -n 's/^probes_in_hotplug //p' $SIM/regs)"
	rmmod skl_uncore_sim
	load "cbo_missing=1" "2" "1 1"
	KO="/lib/skl/skl_uncore_sim.ko nr_cbox=2 cbo_counters=4"
	want="skl_uncore_sim: 4 counters per CBo: MSR_UNC_CBO_0_PERFEVTSEL2 and PERFEVTSEL3 take an event with EN set"
else
	KO=/lib/skl/skl_uncore.ko MOD=skl_uncore
	want="skl_uncore: 4 counters per CBo: MSR_UNC_CBO_0_PERFEVTSEL2 and PERFEVTSEL3 take an event with EN set"
	# Another tool's programming in counters 2 and 3 of both packages (not enabled), with
	# counts: the probe puts every value back.
	for cpu in 0 2; do
		msr $cpu 0x702 0x1134; msr $cpu 0x708 0x123456
		msr $cpu 0x703 0; msr $cpu 0x709 0xabcdef
	done
	regs() { for cpu in 0 2; do for a in 0x702 0x703 0x708 0x709 0x3b2; do msr $cpu $a; done; done; }
	before=$(echo $(regs))
fi

# Loads and unloads under the hotplug loop: every load finds the part's 4 counters. The
# simulator also counts the probes that ran while a CPU was on its way up or down: it loads
# until one did (at most 60 loads), so the loop is seen to overlap a probe, not only to run.
hotplug_loop
bad= n=0 overlapped=0
while [ $n -lt $LOADS ] || { [ "$1" = sim ] && [ $overlapped = 0 ] && [ $n -lt 60 ]; }; do
	dmesg -c >/dev/null
	if insmod $KO; then
		[ "$(line)" = "$want" ] || bad="$bad [load $n: '$(line)']"
		[ "$1" != sim ] || overlapped=$((overlapped + $(sed -n 's/^probes_in_hotplug //p' $SIM/regs)))
		rmmod $MOD || bad="$bad [rmmod $n]"
	else
		bad="$bad [insmod $n failed]"
	fi
	n=$((n + 1))
done
stop_hotplug
check "$n loads under CPU hotplug: each found 4 counters" "" "$bad"
[ "$1" != sim ] || check "a probe ran while a CPU was on its way up or down ($overlapped probes, $n loads)" \
	"yes" "$([ $overlapped -gt 0 ] && echo yes)"
# A value a probe left behind stays (the next probe puts back what it reads).
[ "$1" = sim ] || check "and left counters 2 and 3 and the ARB's PERFEVTSEL0 of both packages as they were" \
	"$before" "$(echo $(regs))"
check "CPUs 1, 2, 3 back online" "1 1 1" "$(cat "$(online 1)") $(cat "$(online 2)") $(cat "$(online 3)")"
ktap_end
