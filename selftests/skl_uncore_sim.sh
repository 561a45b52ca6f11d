#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Selftests of skl_uncore_sim.ko in the VM: PMUs, sysfs, counting against the simulator.
. /selftests/lib.sh

DEV=/sys/bus/event_source/devices
SIM=/sys/kernel/debug/skl_uncore_sim
ktap_header

if insmod /lib/skl/skl_uncore_sim.ko nr_cbox=4 uclk_mhz=1000; then ok "insmod skl_uncore_sim"; else not_ok "insmod skl_uncore_sim" "failed"; fi

pmus=$(cd $DEV && ls -d uncore_* | tr '\n' ' ')
check "PMUs registered" "uncore_arb uncore_cbox_0 uncore_cbox_1 uncore_cbox_2 uncore_cbox_3 uncore_clock uncore_imc " "$pmus"
check "cpumask is the collector" "0" "$(cat $DEV/uncore_clock/cpumask)"
check "clock format/event" "config:0-7" "$(cat $DEV/uncore_clock/format/event)"
check "clock events/clockticks" "event=0xff" "$(cat $DEV/uncore_clock/events/clockticks)"
check "cbox formats" "cmask=config:24-28 edge=config:18 event=config:0-7 inv=config:23 umask=config:8-15" \
	"$(cd $DEV/uncore_cbox_0/format && for f in *; do printf '%s=%s ' $f "$(cat $f)"; done | sed 's/ $//')"
check "cbox event alias" "event=0x34,umask=0x8f" "$(cat $DEV/uncore_cbox_0/events/unc_cbo_cache_lookup.any_mesi)"
check "clockticks only on cbox_0" "no" "$([ -e $DEV/uncore_cbox_1/events/clockticks ] && echo yes || echo no)"
check "imc scale" "6.103515625e-5" "$(cat $DEV/uncore_imc/events/data_reads.scale)"

# UCLK is simulated at 1000 MHz: clockticks over the counting time must be within 5% of it.
perf stat -x, -o /tmp/clock.csv -a -e uncore_clock/clockticks/ -- sleep 1
count=$(perf_count /tmp/clock.csv)
runtime=$(perf_runtime /tmp/clock.csv)
rate_ppm=$(( count / (runtime / 1000) ))   # counts per microsecond = MHz
if [ "$rate_ppm" -ge 950 ] && [ "$rate_ppm" -le 1050 ]; then
	ok "uncore_clock/clockticks/ counts UCLK ($count in $runtime ns = $rate_ppm MHz)"
else
	not_ok "uncore_clock/clockticks/ counts UCLK" "$count in $runtime ns = $rate_ppm MHz, expected 1000 +- 5%"
fi

# Injected events are counted exactly.
perf stat -x, -o /tmp/cbox.csv -a -e uncore_cbox_0/event=0x34,umask=0x8f/ -- \
	sh -c "echo 'cbox 0 0x34 0x8f 12345' > $SIM/inject"
check "cbox_0 counts an injection of 12345 exactly" "12345" "$(perf_count /tmp/cbox.csv)"

perf stat -x, -o /tmp/arb.csv -a -e uncore_arb/event=0x81,umask=0x01/ -- \
	sh -c "echo 'arb 0 0x81 0x01 777' > $SIM/inject"
check "arb counts an injection of 777 exactly" "777" "$(perf_count /tmp/arb.csv)"

perf stat -x, -o /tmp/pcm.csv -a -e uncore_cbox_1/config=0x408f34/ -- \
	sh -c "echo 'cbox 1 0x34 0x81 5' > $SIM/inject"
check "PCM's EN bit (22) accepted; cbox_1 counts 5" "5" "$(perf_count /tmp/pcm.csv)"

if perf stat -x, -o /tmp/bad.csv -a -e uncore_clock/event=0x34/ -- true 2>/dev/null; then
	not_ok "clock refuses event=0x34" "perf stat succeeded"
else
	ok "clock refuses event=0x34"
fi

check "no register faults (reserved bits, unknown MSRs)" "0" "$(sed -n 's/^accesses .* faults \([0-9]*\)$/\1/p' $SIM/regs)"

if rmmod skl_uncore_sim; then ok "rmmod skl_uncore_sim"; else not_ok "rmmod skl_uncore_sim" "failed"; fi
check "PMUs gone after rmmod" "" "$(ls $DEV | grep uncore_)"
check_unloads_clean 1
ktap_end
