#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Stress: an attr fuzzer, load/unload cycles with events open half the time, and a wrap soak
# at high rates on every counter with random injections and readers on every CPU.
# Sizes from the environment (make check runs the short defaults, make stress the long ones):
#   SKL_FUZZ_OPENS (20000), SKL_LOAD_CYCLES (20), SKL_SOAK_SECONDS (10).
. /selftests/lib.sh

DEV=/sys/bus/event_source/devices
SIM=/sys/kernel/debug/skl_uncore_sim
KO=/lib/skl/skl_uncore_sim.ko
PO=/selftests/perf_open
OPENS=${SKL_FUZZ_OPENS:-20000}
CYCLES=${SKL_LOAD_CYCLES:-20}
SOAK=${SKL_SOAK_SECONDS:-10}
ktap_header
echo "# fuzz $OPENS opens, $CYCLES load cycles, soak $SOAK s"

quiet() {
	echo "clock 0 0 0" > $SIM/rate
	for e in 1 2 3 4 5; do echo "imc 0 $e 0" > $SIM/rate; done
}
inj() { echo "echo '$*' > $SIM/inject"; }
# Injects into every unit and checks each event counted exactly what was injected.
exact_counts() {
	quiet
	c=$($PO -r "$(inj cbox 2 0x34 0x8f 123); $(inj arb 0 0x81 1 45); $(inj clock 0 0xff 0 67); $(inj imc 0 3 0 89)" \
		uncore_cbox_2/0x8f34 uncore_arb/0x181 uncore_clock/0xff uncore_imc/3 | sed -n 's/^count \([0-9]*\) .*/\1/p')
	echo $c
}

# --- fuzzing ------------------------------------------------------------------------------
insmod $KO
surprises=0
for seed in 1 2 3; do
	out=$(/selftests/fuzz $seed $((OPENS / 3)))
	surprises=$((surprises + $?))
	echo "$out" | sed 's/^#* */# seed '$seed': /'
done
check "fuzzed $OPENS opens: only documented errnos" "0" "$surprises"
check "no fd left open on our PMUs (module unpinned)" "0" "$(awk '$1 == "skl_uncore_sim" { print $3 }' /proc/modules)"
check "counts still exact after fuzzing" "123 45 67 89" "$(exact_counts)"
check "no register fault while fuzzing" "0" "$(sed -n 's/^accesses .* faults \([0-9]*\)$/\1/p' $SIM/regs)"
check "no constraint violation while fuzzing" "0" "$(sed -n 's/^violations \([0-9]*\)$/\1/p' $SIM/regs)"
rmmod skl_uncore_sim

# --- load/unload cycles -------------------------------------------------------------------
fail=0
i=0
while [ $i -lt $CYCLES ]; do
	insmod $KO || fail=$((fail + 1))
	[ "$(exact_counts)" = "123 45 67 89" ] || fail=$((fail + 1))
	if [ $((i % 2)) = 1 ]; then
		# rmmod while events are open: refused, and the events keep counting.
		c=$($PO -r "rmmod skl_uncore_sim 2>/dev/null && echo unloaded >&2; $(inj arb 0 0x81 1 5)" uncore_arb/0x181 |
			sed -n 's/^count \([0-9]*\) .*/\1/p')
		[ "$c" = 5 ] || fail=$((fail + 1))
	fi
	rmmod skl_uncore_sim || fail=$((fail + 1))
	i=$((i + 1))
done
check "$CYCLES insmod/perf/rmmod cycles, events open at rmmod half the time" "0" "$fail"

