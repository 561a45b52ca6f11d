#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The emulated Skylake uncore (scripts/vm-run --silicon): first the registers alone through
# /dev/cpu/0/msr and the backdoor, with no driver (Table 2-1 addresses, reserved bits #GP,
# both enables, exact injected counts, 44-bit wrap, UCLK, MCHBAR, power-on values after S3),
# then a driver on top of it.
#
# Usage: skl_uncore_silicon.sh [ours|linux] UCLK_HZ DATA_READS_PER_S
#   ours:  everything above, then skl_uncore.ko (needs 2 counters per CBo, the default)
#   linux: Linux's intel-uncore.ko counting the same injected traffic (4 counters per CBo)
. /selftests/lib.sh

mode=${1:-ours}
uclk=${2:-1000000000}
reads=${3:-16777216}
DEV=/sys/bus/event_source/devices
CFG=/sys/bus/pci/devices/0000:00:00.0/config
ktap_header

rd() { msr 0 "$1"; }
wr() { msr 0 "$1" "$2" >/dev/null 2>&1 && echo ok || msr 0 "$1" "$2"; }
# |ACTUAL - EXPECTED| <= EXPECTED * PCT / 100
near() { awk -v a="$2" -v e="$3" -v p="$4" 'BEGIN { d = a - e; if (d < 0) d = -d; exit !(d <= e * p / 100) }' &&
	ok "$1 ($2, expected $3 +-$4%)" || not_ok "$1" "got $2, expected $3 +-$4%"; }
cfg_dword() { od -An -tx4 -j "$1" -N 4 $CFG | tr -d ' '; }
cnt() { perf_count "$1"; }

check "backdoor answers" "0" "$(skl-silicon info >/dev/null; echo $?)"
ncbo=$(skl-silicon info | sed 's/.*cbos \([0-9]*\).*/\1/')
nctr=$(skl-silicon info | sed 's/.*counters \([0-9]*\).*/\1/')
echo "# $(skl-silicon info)"

if [ "$mode" = ours ]; then
# --- registers, no driver -------------------------------------------------------------------
check "MSR_UNC_CBO_CONFIG 0x396 reads CBos + 1" "$(printf '%#x' $((ncbo + 1)))" "$(rd 0x396)"
check "MSR_UNC_CBO_CONFIG is read only: WRMSR -> #GP (EIO)" "EIO" "$(wr 0x396 0x5)"
check "PERFEVTSEL reserved bit 16 -> EIO" "EIO" "$(wr 0x700 0x10000)"
check "PERFEVTSEL reserved bit 19 -> EIO" "EIO" "$(wr 0x701 0x80000)"
check "PERFEVTSEL reserved bit 21 -> EIO" "EIO" "$(wr 0x3b2 0x200000)"
check "PERFEVTSEL reserved bit 29 -> EIO" "EIO" "$(wr 0x700 0x20000000)"
check "PERFEVTSEL every defined bit writes" "ok 0x1fd4ffff" "$(wr 0x700 0x1fd4ffff) $(rd 0x700)"
check "PERFCTR bit 44 -> EIO" "EIO" "$(wr 0x706 0x100000000000)"
check "PERFCTR 44 bits write and read back" "ok 0xfffffffffff" "$(wr 0x707 0xfffffffffff) $(rd 0x707)"
check "FIXED_CTR bit 48 -> EIO" "EIO" "$(wr 0x395 0x1000000000000)"
check "FIXED_CTRL reserved bit 0 -> EIO" "EIO" "$(wr 0x394 0x1)"
check "GLOBAL_CTRL reserved bit 4 -> EIO (Table 2-2: 28:4 reserved)" "EIO" "$(wr 0xe01 0x10)"
check "GLOBAL_CTRL FRZ|WAKE|EN|PMI_SEL_CORE3..0 write" "ok 0xe000000f" "$(wr 0xe01 0xe000000f) $(rd 0xe01)"
check "GLOBAL_STATUS reserved bit 4 -> EIO" "EIO" "$(wr 0xe02 0x10)"
if [ "$nctr" = 2 ]; then
	check "PERFEVTSEL2 0x702 absent (2 counters per CBo) -> EIO" "EIO" "$(rd 0x702)"
	check "PERFCTR2 0x708 absent (2 counters per CBo) -> EIO" "EIO" "$(rd 0x708)"
fi
check "CBo $ncbo PERFEVTSEL0 $(printf '%#x' $((0x700 + 0x10 * ncbo))) absent -> EIO" "EIO" \
	"$(rd $((0x700 + 0x10 * ncbo)))"
check "ARB PERFCTR1 0x3b1 and PERFEVTSEL1 0x3b3 present" "0x0 0x0" "$(rd 0x3b1) $(rd 0x3b3)"
for r in 0xe01 0x700 0x707; do msr 0 $r 0; done

