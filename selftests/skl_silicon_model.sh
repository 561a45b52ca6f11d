#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The emulated silicon alone (scripts/vm-run --silicon, no driver): its registers through
# /dev/cpu/0/msr and its backdoor, checked against what the part named by SKU has on real
# hardware (qemu/README.md names the evidence). The expectations below are this file's own,
# never read from the model: which uncore MSRs exist, which bits of each fault on write,
# MSR_UNC_CBO_CONFIG; then the counting rules, background traffic, UCLK, MCHBAR, partial state
# loss and (with "s3") the power-on values after S3.
#
# Usage: skl_silicon_model.sh SKU [s3] [idle]
#   SKU   the device's sku= (i7-6700K, manual, 2-core, i7-8665U, i9-9900K, i9-10900K)
#   s3    also suspend to RAM (vm-run --s3-wake)
#   idle  the device runs with uclk-idle-stop=on
. /selftests/lib.sh

sku=$1
shift
s3= idle=
for a in "$@"; do
	case $a in s3) s3=1 ;; idle) idle=1 ;; esac
done
CFG=/sys/bus/pci/devices/0000:00:00.0/config
ktap_header

rd() { msr 0 "$1"; }
wr() { msr 0 "$1" "$2" >/dev/null 2>&1 && echo ok || msr 0 "$1" "$2"; }
hex() { printf '%#x' "$1"; }
cfg_dword() { od -An -tx4 -j "$1" -N 4 $CFG | tr -d ' '; }
# within NAME VALUE LO HI
within() {
	if [ "$2" -ge "$3" ] && [ "$2" -le "$4" ]; then ok "$1 ($2 in $3..$4)"; else not_ok "$1" "$2 not in $3..$4"; fi
}

# --- the part: CONFIG BLOCKS COUNTERS AUX EVTSEL-GP GLOBAL_CTRL-GP GLOBAL_STATUS-GP STATUS-IGN --
# #GP and ignore masks as VirtualBox's probe of the i7-6700K prints them (a set #GP bit faults
# when written; a set ignore bit is accepted and does not read back; GLOBAL_STATUS is RW1C).
P="0xffffffffe0230000 0xffffffff1fffffe0 0xfffffffffffffff0 0xf"
case $sku in
i7-6700K) part="0x5 5 4 yes $P" ;;   # HW: the probe, bit for bit
# Manual 334060-001: Table 2-1 (2 counters), Table 2-7 (PERFEVTSEL bits), Table 2-2 (bit 4
# reserved), Table 2-3 (status bits 0, 1, 3, write 1 to clear); the count rule of section 2.4.1.
manual) part="0x5 4 2 no 0xffffffffe02b0000 0xffffffff1ffffff0 0xfffffffffffffff4 0xb" ;;
2-core) part="0x3 3 4 yes $P" ;;     # HW: the same probe of a 2-core Broadwell i7-5600U
i7-8665U) part="0x5 5 2 yes $P" ;;   # Anecdote: a write to 0x703 faulted
i9-9900K) part="0x9 8 4 yes $P" ;;   # Tool: CBo 7 at 0xF70 (Linux CFL_UNC_CBO_7_*)
i9-10900K) part="0xb 8 4 yes $P" ;;  # Tool: 8 boxes with known addresses for 10 cores
*) echo "Bail out! unknown part '$sku'"; exit 1 ;;
esac
set -- $part
config=$1 blocks=$2 nctr=$3 aux=$4 evt_gp=$5 gctrl_gp=$6 status_gp=$7 status_ign=$8
CTR_GP=0xfffff00000000000

check "the device runs the part $sku" "sku $sku" "$(skl-silicon info | grep -o 'sku [^ ]*')"
echo "# $(skl-silicon info)"