# --- wrap soak ----------------------------------------------------------------------------
insmod $KO
# Every counter at the top rate the driver assumes for it, or the model's: CBo 5e9/s (one
# event per UCLK cycle at 5 GHz: a faster step is taken for a reset), ARB 1e10/s (the model's
# highest), UCLK at 5 GHz, every IMC counter at 1.5e9/s (a 32-bit wrap every 2.9 s). 44- and
# 48-bit counters start close enough to their wrap point to wrap half way through. Now and
# then the package timer is held off for 1.5 s (a late poll: more than half the IMC wrap time).
# The rates start once every event is enabled and stop before any is disabled: each enable
# and disable reschedules the other events, and what a counter counts between an event's del
# and its add belongs to no event (perf's times exclude it too), while the model's totals, the
# exact reference here, would include it. (The IMC counts were compared with rate x running
# time, within 0.1 %: perf's clock and the counter reads are not taken at the same instant,
# which a vCPU the host keeps waiting shifts apart.)
rates() {
	echo "echo 'clock 0 0 $1' > $SIM/rate; echo 'arb 0 0 $2' > $SIM/rate; echo 'cbox 0 0 $1' > $SIM/rate"
	for e in 1 2 3 4 5; do echo "echo 'imc 0 $e $3' > $SIM/rate"; done
}
for c in 0 1; do
	echo "arb 0 $c $(( (1 << 44) - SOAK * 10000000000 / 2 ))" > $SIM/preset
	echo "cbox 0 $c $(( (1 << 44) - SOAK * 5000000000 / 2 ))" > $SIM/preset
done
echo "clock 0 0 $(( (1 << 48) - SOAK * 5000000000 / 2 ))" > $SIM/preset
# The model's totals in the events' order: cbox 0's two counters, the ARB's two, the fixed
# counter, then the IMC's DRAM_DATA_READS and fifth counter (uncore_imc/1 and /5).
totals() {
	awk '/^totals fixed / { c = $8 " " $9 " " $5 " " $6 " " $3 } /^totals imc / { i = $3 " " $7 }
		END { print c, i }' $SIM/regs
}
eval "$(rates 0 0 0)"
before=$(totals)
out=$($PO -R 2 -r "$(rates 5000000000 10000000000 1500000000); end=\$((\$(date +%s) + $SOAK))
	while [ \$(date +%s) -lt \$end ]; do
		echo \"cbox 0 0x34 0x8f \$RANDOM\" > $SIM/inject; echo \"arb 0 0x81 0x01 \$RANDOM\" > $SIM/inject
		echo \"clock 0 0xff 0 \$RANDOM\" > $SIM/inject; sleep 0.\$((RANDOM % 10))
		[ \$((RANDOM % 8)) = 0 ] && echo 'late 1500' > $SIM/fault; done; $(rates 0 0 0)" \
	uncore_cbox_0/0x8f34 uncore_cbox_0/0x2134 uncore_arb/0x181 uncore_arb/0x180 uncore_clock/0xff \
	uncore_imc/1 uncore_imc/5 2>/dev/null)
after=$(totals)
quiet
echo "arb 0 0 0" > $SIM/rate
echo "cbox 0 0 0" > $SIM/rate
echo "$out" | grep -v '^count' | sed 's/^/# /'
counts=$(echo $(echo "$out" | sed -n 's/^count \([0-9]*\) .*/\1/p'))
# The ARB occupancy event (counter 0 only) displaced the first ARB event to counter 1 when it
# arrived: the model's per-counter totals then split that event's count, so compare the ARB sum.
expect=$(echo $before $after |
	awk '{ printf "%.0f %.0f %.0f %.0f %.0f %.0f", $8-$1, $9-$2, $10-$3+$11-$4, $12-$5, $13-$6, $14-$7 }')
got=$(echo $counts | awk '{ printf "%.0f %.0f %.0f %.0f %.0f %.0f", $1, $2, $3+$4, $5, $6, $7 }')
echo "# counts $got"
echo "# model  $expect"
check "soak: cbox, arb and fixed counts equal the model's totals exactly, across wraps" \
	"$(echo $expect | cut -d' ' -f1-4)" "$(echo $got | cut -d' ' -f1-4)"
check "soak: IMC counts equal the model's totals exactly, across 32-bit wraps (each over 2^32)" \
	"$(echo $expect | cut -d' ' -f5-6) yes" "$(echo $got | cut -d' ' -f5-6) $(echo $expect |
		awk '{ print ($5 > 4294967296 && $6 > 4294967296) ? "yes" : "no" }')"
check "soak: no register fault" "0" "$(sed -n 's/^accesses .* faults \([0-9]*\)$/\1/p' $SIM/regs)"
rmmod skl_uncore_sim
check_unloads_clean $((CYCLES + 2))
ktap_end
