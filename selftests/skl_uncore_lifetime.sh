#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Unload while package timers are armed and the IPIs that take them home are in flight
# (vm-run --cpus 4,sockets=2,cores=2; package 1 is CPUs 2-3). Two test hooks of the simulator:
# leak_live=1 keeps a package's live count at 1 once an event was there, as if perf had left
# one behind, so its timer is still armed at rmmod; ipi_delay_ms=N makes the IPI taking a
# timer home complete N ms late (from a work item), as when its target is a preempted virtual
# CPU: RCU grace periods pass meanwhile. Each round arms package 1's timer on CPU 2, takes CPU 2
# offline (the kernel moves the timer to package 0, which sends it home by IPI at its next
# expiry) and unloads at a random moment of the following second. Unload must cancel the
# timer wherever it is, wait for an IPI in flight, warn once with the live count, and free
# nothing under them: KASAN reports a use-after-free, CONFIG_DEBUG_ATOMIC_SLEEP a drop in hard
# irq (the simulator's hardware checks it is dropped where RealHw's iounmap could sleep), and
# a timer left armed fires into the unloaded module's text. Any of them fails the VM run.
# Usage: skl_uncore_lifetime.sh [ROUNDS]
. /selftests/lib.sh

SIM=/sys/kernel/debug/skl_uncore_sim
PO=/selftests/perf_open
CPU=/sys/devices/system/cpu
KO=/lib/skl/skl_uncore_sim.ko
ROUNDS=${1:-8}
warned() { dmesg | grep -c 'skl_uncore_sim: 1 events still live at unload'; }
ktap_header

# Alone first: a timer armed at unload, on its home CPU.
insmod $KO leak_live=1 || { echo "Bail out! insmod failed"; exit 1; }
$PO -r true uncore_imc/1/cpu=2 > /dev/null
rmmod skl_uncore_sim
check "rmmod with package 1's timer armed succeeds" "0" "$?"
# Longer than the timer's period: a timer left armed would have fired into freed text by now.
sleep 2
check "one warning line, with the live count" "1" "$(warned)"

# Odd rounds unload the moment the timer's IPI is seen in flight (for 300 ms; at most 15 s), even
# rounds at a random moment of the second after CPU 2 went (the timer sitting on package 0,
# or on its way, or home).
homed=0 unloaded=0 r=0
while [ $r -lt "$ROUNDS" ]; do
	r=$((r + 1))
	insmod $KO leak_live=1 ipi_delay_ms=300 || { echo "Bail out! insmod failed"; exit 1; }
	$PO -r true uncore_imc/1/cpu=2 > /dev/null
	echo 0 > $CPU/cpu2/online
	if [ $((r % 2)) = 1 ]; then
		# The timer's next expiry sends the IPI: within the MSR watchdog's period and slack
		# (12.5 s) once the IMC event is gone.
		i=0 seen=0 until_s=$(($(date +%s) + 15))
		while [ "$(date +%s)" -lt $until_s ]; do
			i=$((i + 1))
			grep -q ' in_flight [1-9]' $SIM/regs && { seen=1; break; }
		done
		rmmod skl_uncore_sim && unloaded=$((unloaded + 1))
		echo "# round $r: unloaded $([ $seen = 1 ] && echo "with an IPI seen in flight" || echo "(no IPI seen)") after $i polls"
		homed=$((homed + seen))
	else
		usleep $((RANDOM % 1000 * 1000))
		h=$(sed -n 's/.* homings \([0-9]*\) in_flight \([0-9]*\) .*/\1 \2/p' $SIM/regs)
		rmmod skl_uncore_sim && unloaded=$((unloaded + 1))
		echo "# round $r: unloaded at a random moment; homings, in flight just before: $h"
		homed=$((homed + ${h%% *} + ${h##* }))
	fi
	echo 1 > $CPU/cpu2/online
done
sleep 2
check "$ROUNDS unloads with the timer off its package or on its way home" "$ROUNDS" "$unloaded"
check "each warned once" "$((ROUNDS + 1))" "$(warned)"
check "the timer went home by IPI before some unload" "yes" \
	"$([ "$homed" -gt 0 ] && echo yes || echo "no ($homed)")"
waited=$(dmesg | grep -c 'stop: waiting for an IPI in flight')
check "some unload found an IPI in flight and waited for it" "yes" \
	"$([ "$waited" -gt 0 ] && echo "yes" || echo "no")"
echo "# unloads that waited for an IPI in flight: $waited of $ROUNDS"
check_unloads_clean $((ROUNDS + 1))
ktap_end