# One CBo block of 16 MSRs: PERFEVTSEL0..3 at +0..+3, the 4-bit registers at +4 and +5,
# PERFCTR0..3 at +6..+9; CBo 0..6 at 0x700 + 0x10n, CBo 7 at 0xF70.
block() {
	off=0
	while [ $off -lt 16 ]; do
		a=$(hex $(($1 + off)))
		if [ "$2" -ge "$blocks" ]; then
			echo "$a absent"
		elif [ $off -lt 4 ]; then
			[ $off -lt "$nctr" ] && echo "$a gp $evt_gp ignore 0" || echo "$a absent"
		elif [ $off -lt 6 ]; then
			# +4 keeps bits 3:0, +5 accepts and ignores them.
			[ "$aux" = yes ] && echo "$a gp 0xfffffffffffffff0 ignore $([ $off = 4 ] && echo 0 || echo 0xf)" ||
				echo "$a absent"
		elif [ $off -lt 10 ]; then
			[ $((off - 6)) -lt "$nctr" ] && echo "$a gp $CTR_GP ignore 0" || echo "$a absent"
		else
			echo "$a absent"
		fi
		off=$((off + 1))
	done
}
{
	# 0x391..0x393 and 0x397: the probe's rows outside the manual (none in the manual).
	if [ "$aux" = yes ]; then
		echo "0x391 gp 0x37ffff8fffffff0 ignore 0xfc8000070000000f"
		echo "0x392 gp 0xffffffffffffffff ignore 0"
		echo "0x393 gp 0xfffffffffffffffc ignore 0x3"
	else
		echo "0x391 absent"; echo "0x392 absent"; echo "0x393 absent"
	fi
	echo "0x394 gp 0xffffffffffafffff ignore 0"
	echo "0x395 gp 0xffff000000000000 ignore 0"
	echo "0x396 gp 0xffffffffffffffff ignore 0"
	[ "$aux" = yes ] && echo "0x397 gp 0xfffffffffffffff0 ignore 0" || echo "0x397 absent"
	echo "0x3b0 gp $CTR_GP ignore 0"
	echo "0x3b1 gp $CTR_GP ignore 0"
	echo "0x3b2 gp $evt_gp ignore 0"
	echo "0x3b3 gp $evt_gp ignore 0"
	n=0
	while [ $n -lt 7 ]; do block $((0x700 + 0x10 * n)) $n; n=$((n + 1)); done
	echo "0xe01 gp $gctrl_gp ignore 0"
	echo "0xe02 gp $status_gp ignore $status_ign"
	block $((0xf70)) 7
} > /tmp/expected
skl-silicon faults-reset
{
	msr-probe 0 0x391 0x397
	msr-probe 0 0x3b0 0x3b3
	msr-probe 0 0x700 0x76f
	msr-probe 0 0xe01 0xe02
	msr-probe 0 0xf70 0xf7f
} > /tmp/probe
if diff /tmp/expected /tmp/probe > /tmp/probe.diff; then
	ok "$sku: which of $(wc -l < /tmp/probe) uncore MSRs exist, and the #GP mask of each, as the part"
else
	sed 's/^/# /' /tmp/probe.diff
	not_ok "$sku: uncore MSR map and #GP masks" "differ from the part (diff above: < part, > model)"
fi
# The fault tally, from this file's own arithmetic over the expected map: an absent MSR faults
# once (the read), a present one once per #GP bit, and a read-only one (#GP mask all ones)
# also on each of its 64 restores.
popcount() { v=$(($1)); n=0; while [ $v != 0 ]; do n=$((n + (v & 1))); v=$(((v >> 1) & 0x7fffffffffffffff)); done; echo $n; }
while read -r a what gp rest; do
	case $what in
	absent) echo "msr $a gp 1 violations 0" ;;
	gp)
		n=$(popcount $gp)
		[ "$gp" = 0xffffffffffffffff ] && n=$((n + 64))
		[ $n = 0 ] || echo "msr $a gp $n violations 0" ;;
	esac
