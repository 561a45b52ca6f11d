#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A real suspend-to-idle with a frozen clock, as on a laptop, while skl_uncore.ko counts UCLK
# and LLC lookups on the emulated silicon (vm-run --silicon --s2idle-wake SEC --add
# s2idle_halt.ko). The test cpuidle driver s2idle_halt.ko gives the guest an idle state with
# ->enter_s2idle, so the s2idle loop reaches tick_freeze() on every CPU and timekeeping is
# suspended: CLOCK_MONOTONIC stops while the uncore keeps counting. The host wakes the guest
# through ttyS1 after SEC seconds and tells it how long it waited. Checked: the clock really
# froze (CLOCK_MONOTONIC advanced less than half the host's wait, CLOCK_BOOTTIME by the
# wait), both counts equal the model's tally and hold the whole sleep, and the driver logged
# nothing (no register was reset: s2idle keeps the uncore's state). Then a second sleep, with
# another tool's write to the lookups' PERFEVTSEL0 just before it: the wake finds the register
# changed, so it counts the sleep's step only if the time since the last fold allows it, which
# the boot clock does and the frozen CLOCK_MONOTONIC would not. UCLK is exact again, the
# lookups short by no more than the wake's re-basing takes, and the driver repairs the register
# and says so once.
#
# Usage: skl_uncore_s2idle.sh [SEC]   SEC: the host's --s2idle-wake delay (default 30)
. /selftests/lib.sh

sec=${1:-30}
PO=/selftests/perf_open
CPUIDLE=/sys/devices/system/cpu/cpuidle
# UCLK 800 MHz; LLC lookups at 1e9/s, a busy LLC: over SEC seconds both step further than
# the top rate (5e9/s) allows in the second or so of CLOCK_MONOTONIC the sleep shows.
uclk=800000000 lookups=1000000000
ktap_header

grep -qw freeze /sys/power/state || { echo "Bail out! no suspend-to-idle in /sys/power/state"; exit 1; }
[ -e /sys/class/tty/ttyS1/power/wakeup ] || { echo "Bail out! no ttyS1 wakeup (vm-run --s2idle-wake)"; exit 1; }
check "no idle driver of its own in this guest" "none" "$(cat $CPUIDLE/current_driver 2>&1)"
insmod /add/s2idle_halt.ko || { echo "Bail out! insmod s2idle_halt.ko failed (CONFIG_CPU_IDLE?)"; exit 1; }
check "s2idle_halt is the idle driver" "s2idle_halt" "$(cat $CPUIDLE/current_driver)"
insmod /lib/skl/skl_uncore.ko || { echo "Bail out! insmod skl_uncore failed"; exit 1; }
# Its suspend-to-idle hooks: the noirq callbacks of a platform driver and device of its name.
check "skl_uncore's platform device is bound to its driver" "skl_uncore" \
	"$(basename "$(readlink /sys/bus/platform/devices/skl_uncore/driver)")"
skl-silicon rate clock 0 $uclk
skl-silicon rate cbox 0 $lookups

# The wakeup source: ttyS1 held open, raw, wakeup enabled; what the host writes lands in
# /tmp/wake.
stty -F /dev/ttyS1 raw -echo
echo enabled > /sys/class/tty/ttyS1/power/wakeup
# CLOCK_MONOTONIC (ns, /proc/timer_list's "now") and CLOCK_BOOTTIME (s, /proc/uptime).
cat > /tmp/clocks <<'EOF'
echo $(sed -n 's/^now at \([0-9]*\) nsecs$/\1/p' /proc/timer_list | head -n1) $(cut -d' ' -f1 /proc/uptime)
EOF

# The kernel's log since the last freeze_once (dmesg -c would hide the boot from vm-run's
# splat scan).
since() { dmesg | tail -n +$((n0 + 1)); }

