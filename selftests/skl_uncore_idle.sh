#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A late poll and a real suspend-to-idle with events open. The IMC counts at the assumed top
# DRAM rate (1.6e9 lines/s, a 32-bit wrap every 2.68 s) while the package timer is held off
# for 1.5 s, more than half the wrap time: twice, once awake (interrupts off, a busy lock) and
# once across `echo freeze > /sys/power/state`, where no syscore hook runs (the simulator's
# `idle` wakes the system when the hold ends, as a wake-up interrupt would). Every count stays
# exact and nothing is reported changed: the IMC counters are read-only, a late step is no
# reset.
. /selftests/lib.sh

SIM=/sys/kernel/debug/skl_uncore_sim
PO=/selftests/perf_open
ktap_header

grep -qw freeze /sys/power/state || { echo "Bail out! no suspend-to-idle in /sys/power/state"; exit 1; }
insmod /lib/skl/skl_uncore_sim.ko || { echo "Bail out! insmod failed"; exit 1; }
echo "clock 0 0 0" > $SIM/rate
for e in 1 2 3 4 5; do echo "imc 0 $e 0" > $SIM/rate; done
inj() { echo "echo '$*' > $SIM/inject"; }

t0=$(imc_total)
out=$($PO -r "echo 'imc 0 1 1600000000' > $SIM/rate; $(inj cbox 0 0x34 0x8f 1000); sleep 0.7
	echo 'late 1500' > $SIM/fault; sleep 2.5; $(inj cbox 0 0x34 0x8f 200)
	echo 'idle 1500' > $SIM/fault; echo freeze > /sys/power/state; echo \$? > /tmp/frc
	sleep 1; $(inj cbox 0 0x34 0x8f 34); echo 'imc 0 1 0' > $SIM/rate" \
	uncore_imc/1 uncore_cbox_0/0x8f34 2>&1)
t1=$(imc_total)
echo "$out" | sed 's/^/# /'
counts=$(echo $(echo "$out" | sed -n 's/^count \([0-9]*\) .*/\1/p'))
echo "# model total $t0 -> $t1"
check "echo freeze > /sys/power/state returned 0" "0" "$(cat /tmp/frc)"
check "the guest went through suspend-to-idle and back" "1 1" \
	"$(dmesg | grep -c 'PM: suspend entry (s2idle)') $(dmesg | grep -c 'PM: suspend exit')"
check "the IMC counter wrapped meanwhile" "yes" \
	"$([ $((t1 - t0)) -gt $((1 << 32)) ] && echo yes || echo "no ($((t1 - t0)))")"
check "IMC count across two late polls equals the model's total; CBo count exact" \
	"$((t1 - t0)) 1234" "$counts"
check "no register was reported changed" "0" "$(dmesg | grep -c 'changed by someone else')"
# The engine's hooks run from the noirq callbacks of a platform driver and device named after
# the module (kabi/pm/s2idle.rs), once each for the one sleep; S3's syscore pair does not.
check "the module's platform device is bound to its driver" "skl_uncore_sim" \
	"$(basename "$(readlink /sys/bus/platform/devices/skl_uncore_sim/driver)")"
check "the engine's suspend-to-idle hooks ran once each" "s2idle suspends 1 wakes 1" \
	"$(grep '^s2idle ' $SIM/regs)"
check "the driver has no bind or unbind file: the hooks cannot be unbound by hand" "none" \
	"$(ls /sys/bus/platform/drivers/skl_uncore_sim/ | grep -xE 'bind|unbind' || echo none)"
rmmod skl_uncore_sim
check_unloads_clean 1
ktap_end