done < /tmp/expected | sort > /tmp/faults.expected
skl-silicon faults | sort > /tmp/faults
if diff /tmp/faults.expected /tmp/faults > /tmp/faults.diff; then
	ok "the fault tally after the probe: $(wc -l < /tmp/faults) MSRs, each as the map predicts"
else
	sed 's/^/# /' /tmp/faults.diff
	not_ok "the fault tally after the probe" "differs from the map's arithmetic (< expected, > model)"
fi
skl-silicon faults-reset
check "MSR_UNC_CBO_CONFIG 0x396 reads $config" "$config" "$(rd 0x396)"
check "MSR_UNC_CBO_CONFIG is read only: WRMSR of its own value -> EIO" "EIO" "$(wr 0x396 $config)"
if [ "$nctr" = 4 ]; then
	check "CBo 0 PERFEVTSEL3 0x703 takes Intel PCM's 0x400000" "ok 0x400000" "$(wr 0x703 0x400000) $(rd 0x703)"
	wr 0x703 0 >/dev/null
else
	check "CBo 0 PERFEVTSEL3 0x703 refuses Intel PCM's 0x400000 (#GP)" "EIO" "$(wr 0x703 0x400000)"
fi
if [ "$blocks" = 8 ]; then
	check "CBo 7 PERFEVTSEL0 at 0xf70, PERFCTR0 at 0xf76" "ok ok 0x1234" \
		"$(wr 0xf70 0x408f34) $(wr 0xf76 0x1234) $(rd 0xf76)"
	wr 0xf70 0 >/dev/null; msr 0 0xf76 0
fi
skl-silicon stats-reset
msr 0 0x770 >/dev/null 2>&1; msr 0 0x777 >/dev/null 2>&1
check "0x770..0x777 are not CBo registers: the model does not see them" "" \
	"$(skl-silicon stats | grep -E 'msr 0x77[0-9a-f] ')"
check "the access counts see a model register" "msr 0x396 reads 1 writes 0" \
	"$(rd 0x396 >/dev/null; skl-silicon stats | grep 'msr 0x396 ')"
# wr tries a refused write twice (the second prints the error).
check "the fault tally: each refused WRMSR above, none of 0x770/0x777" \
	"msr 0x396 gp 2 violations 0$([ "$nctr" = 4 ] || printf ' msr 0x703 gp 2 violations 0')" \
	"$(echo $(skl-silicon faults))"
skl-silicon faults-reset
if [ "$aux" = yes ]; then
	check "0x397 keeps bits 3:0; 0x391 and 0x393 read 0 after accepted writes" "0x5 0x0 0x0" \
		"$(msr 0 0x397 5; rd 0x397) $(msr 0 0x391 0xf; rd 0x391) $(msr 0 0x393 3; rd 0x393)"
	msr 0 0x397 0
fi

# --- background traffic: LLC and ARB traffic never stops ------------------------------------
# The default rates (the device's properties): 2,000,000 CBo and 1,000,000 ARB events per s.
msr 0 0x706 0; msr 0 0x3b0 0
wr 0x700 0x408f34 >/dev/null; wr 0x3b2 0x400181 >/dev/null
t0=$(cut -d' ' -f1 /proc/uptime); wr 0xe01 0x20000000 >/dev/null; sleep 0.5
c=$(rd 0x706); a=$(rd 0x3b0); t1=$(cut -d' ' -f1 /proc/uptime)
within "CBo 0 counter 0 counts 2 M/s background over a 0.5 s sleep" $((c)) 990000 \
	"$(awk -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%d", 2000000 * (t1 - t0 + 0.02) }')"
within "ARB counter 0 counts 1 M/s background over a 0.5 s sleep" $((a)) 495000 \
	"$(awk -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%d", 1000000 * (t1 - t0 + 0.02) }')"
