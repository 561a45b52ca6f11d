#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The CBo-count rule in the module (MSR_UNC_CBO_CONFIG and the core count decide how many
# uncore_cbox_N register; arb, clock and imc always do), the simulator's cbo_config/cores
# parameters, and the parsing of its debugfs `fault` file.
#
#   skl_uncore_cbo.sh             skl_uncore_sim.ko (any CPU)
#   skl_uncore_cbo.sh production PMUS LINE
#                                 skl_uncore.ko on the emulated silicon with a given
#                                 MSR_UNC_CBO_CONFIG (boot with initcall_blacklist=
#                                 intel_uncore_init where intel_uncore is built in)
. /selftests/lib.sh

DEV=/sys/bus/event_source/devices
SIM=/sys/kernel/debug/skl_uncore_sim
KO=/lib/skl/skl_uncore_sim.ko
ktap_header

pmus() { (cd $DEV && ls -d uncore_* 2>/dev/null | tr '\n' ' '); }
# The distinct log lines of module $1 since the last `dmesg -c`, without timestamps (busybox
# insmod retries a failed finit_module with init_module: a refusal logs its line twice).
log() { dmesg | grep "$1: " | grep -v 'taints kernel' | sed 's/^\[[^]]*\] //' | sort -u; }
cboxes() { n=0; s=; while [ $n -lt $1 ]; do s="${s}uncore_cbox_$n "; n=$((n + 1)); done; echo "$s"; }

if [ "$1" = production ]; then
	# production PMUS LINE: skl_uncore.ko on the emulated silicon (vm-run --silicon, its
	# cbo-config option sets MSR_UNC_CBO_CONFIG): exactly PMUS register and the one CBo line,
	# with the core count as N, is LINE.
	dmesg -c >/dev/null
	insmod /lib/skl/skl_uncore.ko
	check "skl_uncore loads whatever the CBo count" "0" "$?"
	check "PMUs registered" "$2" "$(pmus)"
	check "one line says how many CBo PMUs and why" "skl_uncore: Skylake: $3" \
		"$(log skl_uncore | grep CBO_CONFIG | sed 's/), [0-9]* cores:/), N cores:/')"
	rmmod skl_uncore
	check "rmmod skl_uncore" "0" "$?"
	ktap_end
fi

# load PARAMS NR_CBOX_PMUS WHY: loads the simulator with PARAMS; exactly NR_CBOX_PMUS CBo PMUs
# plus arb, clock and imc register, and the one CBo line ends in WHY.
load() {
	dmesg -c >/dev/null
	insmod $KO $1
	check "insmod $1" "0" "$?"
	check "$1: $2 CBo PMUs, arb, clock, imc" "uncore_arb $(cboxes $2)uncore_clock uncore_imc " "$(pmus)"
	check "$1: the CBo line" "1 $3" \
		"$(log skl_uncore_sim | grep -c MSR_UNC_CBO_CONFIG) $(log skl_uncore_sim | grep MSR_UNC_CBO_CONFIG)"
	rmmod skl_uncore_sim
	check_unload_line "$1"
}

check_unload_line() {
	check "$1: unloads clean" "1" \
		"$(log skl_uncore_sim | grep -c 'unload: global_ctrl 0x0 fixed_ctrl 0x0 enabled 0 faults 0 violations 0$')"
}

L="skl_uncore_sim: MSR_UNC_CBO_CONFIG"
load "nr_cbox=4" 4 "$L 0x5 (NO_CBO_BANKS 5), 4 cores: 4 CBo PMUs (NO_CBO_BANKS - 1 = 4)"
load "nr_cbox=4 cbo_config=0" 0 "$L 0x0 (NO_CBO_BANKS 0), 4 cores: 0 CBo PMUs (0 or 1 reports none)"
load "nr_cbox=4 cbo_config=1 cores=1" 0 "$L 0x1 (NO_CBO_BANKS 1), 1 core: 0 CBo PMUs (0 or 1 reports none)"
load "nr_cbox=4 cbo_config=2" 1 "$L 0x2 (NO_CBO_BANKS 2), 4 cores: 1 CBo PMU (NO_CBO_BANKS - 1 = 1)"
load "nr_cbox=8 cbo_config=6 cores=6" 6 \
	"$L 0x6 (NO_CBO_BANKS 6), 6 cores: 6 CBo PMUs (equal to the core count: the count itself)"
load "nr_cbox=8 cbo_config=9 cores=4" 4 \
	"$L 0x9 (NO_CBO_BANKS 9), 4 cores: 4 CBo PMUs (NO_CBO_BANKS - 1 = 8, clamped to the core count)"
