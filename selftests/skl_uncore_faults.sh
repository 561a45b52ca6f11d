#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The world behind the driver's back, with events open: a reset of every MSR, another tool's
# WRMSR and a register absent on the part, through skl_uncore_sim's debugfs `fault` file. Counts must stay
# exact: what was counted before is kept, what comes after the driver's repair is counted in
# full, and no count jumps by a wrap when a counter goes back to 0.
. /selftests/lib.sh

SIM=/sys/kernel/debug/skl_uncore_sim
ktap_header

# count EVENT CMD: on a freshly loaded module (a failed case leaves nothing behind), what EVENT
# counted while CMD ran, read every 100 ms (perf stat -I) as a driver's suspend path reads
# before S3: a count read before a reset is the driver's; one not read yet is lost with the
# register. Each unload must leave no enable set and no fault (check_unloads_clean).
count() {
	insmod /lib/skl/skl_uncore_sim.ko nr_cbox=4
	# No background traffic: every count is what the test injects.
	for e in 1 2 3 4 5; do echo "imc 0 $e 0" > $SIM/rate; done
	perf stat -I 100 -x, -o /tmp/i.csv -a -e "$1" -- sh -c "$2" 2>/dev/null
	grep -v '^#' /tmp/i.csv | awk -F, 'NF > 2 { s += $2 } END { printf "%.0f", s }'
	rmmod skl_uncore_sim
}
# CMD pieces: an injection, a fault line, a pause for the interval reads / the repair (the
# watchdog runs every 10 s, with 2.5 s of slack).
inj() { echo "echo '$1' > $SIM/inject; sleep 0.5;"; }
flt() { echo "echo '$1' > $SIM/fault; sleep ${2:-13};"; }

# A reset of the MSRs between two injections: the sum, for a CBo and the ARB. The IMC counters
# are read-only in MCHBAR: only a power transition (S3, announced to the driver's syscore hook,
# skl_uncore_suspend.sh) resets them, and a reset of the MSRs leaves them counting.
check "cbox_0: 1000 before a reset, 234 after: 1234" "1234" \
	"$(count uncore_cbox_0/event=0x34,umask=0x8f/ "$(inj 'cbox 0 0x34 0x8f 1000') $(flt reset) $(inj 'cbox 0 0x34 0x8f 234')")"
check "arb: 1000 before a reset, 234 after: 1234" "1234" \
	"$(count uncore_arb/event=0x81,umask=0x01/ "$(inj 'arb 0 0x81 0x01 1000') $(flt reset) $(inj 'arb 0 0x81 0x01 234')")"
check "imc: 1000 before a reset of the MSRs, 234 after: 1234" "1234" \
	"$(count uncore_imc/event=0x1/ "$(inj 'imc 0 1 0 1000') $(flt reset 1) $(inj 'imc 0 1 0 234')")"

# Another tool clears the global enable: 13 s later the driver has set it again.
check "wrmsr 0xe01 0, then 13 s later 500 injected: 500" "500" \
	"$(count uncore_cbox_1/event=0x34,umask=0x8f/ "$(flt 'wrmsr 0xe01 0') $(inj 'cbox 1 0x34 0x8f 500')")"

# Another tool reprograms the event's PERFEVTSEL (CBo 2 counter 0): repaired.
check "a rewritten PERFEVTSEL is repaired: 700 of 700" "700" \
	"$(count uncore_cbox_2/event=0x34,umask=0x8f/ "$(flt 'wrmsr 0x720 0x408122') $(inj 'cbox 2 0x34 0x8f 700')")"

# Another tool zeroes the counter under an event that has counted 1000: no 2^44 jump.
check "a counter zeroed by another tool: 1000 + 10, no wrap" "1010" \
	"$(count uncore_cbox_3/event=0x34,umask=0x8f/ "$(inj 'cbox 3 0x34 0x8f 1000') $(flt 'wrmsr 0x736 0' 1) $(inj 'cbox 3 0x34 0x8f 10')")"

# One line names each register found changed (at most one a second).
check "the log names MSR_UNC_PERF_GLOBAL_CTRL" "yes" \
	"$(dmesg | grep -q 'MSR_UNC_PERF_GLOBAL_CTRL (0xe01) was reset or changed by someone else' && echo yes)"
check "the log names MSR_UNC_CBO_2_PERFEVTSEL0" "yes" \
	"$(dmesg | grep -q 'MSR_UNC_CBO_2_PERFEVTSEL0 (0x720) was reset or changed by someone else' && echo yes)"
check_unloads_clean 6

# CBo 1's PERFEVTSEL1 is absent (as counters 2 and 3 are on some parts): the event perf gives
# that counter first is refused at add (EIO) and one line says why; from then on the box uses
# counter 0 alone and perf rotates both events there. The register is tried once, never again.
insmod /lib/skl/skl_uncore_sim.ko nr_cbox=4
for e in 1 2 3 4 5; do echo "imc 0 $e 0" > $SIM/rate; done
echo "absent 0x711" > $SIM/fault
out=$(/selftests/perf_open -r "echo 'cbox 1 0x34 0x8f 100' > $SIM/inject; sleep 2.5" \
	uncore_cbox_1/0x8f34 uncore_cbox_1/0x1134 2>&1)
echo "$out" | sed 's/^/# /'
rmmod skl_uncore_sim
check "an absent PERFEVTSEL is named once in the log" "1" \
	"$(dmesg | grep -c 'MSR_UNC_CBO_1_PERFEVTSEL1 (0x711) faulted when written')"
check "it was written once, not again at every rotation or watchdog tick" "faults 1" \
	"$(dmesg | grep 'skl_uncore_sim: unload:' | tail -n1 | grep -o 'faults [0-9]*')"
check "both events ran in turn on the counter that works" "2" \
	"$(echo "$out" | grep -c '^count [0-9]* enabled [0-9]* running [1-9]')"
ktap_end