# Background adds to an injection: 50 injected over about 0.2 s of 2 M/s.
wr 0xe01 0 >/dev/null; msr 0 0x706 0
t0=$(cut -d' ' -f1 /proc/uptime); wr 0xe01 0x20000000 >/dev/null; sleep 0.2
skl-inject cbox 0 0x34 0x8f 50
wr 0xe01 0 >/dev/null; t1=$(cut -d' ' -f1 /proc/uptime)
b=$(rd 0x706)
within "background adds to the injection: 50 + 2 M/s over the enabled time" $((b)) $((50 + 396000)) \
	"$(awk -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%d", 50 + 2000000 * (t1 - t0 + 0.02) }')"
check "a disabled counter stands still" "$b" "$(sleep 0.1; rd 0x706)"
skl-silicon rate cbox 0 0; skl-silicon rate arb 0 0
# The tally, against this test's own arithmetic (background 0 now): two enable-disable
# intervals of a counter with 30 and 12 injected, a preset in between (not traffic).
msr 0 0x706 0; skl-silicon tally-reset
wr 0xe01 0x20000000 >/dev/null; skl-inject cbox 0 0x34 0x8f 30; wr 0xe01 0 >/dev/null
skl-preset cbox 0 0 1000
wr 0xe01 0x20000000 >/dev/null; skl-inject cbox 0 0x34 0x8f 12; wr 0xe01 0 >/dev/null
check "tally: 30 + 12 counted over 2 starts; the preset is not traffic" "42 2" "$(skl-silicon tally cbox 0)"
check "... and the counter holds the preset + 12" "$(hex 1012)" "$(rd 0x706)"
for r in 0x700 0x706 0x3b2 0x3b0; do msr 0 $r 0; done

# --- counting rules (background 0 from here: exact counts) ----------------------------------
check "GLOBAL_CTRL EN, FRZ, WAKE and PMI_SEL write" "ok 0xe000000f" "$(wr 0xe01 0xe000000f) $(rd 0xe01)"
msr 0 0xe01 0
wr 0x710 0x408f34 >/dev/null   # CBo 1 counter 0: EN, umask 0x8f, event 0x34
check "local EN only: skl-inject counts nothing and exits 1" "1" "$(skl-inject cbox 1 0x34 0x8f 100 2>/dev/null; echo $?)"
check "local EN only: the counter stays 0" "0x0" "$(rd 0x716)"
wr 0xe01 0x20000000 >/dev/null
check "both enables: skl-inject exits 0" "0" "$(skl-inject cbox 1 0x34 0x8f 100; echo $?)"
check "both enables: injected 100 counted exactly" "0x64" "$(rd 0x716)"
skl-inject cbox 1 0x34 0x88 7
check "umask 0x10 (outside 0x8f): skl-inject exits 1" "1" "$(skl-inject cbox 1 0x34 0x10 1000 2>/dev/null; echo $?)"
check "umask 0x88 (inside 0x8f) counts, 0x10 does not" "0x6b" "$(rd 0x716)"
skl-inject cbox 0 0x34 0x8f 1000 2>/dev/null
skl-inject cbox 1 0x22 0x8f 1000 2>/dev/null
check "another box or another event does not count" "0x6b" "$(rd 0x716)"
check "a box the part lacks: skl-inject exits 2" "2" "$(skl-inject cbox $blocks 0x34 0x8f 1 2>/dev/null; echo $?)"
wr 0x710 0x8f34 >/dev/null
skl-inject cbox 1 0x34 0x8f 100 2>/dev/null
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
check "a counter the part lacks: skl-preset exits 1" "1" "$(skl-preset cbox 0 $nctr 5 2>/dev/null; echo $?)"
wr 0x3b2 0x400181 >/dev/null   # ARB counter 0: UNC_ARB_TRK_REQUESTS.ALL
skl-inject arb 0 0x81 0x01 4242
check "ARB counter 0 counts injected TRK_REQUESTS" "$(hex 4242)" "$(rd 0x3b0)"
last=$((blocks - 1))
lb=$((0x700 + 0x10 * last)); [ $last = 7 ] && lb=$((0xf70))
wr $lb 0x408f34 >/dev/null
skl-inject cbox $last 0x34 0x8f 77
check "the last CBo block ($last, at $(hex $lb)) counts too" "0x4d" "$(rd $((lb + 6)))"
msr 0 $lb 0