load "nr_cbox=8 cbo_config=15 cores=10" 8 \
	"$L 0xf (NO_CBO_BANKS 15), 10 cores: 8 CBo PMUs (NO_CBO_BANKS - 1 = 14, clamped to 8, the most with known MSR addresses)"
load "nr_cbox=8 cbo_config=10 cores=10" 8 \
	"$L 0xa (NO_CBO_BANKS 10), 10 cores: 8 CBo PMUs (equal to the core count: the count itself, clamped to 8, the most with known MSR addresses)"
# Reserved bits 63:4 are not part of the count.
load "nr_cbox=4 cbo_config=0x7ffffffffffffff5" 4 \
	"$L 0x7ffffffffffffff5 (NO_CBO_BANKS 5), 4 cores: 4 CBo PMUs (NO_CBO_BANKS - 1 = 4)"

# refuse PARAMS ERRNO LINE: insmod fails with ERRNO, one log line, nothing registered.
refuse() {
	dmesg -c >/dev/null
	insmod $KO $1 2>/dev/null
	check "insmod $1 fails with errno $2" "$2" "$?"
	check "$1: one line" "$3" "$(log skl_uncore_sim)"
	check "$1: no PMU" "" "$(pmus)"
}
refuse "cbo_config=-2" 22 \
	"skl_uncore_sim: cbo_config=-2: must be a raw register value, 0 up, or -1 for nr_cbox + 1"
refuse "cores=0" 22 "skl_uncore_sim: cores=0: must be 1..64, or -1 for nr_cbox"
refuse "cores=65" 22 "skl_uncore_sim: cores=65: must be 1..64, or -1 for nr_cbox"
refuse "nr_cbox=0" 22 "skl_uncore_sim: nr_cbox=0: must be 1..8"
refuse "cbo_counters=1" 22 "skl_uncore_sim: cbo_counters=1: must be 2..4"
refuse "cbo_counters=5" 22 "skl_uncore_sim: cbo_counters=5: must be 2..4"

# Counters per CBo: the module writes an event with EN to counters 2 and 3 of CBo 0 at load
# and says what it found in one line; the simulator's cbo_counters makes the part have 2
# (Table 2-1, the default), 3 or 4 (the i7-6700K), cbo_missing how the others are missing.
# counters PARAMS LINE PROBE_FAULTS: exactly LINE (none if ""), the probe's faults kept apart
# from the driver's, and PERFEVTSEL2/3 left as they were.
counters() {
	dmesg -c >/dev/null
	insmod $KO nr_cbox=2 $1
	check "insmod nr_cbox=2 $1" "0" "$?"
	check "nr_cbox=2 $1: the counters line" "$2" "$(log skl_uncore_sim | grep 'counters per CBo')"
	check "nr_cbox=2 $1: faults the probe took" "$3" "$(sed -n 's/^probe_faults //p' $SIM/regs)"
	check "nr_cbox=2 $1: CBo 0's PERFEVTSEL2 and 3 (where present) hold 0" "" \
		"$(sed -n 's/^MSR_UNC_CBO_0_PERFEVTSEL[23] *0x[0-9a-f]* = \(0x[0-9a-f]*\) .*/\1/p' $SIM/regs | grep -v '^0x0*$')"
	rmmod skl_uncore_sim
	check_unload_line "nr_cbox=2 $1"
}
C="skl_uncore_sim: "
# Register absent: PERFEVTSEL2 (and PERFCTR2) fault on any access.
counters "" "${C}2 counters per CBo: MSR_UNC_CBO_0_PERFEVTSEL2 (0x702) faults when read" 1
counters "cbo_counters=3" "${C}3 counters per CBo: MSR_UNC_CBO_0_PERFEVTSEL3 (0x703) faults when read" 1
counters "cbo_counters=4" "${C}4 counters per CBo: MSR_UNC_CBO_0_PERFEVTSEL2 and PERFEVTSEL3 take an event with EN set" 0
# Present, but a write with EN set faults (PCM issue 337's fault): told from an absent one.
counters "cbo_missing=1" "${C}2 counters per CBo: MSR_UNC_CBO_0_PERFEVTSEL2 (0x702) faults when written with EN set" 1
counters "cbo_counters=3 cbo_missing=1" "${C}3 counters per CBo: MSR_UNC_CBO_0_PERFEVTSEL3 (0x703) faults when written with EN set" 1
# Only PERFEVTSEL3 absent (its PERFCTR3 reads).
counters "cbo_counters=3 cbo_missing=2" "${C}3 counters per CBo: MSR_UNC_CBO_0_PERFEVTSEL3 (0x703) faults when read" 1
# A counter whose read faults (its PERFEVTSEL is there).
counters "cbo_missing=3" "${C}2 counters per CBo: MSR_UNC_CBO_0_PERFCTR2 (0x708) faults when read" 1
# No CBo PMU: nothing to probe, nothing said.
counters "cbo_counters=4 cbo_config=1" "" 0
refuse "cbo_missing=4" 22 "skl_uncore_sim: cbo_missing=4: must be 0..3"

