#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# perf integration (perf 7.3 from the kernel tree) and `make load`'s checks.
# Run under -cpu Skylake-Client,-hypervisor, where Linux's intel_uncore loads too.
. /selftests/lib.sh

DEV=/sys/bus/event_source/devices
SIM=/sys/kernel/debug/skl_uncore_sim
ktap_header

# make load (scripts/load, copied into the guest as /add/load). With intel_uncore a module;
# a built-in one (the KASAN kernel) is booted with initcall_blacklist=intel_uncore_init here
# and covered by skl_uncore_builtin.sh.
if [ -f /lib/skl/intel-uncore.ko ]; then
	insmod /lib/skl/intel-uncore.ko
	out=$(sh /add/load /lib/skl/skl_uncore_sim.ko)
	check "make load refuses while intel_uncore holds the names, and says how to unload it" "1 1 1" \
		"$? $(echo "$out" | grep -c 'sudo rmmod intel_uncore') $(echo "$out" | grep -c "echo 'blacklist intel_uncore'")"
	check "make load does not call the module a built-in" "0" "$(echo "$out" | grep -c 'built')"
	rmmod intel_uncore
else
	ok "make load with intel_uncore a module # SKIP intel_uncore is built in"
fi
out=$(sh /add/load /lib/skl/skl_uncore_sim.ko)
check "make load loads the module" "0" "$?"
check "make load says which PMUs came up" "1" "$(echo "$out" | grep -c 'uncore_clock')"
check "make load on a loaded module is a no-op" "0" "$(sh /add/load /lib/skl/skl_uncore_sim.ko >/dev/null; echo $?)"

# perf list shows every named event of our PMUs, by its whole name: a line "  NAME" (perf's
# JSON name) or "  PMU/NAME/ ..." (sysfs). A substring would let any_mesi stand for any_m.
perf list pmu > /tmp/list 2>/dev/null
missing=0
n=0
for d in $DEV/uncore_*; do
	for ev in $(ls $d/events | grep -v '\.scale$' | grep -v '\.unit$'); do
		n=$((n + 1))
		re=$(echo "$ev" | sed 's/\./\\./g')
		grep -qiE "^ +([a-z0-9_]+/)?$re(/| |\$)" /tmp/list ||
			{ missing=$((missing + 1)); echo "# perf list lacks $ev"; }
	done
done
check "perf list shows all $n named events" "0" "$missing"

for e in 1 2 3 4 5; do echo "imc 0 $e 0" > $SIM/rate; done
out=$(perf stat -a -e uncore_imc/data_reads/ -- sh -c "echo 'imc 0 1 0 16384' > $SIM/inject" 2>&1)
check "perf stat prints IMC data_reads in MiB (16384 lines = 1 MiB)" "1.00 MiB" \
	"$(echo "$out" | awk '/data_reads/ { print $1, $2 }')"
perf stat -x, -o /tmp/merge.csv -a -e uncore_cbox/unc_cbo_cache_lookup.any_mesi/ -- sh -c \
	"for b in 0 1 2 3; do echo \"cbox \$b 0x34 0x8f 250\" > $SIM/inject; done"
check "uncore_cbox/unc_cbo_cache_lookup.any_mesi/ merges the boxes" "1000" "$(perf_count /tmp/merge.csv)"
check "perf test 'Parsing of all PMU events from sysfs' passes" "1" \
	"$(perf test 5 2>&1 | grep -c 'Parsing of all PMU events from sysfs *: Ok')"
rmmod skl_uncore_sim
check_unloads_clean 1
ktap_end
