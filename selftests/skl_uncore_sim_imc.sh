#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# One IMC per machine in the simulator (issue 23, item 6; vm-run --cpus 4,sockets=2,cores=2,
# package 1 is CPUs 2-3): DRAM reads injected from a CPU of each package reach the same single
# IMC; an uncore_imc event of each package's context, read from CPUs of both packages, counts
# their sum once; the model holds one IMC, which no driver read misses.
. /selftests/lib.sh

SIM=/sys/kernel/debug/skl_uncore_sim
PO=/selftests/perf_open
ktap_header

insmod /lib/skl/skl_uncore_sim.ko || { echo "Bail out! insmod failed"; exit 1; }
for e in 1 2 3 4 5; do echo "imc 0 $e 0" > $SIM/rate; done
# lib.sh's imc_total of every IMC the model holds (one a line), on one line.
totals() { echo $(imc_total); }
# The driver's MCHBAR reads that landed in package 1's register file.
mmio1() { sed -n '/^package 1$/,$ s/^accesses .* mmio \([0-9]*\) .*/\1/p' $SIM/regs; }
# Runs `echo LINE > FILE` on CPU $1.
on() { c=$1; shift; echo "taskset -c $c sh -c 'echo $* > $SIM/inject'"; }

t0=$(totals)
check "the model holds one IMC" "1" "$(echo $t0 | wc -w)"
# The collector reads from CPU 2 (package 1), four readers from every CPU meanwhile.
out=$(taskset -c 2 $PO -R 4 -r "$(on 0 imc 0 1 0 1000); $(on 2 imc 0 1 0 20); $(on 3 imc 0 1 0 3)" \
	uncore_imc/1/cpu=0 uncore_imc/1/cpu=2 2>&1)
echo "$out" | sed 's/^/# /'
check "package 0's event, read from package 1: 1000 + 20 + 3, once" "1023" \
	"$(echo "$out" | sed -n 's/^count \([0-9]*\) .*/\1/p' | sed -n 1p)"
check "package 1's event: the same IMC, 1023" "1023" \
	"$(echo "$out" | sed -n 's/^count \([0-9]*\) .*/\1/p' | sed -n 2p)"
t1=$(totals)
check "the machine's IMC saw the 1023 DRAM reads once" "$(($(echo $t0 | cut -d' ' -f1) + 1023))" "$t1"

# A preset written on CPU 2 (before the event: a preset while counting is a jump the event
# counts) and injections from both packages reach the IMC package 0's event reads: it counts
# across the 32-bit wrap.
taskset -c 2 sh -c "echo imc 0 1 0xfffffff0 > $SIM/preset"
out=$(taskset -c 0 $PO -R 4 -r "$(on 0 imc 0 1 0 0x20); $(on 2 imc 0 1 0 0x10)" \
	uncore_imc/1/cpu=0 2>&1)
echo "$out" | sed 's/^/# /'
check "a preset from package 1, injections from both: 0x30 across the wrap" "48" \
	"$(echo "$out" | sed -n 's/^count \([0-9]*\) .*/\1/p')"
check "the IMC wrapped once, from 0xfffffff0" "0x00000020" \
	"$(sed -n 's/^MCHBAR+0x5050 DRAM_DATA_READS *= //p' $SIM/regs | tr '\n' ' ' | sed 's/ $//')"
check "no driver IMC read landed in package 1's register file" "0" "$(mmio1)"
echo "# $(grep -E '^(package|accesses|totals imc)' $SIM/regs | tr '\n' ';')"

rmmod skl_uncore_sim
check "rmmod" "0" "$?"
check_unloads_clean 1
ktap_end