# The `fault` file. fault LINE: the error of writing LINE to it ("" if accepted).
fault() { (echo "$1" > $SIM/fault) 2>&1 | sed 's/.*: //'; }
reg() { sed -n "s/^$1 *0x[0-9a-f]* = \(0x[0-9a-f]*\)\$/\1/p" $SIM/regs; }
insmod $KO nr_cbox=4
# No background traffic: the dump stays put unless something writes.
for e in 1 2 3 4 5; do echo "imc 0 $e 0" > $SIM/rate; done
dmesg -c >/dev/null
accesses=$(grep '^accesses' $SIM/regs)
check "fault: 'wrmsr 0xe01 0x20000000' accepted" "" "$(fault 'wrmsr 0xe01 0x20000000')"
check "foreign write applied" "0x0000000020000000" "$(reg MSR_UNC_PERF_GLOBAL_CTRL)"
check "fault: 'wrmsr 1798 536870912' (decimal: CBo 0 PERFCTR0) accepted" "" "$(fault 'wrmsr 1798 536870912')"
check "decimal write applied" "0x0000000020000000" \
	"$(sed -n 's/^MSR_UNC_CBO_0_PERFEVTSEL0 .* PERFCTR0 0x706 = \(0x[0-9a-f]*\)$/\1/p' $SIM/regs)"
check "fault: 'reset' accepted" "" "$(fault reset)"
check "reset cleared GLOBAL_CTRL and CBo 0 PERFCTR0, not CBO_CONFIG" \
	"0x0000000000000000 0x0000000000000000 0x0000000000000005" \
	"$(reg MSR_UNC_PERF_GLOBAL_CTRL) $(sed -n 's/^MSR_UNC_CBO_0_PERFEVTSEL0 .* = \(0x[0-9a-f]*\)$/\1/p' $SIM/regs) $(reg MSR_UNC_CBO_CONFIG)"
check "neither is a driver access" "$accesses" "$(grep '^accesses' $SIM/regs)"
check "the dump counts them apart" "world foreign_wrmsr 2 resets 1" "$(grep '^world' $SIM/regs)"
check "accepted lines log nothing" "" "$(log skl_uncore_sim)"
# bad LINE ERROR LOG: the write fails with ERROR and logs exactly LOG.
bad() {
	dmesg -c >/dev/null
	check "fault: '$1' fails: $2" "$2" "$(fault "$1")"
	check "fault: '$1': one line" "skl_uncore_sim: fault: $3" "$(log skl_uncore_sim)"
}
U="expected 'reset', 'wrmsr ADDR VALUE', 'absent ADDR', 'en-faults ADDR', 'read-faults ADDR', 'late MS' or 'idle MS'"
before=$(grep -v time_ns $SIM/regs | grep -v '^world')
bad "Reset" "Invalid argument" "Command: $U"
bad "rdmsr 0xe01" "Invalid argument" "Command: $U"
bad "reset 1" "Invalid argument" "FieldCount: $U"
bad "wrmsr 0xe01" "Invalid argument" "FieldCount: $U"
bad "wrmsr 0xe01 0 0" "Invalid argument" "FieldCount: $U"
bad "wrmsr 0x100000000 0" "Invalid argument" "Number: $U"
bad "wrmsr 0xe01 0x10000000000000000" "Invalid argument" "Number: $U"
bad "wrmsr e01 0" "Invalid argument" "Number: $U"
bad "" "Invalid argument" "FieldCount: $U"
# Parsed, but the hardware refuses them (#GP): EIO, as wrmsr_safe reports.
bad "wrmsr 0xe01 0x10" "Input/output error" \
	"wrmsr 0xe01 0x10: the hardware refuses it (ReservedBits { msr: 3585, bits: 16 })"
bad "wrmsr 0x740 0" "Input/output error" "wrmsr 0x740 0x0: the hardware refuses it (UnknownMsr(1856))"
bad "wrmsr 0x396 0" "Input/output error" "wrmsr 0x396 0x0: the hardware refuses it (ReadOnly(918))"
check "refused lines changed no register" "$before" "$(grep -v time_ns $SIM/regs | grep -v '^world')"
dmesg -c >/dev/null
rmmod skl_uncore_sim
check_unload_line "after the fault file"
ktap_end