# Counting needs GLOBAL_CTRL.EN (bit 29) and the counter's own EN (bit 22).
wr 0x710 0x408f34 >/dev/null   # CBo 1 counter 0: EN, umask 0x8f, event 0x34
skl-inject cbox 1 0x34 0x8f 100
check "local EN only: nothing counted" "0x0" "$(rd 0x716)"
wr 0xe01 0x20000000 >/dev/null
skl-inject cbox 1 0x34 0x8f 100
check "both enables: injected 100 counted exactly" "0x64" "$(rd 0x716)"
skl-inject cbox 1 0x34 0x88 7
skl-inject cbox 1 0x34 0x10 1000
check "umask 0x88 (inside 0x8f) counts, 0x10 (outside) does not" "0x6b" "$(rd 0x716)"
skl-inject cbox 0 0x34 0x8f 1000
skl-inject cbox 1 0x22 0x8f 1000
check "another box or another event does not count" "0x6b" "$(rd 0x716)"
wr 0x710 0x8f34 >/dev/null
skl-inject cbox 1 0x34 0x8f 100
check "global EN only: nothing counted" "0x6b" "$(rd 0x716)"
# Threshold, invert, edge: an injection of N is N consecutive cycles of increment 1.
msr 0 0x716 0
wr 0x710 0x448f34 >/dev/null   # E
skl-inject cbox 1 0x34 0x8f 50
check "edge: a burst of 50 is one occurrence" "0x1" "$(rd 0x716)"
msr 0 0x716 0; wr 0x710 0x02408f34 >/dev/null   # THR=2
skl-inject cbox 1 0x34 0x8f 50
check "cmask 2: no cycle has an increment >= 2" "0x0" "$(rd 0x716)"
wr 0x710 0x02c08f34 >/dev/null   # THR=2, INV
skl-inject cbox 1 0x34 0x8f 50
check "cmask 2 + inv: all 50 cycles have an increment < 2" "0x32" "$(rd 0x716)"
# 44-bit wrap and the overflow status (CBO_CTR_OVF taken at bit 3, see Table 2-3's misprint).
wr 0x710 0x408f34 >/dev/null
skl-preset cbox 1 0 0xffffffffff0
skl-inject cbox 1 0x34 0x8f 20
check "PERFCTR wraps at 44 bits (2^44 - 16 + 20 = 4)" "0x4" "$(rd 0x716)"
check "GLOBAL_STATUS.CBO_CTR_OVF set by the wrap" "0x8" "$(rd 0xe02)"
check "backdoor peek reads the same counter value as RDMSR" "$(rd 0x716)" "$(skl-silicon peek cbox 1 0)"
check "GLOBAL_STATUS is RW1C" "ok 0x0" "$(wr 0xe02 0x8) $(rd 0xe02)"
wr 0x3b2 0x400181 >/dev/null   # ARB counter 0: UNC_ARB_TRK_REQUESTS.ALL
skl-inject arb 0 0x81 0x01 4242
check "ARB counter 0 counts injected TRK_REQUESTS" "$(printf '%#x' 4242)" "$(rd 0x3b0)"
# The fixed counter ticks at UCLK while both enables are set.
# The two reads bracket a 1 s sleep and lie inside the uptime interval [t0, t1]:
# UCLK * 1 s <= delta <= UCLK * (t1 - t0), up to the uptime's 10 ms resolution.
wr 0x394 0x400000 >/dev/null
t0=$(cut -d' ' -f1 /proc/uptime); a=$(rd 0x395); sleep 1; b=$(rd 0x395); t1=$(cut -d' ' -f1 /proc/uptime)
lo=$(awk -v u="$uclk" 'BEGIN { printf "%d", u * 0.99 }')
hi=$(awk -v u="$uclk" -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%d", u * (t1 - t0 + 0.02) }')
d=$((b - a))
[ "$d" -ge "$lo" ] && [ "$d" -le "$hi" ] && ok "FIXED_CTR ticks at UCLK: $d over a 1 s sleep ($lo..$hi)" ||
	not_ok "FIXED_CTR ticks at UCLK over a 1 s sleep" "$d not in $lo..$hi"
wr 0xe01 0 >/dev/null
a=$(rd 0x395); sleep 0.2; b=$(rd 0x395)
check "FIXED_CTR stops without GLOBAL_CTRL.EN" "$a" "$b"

# Host bridge: Skylake device ID for the OS, MCHBAR at 0x48/0x4C, enabled.
check "host bridge 0:0.0 is 8086:191f (or as configured)" "0x8086 $(printf '%#06x' $(($(skl-silicon info | sed 's/.*device //'))))" \
	"$(cat /sys/bus/pci/devices/0000:00:00.0/vendor) $(cat /sys/bus/pci/devices/0000:00:00.0/device)"
check "MCHBAR 0x48 = 0xfed10000 | MCHBAREN, 0x4c = 0" "fed10001 00000000" "$(cfg_dword 72) $(cfg_dword 76)"

# Access counts of the model.
skl-silicon stats-reset
rd 0x396 >/dev/null; rd 0x396 >/dev/null; wr 0x701 0x22 >/dev/null; cfg_dword 72 >/dev/null
check "stats count 2 RDMSR of 0x396" "msr 0x396 reads 2 writes 0" "$(skl-silicon stats | grep 'msr 0x396 ')"
check "stats count 1 WRMSR of 0x701" "msr 0x701 reads 0 writes 1" "$(skl-silicon stats | grep 'msr 0x701 ')"
check "stats count config reads of 0:0.0 at 0x48" "pcicfg 0x48 reads 1 writes 0" "$(skl-silicon stats | grep 'pcicfg 0x48 ')"

# S3: the silicon loses its uncore state; the model returns to power-on values.
wr 0xe01 0x20000000 >/dev/null; wr 0x394 0x400000 >/dev/null; wr 0x700 0x408f34 >/dev/null
skl-preset cbox 0 0 12345
skl-preset imc 0 1 0x12345678
before="$(rd 0xe01) $(rd 0x394) $(rd 0x700) $(rd 0x706)"
check "state set before S3" "0x20000000 0x400000 0x408f34 0x3039" "$before"
imc=$(skl-silicon peek imc 0 1)
[ $((imc)) -ge $((0x12345678)) ] && ok "IMC data_reads preset to 0x12345678 before S3 ($imc)" ||
	not_ok "IMC data_reads preset before S3" "$imc"
echo mem > /sys/power/state
check "S3 entered and resumed" "0" "$?"
check "after S3: GLOBAL_CTRL FIXED_CTRL PERFEVTSEL PERFCTR FIXED_CTR at power-on 0" \
	"0x0 0x0 0x0 0x0 0x0" "$(rd 0xe01) $(rd 0x394) $(rd 0x700) $(rd 0x706) $(rd 0x395)"
check "after S3: MCHBAR programmed again" "fed10001" "$(cfg_dword 72)"
imc=$(skl-silicon peek imc 0 1)
[ $((imc)) -lt $((0x12345678)) ] && ok "after S3: IMC data_reads counts again from 0 ($imc)" ||
	not_ok "after S3: IMC data_reads counts again from 0" "$imc"
dmesg | grep -q 'Waking up from system sleep state S3' && ok "guest logged the S3 wakeup" ||
	not_ok "guest logged the S3 wakeup" "no 'Waking up from system sleep state S3'"

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
skl-silicon stats-reset
perf stat -x, -o /tmp/cbo.csv -a -e uncore_cbox_0/event=0x34,umask=0x8f/ -- skl-inject cbox 0 0x34 0x8f 12345
check "$mode: perf stat uncore_cbox_0/event=0x34,umask=0x8f/ counts the 12345 injected" "12345" "$(cnt /tmp/cbo.csv)"
echo "# accesses of that perf stat:"; skl-silicon stats | sed 's/^/#   /'
perf stat -x, -o /tmp/cbo1.csv -a -e uncore_cbox_1/event=0x22,umask=0x41/ -- skl-inject cbox 1 0x22 0x41 777
check "$mode: uncore_cbox_1 XSNP_RESPONSE.MISS_XCORE counts 777" "777" "$(cnt /tmp/cbo1.csv)"
perf stat -x, -o /tmp/arb.csv -a -e uncore_arb/event=0x81,umask=0x01/ -- skl-inject arb 0 0x81 0x01 4242
check "$mode: uncore_arb TRK_REQUESTS.ALL counts 4242" "4242" "$(cnt /tmp/arb.csv)"
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
perf stat -x, -o /tmp/clk.csv -a -e $clk -- sleep 1
secs=$(awk -v t="$(perf_runtime /tmp/clk.csv)" 'BEGIN { print t / 1e9 }')
near "$mode: $clk over ${secs} s at the configured UCLK" "$(cnt /tmp/clk.csv)" \
	"$(awk -v u="$uclk" -v s="$secs" 'BEGIN { printf "%d", u * s }')" 5

if [ "$mode" = ours ]; then
	rmmod skl_uncore
	check "after rmmod: GLOBAL_CTRL, FIXED_CTRL, PERFEVTSELs clear" "0x0 0x0 0x0 0x0" \
		"$(rd 0xe01) $(rd 0x394) $(rd 0x700) $(rd 0x3b2)"
else
	rmmod intel_uncore
	check "after rmmod intel_uncore: GLOBAL_CTRL clear" "0x0" "$(rd 0xe01)"
fi
ktap_end
