#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A driver on the emulated Skylake uncore (scripts/vm-run --silicon --cpus 4: the default part,
# the i7-6700K, has 4 CBo slices): its PMUs, and perf's counts on live silicon, where CBo and
# ARB traffic never stops. A count is exact against the model's tally, what the counter counted
# between its enable and its disable; UCLK and the IMC against their configured rates. The
# registers alone are skl_silicon_model.sh's.
#
# Usage: skl_uncore_silicon.sh [ours|linux] UCLK_HZ DATA_READS_PER_S
#   ours:  skl_uncore.ko
#   linux: Linux's intel-uncore.ko counting the same traffic
. /selftests/lib.sh

mode=${1:-ours}
uclk=${2:-1000000000}
reads=${3:-16777216}
DEV=/sys/bus/event_source/devices
ktap_header

rd() { msr 0 "$1"; }
# |ACTUAL - EXPECTED| <= EXPECTED * PCT / 100
near() { awk -v a="$2" -v e="$3" -v p="$4" 'BEGIN { d = a - e; if (d < 0) d = -d; exit !(d <= e * p / 100) }' &&
	ok "$1 ($2, expected $3 +-$4%)" || not_ok "$1" "got $2, expected $3 +-$4%"; }
cnt() { perf_count "$1"; }
# tally UNIT BOX: what that box's counters counted while enabled since skl-silicon tally-reset.
tally() { skl-silicon tally "$1" "$2" | cut -d' ' -f1; }

check "backdoor answers" "0" "$(skl-silicon info >/dev/null; echo $?)"
ncbo=$(skl-silicon info | sed 's/.*cbos \([0-9]*\).*/\1/')
echo "# $(skl-silicon info)"

if [ "$mode" = ours ]; then
# --- the production module on the silicon ---------------------------------------------------
skl-silicon stats-reset
insmod /lib/skl/skl_uncore.ko || { echo "Bail out! insmod skl_uncore failed"; exit 1; }
expected="uncore_arb uncore_clock uncore_imc"
i=0; while [ $i -lt "$ncbo" ]; do expected="$expected uncore_cbox_$i"; i=$((i + 1)); done
check "skl_uncore registers its PMUs on the silicon" "$(echo $(echo $expected | tr ' ' '\n' | sort))" \
	"$(echo $(ls $DEV | grep '^uncore_'))"
echo "# accesses of insmod:"; skl-silicon stats | sed 's/^/#   /'
else
# --- Linux's driver on the same silicon -------------------------------------------------------
insmod /lib/skl/intel-uncore.ko || { echo "Bail out! insmod intel-uncore failed"; exit 1; }
expected="uncore_arb uncore_imc"
i=0; while [ $i -lt "$ncbo" ]; do expected="$expected uncore_cbox_$i"; i=$((i + 1)); done
check "intel_uncore registers its PMUs on the silicon" "$(echo $(echo $expected | tr ' ' '\n' | sort))" \
	"$(echo $(ls $DEV | grep '^uncore_'))"
# Ours while intel_uncore holds the names: refused before it writes anything (its probe writes
# ARB PERFEVTSEL0, which intel_uncore may be using, only once the names are its own).
skl-silicon stats-reset
insmod /lib/skl/skl_uncore.ko 2>/dev/null
check "linux: insmod skl_uncore.ko while intel_uncore holds the names: EEXIST (EBUSY)" "16" "$?"
check "linux: the refused skl_uncore.ko wrote no uncore MSR" "" \
	"$(skl-silicon stats | grep '^msr ' | grep -v ' writes 0$')"
fi

# --- counting through perf (both drivers) -----------------------------------------------------
# inject_count NAME UNIT BOX EVENT UMASK N PMU-EVENT: perf stat around an injection of N; its
# count is the tally exactly, and holds the N injected and some background.
inject_count() {
	skl-silicon tally-reset
	perf stat -x, -o /tmp/c.csv -a -e "$7" -- skl-inject "$2" "$3" "$4" "$5" "$6"
	check "$mode: $1: skl-inject counted (perf stat exits 0)" "0" "$?"
	t=$(tally "$2" "$3")
	c=$(cnt /tmp/c.csv)
	check "$mode: $1 = what the counter counted between enable and disable" "$t" "$c"
	[ "${c:-0}" -gt "$6" ] && ok "$mode: $1 holds the $6 injected and background ($c)" ||
		not_ok "$mode: $1 holds the $6 injected and background" "${c:-none}"
}
skl-silicon stats-reset
inject_count "uncore_cbox_0 LLC lookups" cbox 0 0x34 0x8f 12345 uncore_cbox_0/event=0x34,umask=0x8f/
echo "# accesses of that perf stat:"; skl-silicon stats | sed 's/^/#   /'
inject_count "uncore_cbox_1 XSNP_RESPONSE.MISS_XCORE" cbox 1 0x22 0x41 777 uncore_cbox_1/event=0x22,umask=0x41/
inject_count "uncore_arb TRK_REQUESTS.ALL" arb 0 0x81 0x01 4242 uncore_arb/event=0x81,umask=0x01/
skl-silicon stats-reset
perf stat -x, -o /tmp/imc.csv -a -e uncore_imc/data_reads/ -- sleep 1
mib=$(cnt /tmp/imc.csv)
secs=$(awk -v t="$(perf_runtime /tmp/imc.csv)" 'BEGIN { print t / 1e9 }')
exp_mib=$(awk -v r="$reads" -v s="$secs" 'BEGIN { printf "%.2f", r * 64 / 1048576 * s }')
near "$mode: uncore_imc/data_reads/ MiB over ${secs} s matches the configured $reads lines/s" "$mib" "$exp_mib" 5
n=$(skl-silicon stats | sed -n 's/^mmio 0x5050 reads \([0-9]*\) .*/\1/p')
[ "${n:-0}" -ge 2 ] && ok "$mode: the driver read DRAM_DATA_READS at MCHBAR+0x5050 ($n MMIO reads)" ||
	not_ok "$mode: the driver read MCHBAR+0x5050" "stats: ${n:-none}"
if [ "$mode" = ours ]; then
	clk=uncore_clock/clockticks/
else
	clk=uncore_cbox_0/clockticks/
fi
# UCLK while a vCPU runs: the same with and without uclk-idle-stop.
skl-silicon tally-reset
perf stat -x, -o /tmp/clk.csv -a -e $clk -- timeout 1 sh -c 'while :; do :; done'
secs=$(awk -v t="$(perf_runtime /tmp/clk.csv)" 'BEGIN { print t / 1e9 }')
near "$mode: $clk over ${secs} s of a running vCPU at the configured UCLK" "$(cnt /tmp/clk.csv)" \
	"$(awk -v u="$uclk" -v s="$secs" 'BEGIN { printf "%d", u * s }')" 5
check "$mode: $clk = what the fixed counter counted between enable and disable" \
	"$(tally clock 0)" "$(cnt /tmp/clk.csv)"

if [ "$mode" = ours ]; then
	rmmod skl_uncore
	check "after rmmod: GLOBAL_CTRL, FIXED_CTRL, PERFEVTSELs clear" "0x0 0x0 0x0 0x0" \
		"$(rd 0xe01) $(rd 0x394) $(rd 0x700) $(rd 0x3b2)"
else
	rmmod intel_uncore
	check "after rmmod intel_uncore: GLOBAL_CTRL clear" "0x0" "$(rd 0xe01)"
fi
ktap_end