# Valid counters (Table 3-2): UNC_ARB_TRK_OCCUPANCY (0x80) counts on ARB counter 0 only. On
# counter 1 the model counts 0 and tallies a violation per enabling write.
msr 0 0x3b0 0; msr 0 0x3b1 0
wr 0x3b2 0x400180 >/dev/null; wr 0x3b3 0x400180 >/dev/null
skl-inject arb 0 0x80 0x01 600
check "ARB occupancy (0x80): counter 0 counts 600, counter 1 (not allowed) 0" "0x258 0x0" "$(rd 0x3b0) $(rd 0x3b1)"
check "the violation is tallied once, on ARB PERFEVTSEL1" "msr 0x3b3 gp 0 violations 1" "$(skl-silicon faults)"
wr 0x3b3 0x400181 >/dev/null
skl-inject arb 0 0x81 0x01 5
check "an allowed event (0x81) on counter 1 counts, and adds no violation" "0x5 msr 0x3b3 gp 0 violations 1" \
	"$(rd 0x3b1) $(skl-silicon faults)"
skl-silicon faults-reset
for r in 0x3b2 0x3b3 0x3b0 0x3b1; do msr 0 $r 0; done

# --- partial state loss (the backdoor's lose) -----------------------------------------------
msr 0 0xe01 0x20000000; msr 0 0x394 0x400000; msr 0 0x700 0x408f34; msr 0 0x706 0x1234
skl-silicon lose ctrl
check "lose ctrl: PERFEVTSEL and FIXED_CTRL 0; PERFCTR and GLOBAL_CTRL kept" "0x0 0x0 0x1234 0x20000000" \
	"$(rd 0x700) $(rd 0x394) $(rd 0x706) $(rd 0xe01)"
msr 0 0x700 0x408f34; msr 0 0x394 0x400000
skl-silicon lose counters
check "lose counters: PERFCTR 0; PERFEVTSEL, FIXED_CTRL, GLOBAL_CTRL kept" "0x0 0x408f34 0x400000 0x20000000" \
	"$(rd 0x706) $(rd 0x700) $(rd 0x394) $(rd 0xe01)"
msr 0 0x706 0x1234
skl-silicon lose global
check "lose global: GLOBAL_CTRL 0; the rest kept" "0x0 0x408f34 0x400000 0x1234" \
	"$(rd 0xe01) $(rd 0x700) $(rd 0x394) $(rd 0x706)"
msr 0 0xe01 0x20000000
skl-silicon lose all
check "lose all: as a power-on" "0x0 0x0 0x0 0x0" "$(rd 0xe01) $(rd 0x700) $(rd 0x394) $(rd 0x706)"

# --- UCLK -----------------------------------------------------------------------------------
# busy SECONDS: one vCPU runs (no package C-state), the others may idle.
busy() { timeout "$1" sh -c 'while :; do :; done' 2>/dev/null; }
# The device's default uclk-hz (qemu/README.md): scripts/check boots the model tests with it.
uclk=1000000000
wr 0xe01 0x20000000 >/dev/null; wr 0x394 0x400000 >/dev/null
t0=$(cut -d' ' -f1 /proc/uptime); a=$(rd 0x395); busy 1; b=$(rd 0x395); t1=$(cut -d' ' -f1 /proc/uptime)
within "FIXED_CTR ticks at UCLK while a vCPU runs for 1 s" $((b - a)) \
	"$(awk -v u="$uclk" 'BEGIN { printf "%d", u * 0.97 }')" \
	"$(awk -v u="$uclk" -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%d", u * (t1 - t0 + 0.02) }')"