# freeze_once BEFORE AFTER: one suspend-to-idle while both events count, the command BEFORE
# run just before it and AFTER 1.5 s after it. A reader on CPU 0 reads both events in a loop
# (perf_open -R 1): the first read after the wakeup folds the sleep's step while the events
# stay open, so a step taken for a reset would also be logged by the package timer within
# those 1.5 s. Sets out, counts, host (the host's wait, from ttyS1), dmono, dboot (the clocks
# across the freeze), tclk and tcbo (the model's tally).
freeze_once() {
	n0=$(dmesg | wc -l)
	rm -f /tmp/wake /tmp/frc
	cat /dev/ttyS1 > /tmp/wake &
	catpid=$!
	skl-silicon tally-reset
	out=$($PO -R 1 -r "sleep 1.5; sh /tmp/clocks > /tmp/t0; $1; echo sleep > /dev/ttyS1
		echo freeze > /sys/power/state; echo \$? > /tmp/frc
		sh /tmp/clocks > /tmp/t1; echo awake > /dev/ttyS1; sleep 1.5; $2" \
		uncore_clock/0xff uncore_cbox_0/0x8f34 2>&1)
	tclk=$(skl-silicon tally clock 0 | cut -d' ' -f1)
	tcbo=$(skl-silicon tally cbox 0 | cut -d' ' -f1)
	kill $catpid
	wait $catpid 2>/dev/null
	echo "$out" | sed 's/^/# /'
	counts=$(echo $(echo "$out" | sed -n 's/^count \([0-9]*\) .*/\1/p'))
	host=$(head -n1 /tmp/wake | tr -d '\r')
	read -r m0 b0 < /tmp/t0
	read -r m1 b1 < /tmp/t1
	dmono=$(awk -v a="$m0" -v b="$m1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
	dboot=$(awk -v a="$b0" -v b="$b1" 'BEGIN { printf "%.2f", b - a }')
	echo "# host waited ${host:-?} s; across the freeze CLOCK_MONOTONIC advanced $dmono s, CLOCK_BOOTTIME $dboot s"
	echo "# model's tally: clock $tclk, cbox_0 $tcbo"
}

# passes: the suspend-to-idle entries and exits the kernel logged since freeze_once began.
passes() { echo "$(since | grep -c 'PM: suspend entry (s2idle)') $(since | grep -c 'PM: suspend exit')"; }

# frozen: "yes" if CLOCK_MONOTONIC advanced less than half the host's wait across the freeze.
frozen() {
	awk -v m="$dmono" -v h="${host:-0}" 'BEGIN { print (h > 0 && m < h / 2 ? "yes" : "no (" m " s of " h " s)") }'
}

# held WHAT: WHAT (the counts) hold the sleep, at least UCLK and the lookup rate times the
# host's wait.
held() {
	set -- "$1" $counts
	check "$1 hold the sleep: at least UCLK and the lookup rate times the host's wait" "yes yes" \
		"$(awk -v c="${2:-0}" -v l="${3:-0}" -v h="${host:-0}" -v u=$uclk -v r=$lookups \
			'BEGIN { print (c >= u * h ? "yes" : "no"), (l >= r * h ? "yes" : "no") }')"
}

freeze_once : :
check "echo freeze > /sys/power/state returned 0" "0" "$(cat /tmp/frc)"
check "the guest went through suspend-to-idle and back" "1 1" "$(passes)"
usage=$(cat /sys/devices/system/cpu/cpu[0-9]*/cpuidle/state1/s2idle/usage | awk '$1 > 0' | wc -l)
check "every CPU entered the s2idle state (tick_freeze() on each)" \
	"$(ls -d /sys/devices/system/cpu/cpu[0-9]* | wc -l)" "$usage"
check "the host woke the guest after waiting at least $sec s" "yes" \
	"$(awk -v h="${host:-0}" -v s="$sec" 'BEGIN { print (h >= s ? "yes" : "no (" h ")") }')"
check "the clock froze: CLOCK_MONOTONIC advanced less than half the host's wait" "yes" "$(frozen)"
check "CLOCK_BOOTTIME took in the sleep: the host's wait, -2 s .. +10 s" "yes" \
	"$(awk -v b="$dboot" -v h="${host:-0}" 'BEGIN { print (b >= h - 2 && b <= h + 10 ? "yes" : "no (" b " s)") }')"
check "clockticks and LLC lookups across s2idle = the model's tally" "$tclk $tcbo" "$counts"
held "the counts"
check "the driver logged nothing (no register found reset or changed)" "" "$(since | grep skl_uncore)"

# Another tool sets the lookups' threshold to 1 (which passes every event on) just before the
# second sleep: the step the wake folds is then suspect, and the driver counts it only if the
# time since the last fold allows it (at most 5e9 lookups a second).
freeze_once "msr 0 0x700 > /tmp/ctl0; msr 0 0x700 0x1408f34" "msr 0 0x700 > /tmp/ctl1"
check "second sleep: PERFEVTSEL0 held the driver's lookups (0x408f34) before the other tool's write" \
	"0x408f34" "$(cat /tmp/ctl0)"
check "second sleep: through suspend-to-idle and back, the clock frozen again" "0 1 1 yes" \
	"$(cat /tmp/frc) $(passes) $(frozen)"
# The wake folds the counter, writes the control back and reads the counter again for a new
# baseline: what it counted between the two reads (under either control) is not the event's.
# Measured on the lockdep kernel: 213,750 and 180,171 lookups (0.2 ms); with the judge on the
# monotonic clock instead, the sleep's 30e9 were lost.
set -- $counts
check "second sleep, register changed: clockticks = the model's tally, LLC lookups under it by at most 50 ms of them" \
	"$tclk yes" "${1:-none} $(awk -v c="${2:-0}" -v t="$tcbo" -v r=$lookups \
		'BEGIN { print (c <= t && t - c <= r / 20 ? "yes" : "no (" t - c " under)") }')"
held "second sleep: the counts"
check "second sleep: the driver said once that PERFEVTSEL0 was changed, and nothing else" "1 1" \
	"$(since | grep -c skl_uncore) $(since | grep -c 'MSR_UNC_CBO_0_PERFEVTSEL0 (0x700) was reset or changed by someone else')"
check "second sleep: the driver programmed PERFEVTSEL0 again" "0x408f34" "$(cat /tmp/ctl1)"
rmmod skl_uncore
check "rmmod skl_uncore" "0" "$?"
rmmod s2idle_halt
check "rmmod s2idle_halt: no idle driver again" "none" "$(cat $CPUIDLE/current_driver)"
ktap_end