t0=$(cut -d' ' -f1 /proc/uptime); a=$(rd 0x395); sleep 1; b=$(rd 0x395); t1=$(cut -d' ' -f1 /proc/uptime)
if [ -n "$idle" ]; then
	within "uclk-idle-stop: FIXED_CTR nearly stops while every vCPU idles in a 1 s sleep" $((b - a)) 0 \
		"$(awk -v u="$uclk" 'BEGIN { printf "%d", u * 0.2 }')"
else
	within "FIXED_CTR ticks at UCLK through a 1 s sleep" $((b - a)) \
		"$(awk -v u="$uclk" 'BEGIN { printf "%d", u * 0.99 }')" \
		"$(awk -v u="$uclk" -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%d", u * (t1 - t0 + 0.02) }')"
fi
wr 0xe01 0 >/dev/null
a=$(rd 0x395); busy 1; b=$(rd 0x395)
check "FIXED_CTR stops without GLOBAL_CTRL.EN" "$a" "$b"
msr 0 0x394 0

# --- host bridge, MCHBAR, IMC ---------------------------------------------------------------
check "host bridge 0:0.0 is 8086:191f (the i7-6700K's host bridge; the device's default)" "0x8086 0x191f" \
	"$(cat /sys/bus/pci/devices/0000:00:00.0/vendor) $(cat /sys/bus/pci/devices/0000:00:00.0/device)"
check "MCHBAR 0x48 = 0xfed10000 | MCHBAREN, 0x4c = 0" "fed10001 00000000" "$(cfg_dword 72) $(cfg_dword 76)"
skl-silicon stats-reset; cfg_dword 72 >/dev/null
check "stats count config reads of 0:0.0 at 0x48" "pcicfg 0x48 reads 1 writes 0" "$(skl-silicon stats | grep 'pcicfg 0x48 ')"
imcs=$(for e in 1 2 3 4 5; do skl-silicon peek imc 0 $e; done)
check "the 5 IMC counters start from arbitrary values: none 0, all different" "5 0" \
	"$(echo "$imcs" | sort -u | wc -l) $(echo "$imcs" | grep -c '^0x0$')"

# --- S3: the silicon loses its uncore state; the model returns to power-on values ----------
if [ -n "$s3" ]; then
	wr 0xe01 0x20000000 >/dev/null; wr 0x394 0x400000 >/dev/null; wr 0x700 0x408f34 >/dev/null
	skl-preset cbox 0 0 12345
	skl-silicon rate imc 1 0
	skl-preset imc 0 1 0x12345678
	check "state set before S3" "0x20000000 0x400000 0x408f34 0x3039 0x12345678" \
		"$(rd 0xe01) $(rd 0x394) $(rd 0x700) $(rd 0x706) $(skl-silicon peek imc 0 1)"
	echo mem > /sys/power/state
	check "S3 entered and resumed" "0" "$?"
	check "after S3: GLOBAL_CTRL FIXED_CTRL PERFEVTSEL PERFCTR FIXED_CTR at power-on 0" \
		"0x0 0x0 0x0 0x0 0x0" "$(rd 0xe01) $(rd 0x394) $(rd 0x700) $(rd 0x706) $(rd 0x395)"
	check "after S3: MCHBAR programmed again" "fed10001" "$(cfg_dword 72)"
	imc=$(skl-silicon peek imc 0 1)
	[ "$imc" != 0x12345678 ] && [ "$imc" != 0x0 ] && ok "after S3: IMC data_reads restarts elsewhere ($imc)" ||
		not_ok "after S3: IMC data_reads restarts from a new value" "$imc"
	dmesg | grep -q 'Waking up from system sleep state S3' && ok "guest logged the S3 wakeup" ||
		not_ok "guest logged the S3 wakeup" "no 'Waking up from system sleep state S3'"
fi
ktap_end
